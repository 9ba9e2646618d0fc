"""shoal replay against the broker: the Scheduler service records cycles on Kafka while state
arrives; replaying them from Kafka and from an exported file gives the same decisions."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from services.cli.main import main
from services.scheduler.service import Scheduler, SchedulerSettings
from services.scheduler.state import POD
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind
from shared.events import CycleRecorded, cycle_decoder
from tests.conftest import KafkaNames
from tests.integration.services.conftest import make_shell
from tests.unit.scheduler.builders import group, node, pod, queue
from tests.unit.scheduler.state_records import publish

pytestmark = pytest.mark.timeout(120)


async def _cycles(bus: KafkaBus, topic: str) -> list[CycleRecorded]:
    snapshot = await bus.rebuild(topics=[topic], decode=cycle_decoder.decode)
    return [r.value for r in snapshot.records]


async def _until(check: Callable[[], bool], what: str, timeout_s: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = await asyncio.to_thread(main, list(argv))  # the command runs its own event loop
    return code, capsys.readouterr().out


async def test_replay_from_kafka_and_from_export(
    kafka_bootstrap: str,
    broker_kind: BrokerKind,
    kafka_names: KafkaNames,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prefix = kafka_names.prefix
    shell = make_shell("scheduler", kafka_bootstrap, broker_kind, prefix)
    monkeypatch.setenv("SHOAL_BROKER", broker_kind)  # the commands' settings come from it
    settings = SchedulerSettings(standalone=True, period=0.2, min_interval=0.05)
    async with KafkaBus(settings=shell.kafka) as bus:
        scheduler = Scheduler(shell=shell, bus=bus, settings=settings)
        stopping = asyncio.Event()
        running = asyncio.create_task(scheduler.run(stopping))
        await _until(lambda: shell.readiness.ready, "the cache rebuild")
        await publish(bus, shell.topics, [node("n1", "4"), node("n2", "4"), queue("default")])
        gang = [group("a", 3), *(pod(f"a-{i}", "a", "2") for i in range(3))]
        await publish(bus, shell.topics, gang)
        await _until(lambda: len(scheduler.state.assumed) == 3, "gang a decided")
        await publish(bus, shell.topics, [group("b", 1), pod("b-0", "b", "3")])
        # Two cycles counted once b-0 is applied (its PodGroup comes first: a cycle between
        # the two would see the gang without its pod).
        await _until(lambda: scheduler.state.cache.get(POD, "default/b-0") is not None, "b-0")
        seen_at = scheduler.cycle
        await _until(lambda: scheduler.cycle >= seen_at + 2, "cycles after the binds")
        stopping.set()
        await running
        cycles = await _cycles(bus, shell.topics.cycles)

    binding = next(c for c in cycles if c.binds)
    assert sorted(binding.binds) == ["default/a-0", "default/a-1", "default/a-2"]
    last = cycles[-1]
    assert set(last.assumed) == set(binding.binds)  # later cycles saw the gang as assumed

    log = ["--bootstrap", kafka_bootstrap, "--topic-prefix", prefix]
    code, out = await _cli(capsys, "replay", *log, "--last")
    assert (code, "replayed: identical" in out) == (0, True), out
    code, out = await _cli(capsys, "replay", *log, "--cycle", str(binding.cycle), "-o", "json")
    doc = json.loads(out)
    assert (code, doc["identical"], doc["replayed"]["binds"]) == (0, True, binding.binds)

    path = tmp_path / "log.jsonl"
    code, out = await _cli(capsys, "replay", "export", *log, "--out", str(path))
    assert code == 0 and f"to {path}" in out
    from_file = ["--file", str(path), "--topic-prefix", prefix]
    for which in (["--last"], ["--cycle", str(binding.cycle)]):
        code, out = await _cli(capsys, "replay", *from_file, *which)
        assert (code, "replayed: identical" in out) == (0, True), out

    code, out = await _cli(capsys, "explain", *log, "default/b")
    assert code == 0
    assert out.startswith(f"cycle {last.cycle} (record {len(cycles) - 1}, "), out
    assert "job default/b (queue default): Inqueue" in out
    assert "Unschedulable=True" in out  # the condition and its reason follow


async def test_replay_with_a_wrong_prefix_exits_2(
    kafka_bootstrap: str,
    broker_kind: BrokerKind,
    kafka_names: KafkaNames,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SHOAL_BROKER", broker_kind)
    argv = ["replay", "--bootstrap", kafka_bootstrap, "--topic-prefix", kafka_names.prefix]
    assert await asyncio.to_thread(main, argv) == 2
    assert "no topic" in capsys.readouterr().err
