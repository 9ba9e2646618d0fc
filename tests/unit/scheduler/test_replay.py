"""replay: cycles the Scheduler service recorded re-run identically; tampering is reported.

The service runs over a MemoryBus (rebuild, followers, real ``run_cycle``), so the records,
positions and assumed pods are the ones production writes; the replay reads them back through
an exported JSONL file and the ``shoal replay`` command.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import pytest

from services.cli.debug.logfile import write_records
from services.cli.debug.replaying import pick, recorded_cycles, replay
from services.cli.main import main
from shared.bus import RawRecord
from shared.events import CycleRecorded, cycle_decoder, encode
from shared.models import Model
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue
from tests.unit.scheduler.state_records import conf_map, recorded_log

PREFIX = "replay."
ENQUEUE_ONLY = conf_text("enqueue", ["priority", "gang"], ["predicates", "proportion"])


def _gang(name: str, size: int, cpu: str) -> list[Model]:
    return [group(name, size), *(pod(f"{name}-{i}", name, cpu) for i in range(size))]


FIRST: list[Model] = [node("n1", "4"), node("n2", "4"), queue("default"), *_gang("a", 2, "2")]
LATER: list[Model] = _gang("b", 2, "2")


CYCLES = f"{PREFIX}scheduler.cycles"


async def _log(tmp_path: Path, *, conf: str = "", extra: Sequence[Model] = ()) -> list[RawRecord]:
    """Two cycles of the real service: gang a, then gang b arriving between the cycles."""
    conf_path = ""
    if conf:
        (tmp_path / "conf.yaml").write_text(conf)
        conf_path = str(tmp_path / "conf.yaml")
    return await recorded_log([[*FIRST, *extra], LATER], prefix=PREFIX, conf_path=conf_path)


def _cycles(records: list[RawRecord]) -> list[CycleRecorded]:
    return [r.cycle for r in recorded_cycles(records, topic=CYCLES)]


@pytest.mark.parametrize(
    ("conf", "extra", "binds_first"),
    [
        ("", [], 2),
        ("", [conf_map(ENQUEUE_ONLY)], 0),
        (ENQUEUE_ONLY, [], 0),
    ],
    ids=["default-conf", "configmap-conf", "file-conf"],
)
async def test_recorded_cycles_replay_identically(
    tmp_path: Path, conf: str, extra: list[Model], binds_first: int
) -> None:
    records = await _log(tmp_path, conf=conf, extra=extra)
    first, second = _cycles(records)
    assert len(first.binds) == binds_first
    # The session of cycle 2 saw cycle 1's binds as assumed, not its own.
    assert set(second.assumed) == set(first.binds)
    assert not set(second.assumed) & set(second.binds)
    assert (first.conf_text is not None) == bool(conf)
    for number in (1, 2):
        result = replay(records, pick(recorded_cycles(records, topic=CYCLES), number))
        assert result.differences == []
        assert result.decisions.binds == result.recorded.cycle.binds


def _tamper(record: RawRecord, change: Callable[[CycleRecorded], CycleRecorded]) -> RawRecord:
    assert record.value is not None
    value = encode(change(cycle_decoder.decode(record.value)))
    return msgspec.structs.replace(record, value=value)


def _move_bind(c: CycleRecorded) -> CycleRecorded:
    key = sorted(c.binds)[0]
    return msgspec.structs.replace(c, binds={**c.binds, key: "elsewhere"})


def _add_eviction(c: CycleRecorded) -> CycleRecorded:
    return msgspec.structs.replace(c, evictions=["default/a-0"])


def _change_phase(c: CycleRecorded) -> CycleRecorded:
    return msgspec.structs.replace(c, podgroups={**c.podgroups, "default/a": "Pending"})


def _forget_assumed(c: CycleRecorded) -> CycleRecorded:
    return msgspec.structs.replace(c, assumed={})


@pytest.mark.parametrize(
    ("change", "cycle", "expected"),
    [
        (_move_bind, 1, "bind default/a-0: recorded elsewhere, replayed n"),
        (_add_eviction, 1, "eviction default/a-0: recorded evict, replayed (none)"),
        (_change_phase, 1, "podgroup default/a: recorded Pending, replayed Running"),
        # Without cycle 1's binds assumed, gang a would be bound again in cycle 2.
        (_forget_assumed, 2, "bind default/a-0: recorded (none), replayed n"),
    ],
    ids=["bind-moved", "eviction-added", "phase-changed", "assumed-lost"],
)
async def test_cli_reports_tampered_cycle(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[CycleRecorded], CycleRecorded],
    cycle: int,
    expected: str,
) -> None:
    records = await _log(tmp_path)
    target = next(r for r in recorded_cycles(records, topic=CYCLES) if r.cycle.cycle == cycle)
    records = [
        _tamper(r, change) if r.topic == CYCLES and r.offset == target.offset else r
        for r in records
    ]
    path = tmp_path / "log.jsonl"
    with path.open("wb") as out:
        write_records(out, records)
    argv = ["replay", "--file", str(path), "--topic-prefix", PREFIX, "--cycle", str(cycle)]
    assert main(argv) == 1
    assert expected in capsys.readouterr().out


async def test_cli_identical_from_file_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.jsonl"
    with path.open("wb") as out:
        written, skipped = write_records(out, await _log(tmp_path))
    assert written > 0 and skipped == 0
    assert main(["replay", "--file", str(path), "--topic-prefix", PREFIX, "--last"]) == 0
    assert "replayed: identical" in capsys.readouterr().out
    argv = ["replay", "--file", str(path), "--topic-prefix", PREFIX, "-o", "json"]
    assert main(argv) == 0
    doc = msgspec.json.decode(capsys.readouterr().out)
    assert doc["identical"] is True and doc["cycle"] == 2
    assert doc["replayed"]["binds"] == doc["recorded"]["binds"] != {}


@pytest.mark.parametrize(
    ("args", "content", "message"),
    [
        (["--cycle", "9"], None, "cycle 9 is not in the log (first 1, last 2)"),
        ([], b"not json\n", "not an exported record"),
        ([], b"", "no cycle records found"),
        (["--bootstrap", "h:1"], None, "not both"),
        (["export"], None, "export needs --out"),
    ],
    ids=["unknown-cycle", "malformed-line", "no-cycles", "file-and-bootstrap", "export-no-out"],
)
async def test_cli_bad_input_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    content: bytes | None,
    message: str,
) -> None:
    path = tmp_path / "log.jsonl"
    if content is None:
        with path.open("wb") as out:
            write_records(out, await _log(tmp_path))
    else:
        path.write_bytes(content)
    assert main(["replay", "--file", str(path), "--topic-prefix", PREFIX, *args]) == 2
    assert message in capsys.readouterr().err


def test_cli_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--file", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
