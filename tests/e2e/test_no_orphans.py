"""A killed test run leaves no process behind: the stack the e2e fixtures start (broker,
kubesim or the real control plane, the four services) dies with the process that started it.

The runner here is a child Python that starts its stack with the fixtures' own `plane_config`,
prints the PIDs, and is then SIGKILLed, as a timeout or a second Ctrl-C kills pytest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import require_real
from tests.e2e.e2e_cluster import process_alive

pytestmark = [pytest.mark.timeout(300)]

RUNNER = """
import asyncio, json, sys
from pathlib import Path
from services.cli.stack import Stack, StackConfig
from tests.e2e.conftest import plane_config

async def main() -> None:
    config = plane_config(StackConfig(workdir=Path(sys.argv[1]), nodes=2), sys.argv[2])
    stack = Stack(config)
    await stack.start(timeout=120)
    print(json.dumps(stack.pids()), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


@pytest.mark.parametrize("plane", ["kubesim", "real"])
def test_a_killed_runner_takes_its_whole_stack_with_it(plane: str, tmp_path: Path) -> None:
    if plane == "real":
        require_real()
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(tmp_path), plane],
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "runner.log").open("wb"),
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert runner.stdout is not None
        line = runner.stdout.readline()
        assert line, f"the runner did not start its stack; see {tmp_path / 'runner.log'}"
        pids: dict[str, int] = json.loads(line)
        expected = {"watcher", "jobcontroller", "scheduler", "binder"}
        expected |= {"kubesim", "broker"} if plane == "kubesim" else {"kube-apiserver", "etcd"}
        assert expected <= set(pids), f"stack started without {expected - set(pids)}"
        assert all(process_alive(pid) for pid in pids.values())
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait(10)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(process_alive(pid) for pid in pids.values()):
        time.sleep(0.2)
    left = {name: pid for name, pid in pids.items() if process_alive(pid)}
    for pid in left.values():
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after the runner was killed: {left}"
