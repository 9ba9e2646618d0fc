"""The scheduler stops on SIGTERM by itself, in time, while its broker is gone.

The scheduler runs as a process against its own embedded broker, which the test kills: mid
election (the group join under way) and while leading. SIGTERM must then end the process by
itself, with exit code 0, before the grace period runs out: a root task still running at the
deadline is cancelled and the exit code is 1 (the election's poll used to wait for ever for an
assignment the dead broker would never give).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from shared.broker import EmbeddedBroker, free_port
from shared.runtime import SHUTDOWN_OVERHEAD_S

GRACE_S = 30.0
START_TIMEOUT_S = 180.0  # a cold start on a busy two-core machine


def _wait_for(what: str, predicate: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"not seen in time: {what}"
        time.sleep(0.2)


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.mark.parametrize("when", ["mid-election", "leading"], ids=["mid-election", "leading"])
def test_scheduler_exits_on_sigterm_while_its_broker_is_gone(tmp_path: Path, when: str) -> None:
    log = tmp_path / "scheduler.log"
    port = free_port()
    with EmbeddedBroker() as broker, log.open("wb") as out:
        env = {
            **os.environ,
            "KAFKA_BOOTSTRAP": broker.bootstrap,
            "SHOAL_BROKER": EmbeddedBroker.kind,
            "SHOAL_HTTP_PORT": str(port),
            "SHOAL_HTTP_HOST": "127.0.0.1",
            "SHOAL_LOG_FORMAT": "json",
            "SHOAL_SHUTDOWN_GRACE": f"{GRACE_S:g}s",
            "SHOAL_TOPIC_PREFIX": f"shutdown{port}",
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "run", "scheduler"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        try:
            if when == "leading":
                _wait_for("/readyz", lambda: _ready(port), START_TIMEOUT_S)
            else:
                _wait_for(
                    "the election's group join",
                    lambda: "joining group" in log.read_text(),
                    START_TIMEOUT_S,
                )
            broker.stop()
            time.sleep(3)  # the scheduler's clients notice the broker is gone
            process.send_signal(signal.SIGTERM)
            code = process.wait(GRACE_S + SHUTDOWN_OVERHEAD_S + 30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert code == 0, log.read_text()[-3000:]
    assert "missed the shutdown deadline" not in log.read_text()
