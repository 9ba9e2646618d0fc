"""Replaying a recorded cycle: rebuild its exact inputs from the log, decide again, diff.

A ``CycleRecorded`` names, per state-topic partition, the next offset the scheduler had applied
when the cycle ran; the cache of that moment is every record below those offsets, applied by the
same ``SchedulerState`` the service uses. The bindings and evictions the scheduler had decided but
not yet seen confirmed, the clock and the conf come from the record itself. Then ``Scheduling`` —
what the service runs — decides again, and the decisions are compared with the recorded ones.
No I/O: the records come from Kafka or from an exported file (``replay.py`` reads them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import msgspec

from services.scheduler.cycle import Scheduling, conf_digest
from services.scheduler.result import SessionResult
from services.scheduler.snapshot import DEFAULT_SCHEDULER_NAMES, Snapshot
from services.scheduler.state import SchedulerState
from shared.bus import RawRecord, Record
from shared.bus.records import with_value
from shared.errors import UserError
from shared.events import CycleRecorded, StateEvent, cycle_decoder, state_decoder


class Difference(msgspec.Struct, frozen=True, kw_only=True):
    """One decision that came out differently (``None``: absent on that side)."""

    kind: str  # bind | eviction | pipelined | podgroup | conf
    key: str
    recorded: str | None
    replayed: str | None


class Recorded(msgspec.Struct, frozen=True, kw_only=True):
    """A cycle record and where it sits on the cycles topic."""

    offset: int
    cycle: CycleRecorded


@dataclass
class Replay:
    recorded: Recorded
    decisions: SessionResult
    differences: list[Difference]

    @property
    def identical(self) -> bool:
        return not self.differences


def recorded_cycles(records: Iterable[RawRecord], *, topic: str) -> list[Recorded]:
    """The cycle records of ``topic`` in log order (records that do not decode are skipped)."""
    found: list[Recorded] = []
    for record in sorted((r for r in records if r.topic == topic), key=_log_order):
        if record.value is None:
            continue
        try:
            found.append(Recorded(offset=record.offset, cycle=cycle_decoder.decode(record.value)))
        except msgspec.DecodeError:
            continue
    return found


def pick(cycles: Sequence[Recorded], cycle: int | None) -> Recorded:
    """Cycle number ``cycle`` (the latest such record: numbers restart with the scheduler), or
    the last cycle when ``cycle`` is None."""
    if not cycles:
        raise UserError("no cycle records found (is SHOAL_SCHEDULER_RECORD_CYCLES on?)")
    if cycle is None:
        return cycles[-1]
    matching = [c for c in cycles if c.cycle.cycle == cycle]
    if not matching:
        first, last = cycles[0].cycle.cycle, cycles[-1].cycle.cycle
        raise UserError(f"cycle {cycle} is not in the log (first {first}, last {last})")
    return matching[-1]


def state_topics(cycle: CycleRecorded) -> list[str]:
    """The topics a cycle's positions name."""
    return sorted({position.rsplit("/", 1)[0] for position in cycle.positions})


def inputs(records: Iterable[RawRecord], cycle: CycleRecorded) -> list[Record[StateEvent]]:
    """The state records the cycle had applied: offset < its position, per partition, decoded
    (records that do not decode were dead-lettered by the scheduler, so skipped here too)."""
    applied: list[Record[StateEvent]] = []
    for record in sorted(records, key=_log_order):
        position = cycle.positions.get(f"{record.topic}/{record.partition}", 0)
        if record.offset >= position or record.value is None:
            continue
        try:
            applied.append(with_value(record, state_decoder.decode(record.value)))
        except msgspec.DecodeError:
            continue
    return applied


def restore(records: Iterable[RawRecord], cycle: CycleRecorded) -> tuple[Snapshot, list[str]]:
    """The snapshot the cycle's session saw, and what about its conf could not be reproduced."""
    state = SchedulerState()
    state.apply_state(inputs(records, cycle))
    state.restore(cycle.assumed, cycle.evicting, now=cycle.now)
    snapshot = state.view()
    snapshot.conf_text, problems = _conf(snapshot.conf_text, cycle)
    return snapshot, problems


def _conf(configmap: str | None, cycle: CycleRecorded) -> tuple[str | None, list[str]]:
    """The conf text the cycle ran: recorded with it, else the ConfigMap's if its digest
    matches, else the default when that is what ran."""
    if cycle.conf_text is not None:
        return cycle.conf_text, []
    if cycle.conf_sha256 is None:  # a record from before confs were recorded
        return configmap, []
    if cycle.conf_sha256 == "":
        return None, []
    if conf_digest(configmap) == cycle.conf_sha256:
        return configmap, []
    return configmap, [conf_digest(configmap)]


def replay(
    records: Iterable[RawRecord], recorded: Recorded, *, scheduler_names: Iterable[str] = ()
) -> Replay:
    """Re-run ``recorded`` on the state records and diff its decisions."""
    cycle = recorded.cycle
    snapshot, conf_problems = restore(records, cycle)
    names = tuple(scheduler_names) or tuple(cycle.scheduler_names) or DEFAULT_SCHEDULER_NAMES
    decisions = Scheduling().session(snapshot, now=cycle.now, scheduler_names=names)
    differences = [
        Difference(kind="conf", key="sha256", recorded=cycle.conf_sha256, replayed=digest)
        for digest in conf_problems
    ]
    differences += diff(cycle, decisions)
    return Replay(recorded=recorded, decisions=decisions, differences=differences)


def diff(cycle: CycleRecorded, decisions: SessionResult) -> list[Difference]:
    """Every bind, eviction, pipelined placement and PodGroup phase that differs."""
    phases = decisions.phases()
    return [
        *_diff_maps("bind", cycle.binds, decisions.binds),
        *_diff_maps("eviction", _present(cycle.evictions), _present(decisions.evictions)),
        *_diff_maps("pipelined", cycle.pipelined, decisions.pipelined),
        *_diff_maps("podgroup", cycle.podgroups, phases),
    ]


def _present(keys: Iterable[str]) -> dict[str, str]:
    return dict.fromkeys(keys, "evict")


def _diff_maps(
    kind: str, recorded: Mapping[str, str], replayed: Mapping[str, str]
) -> list[Difference]:
    return [
        Difference(kind=kind, key=key, recorded=recorded.get(key), replayed=replayed.get(key))
        for key in sorted(recorded.keys() | replayed.keys())
        if recorded.get(key) != replayed.get(key)
    ]


def _log_order(record: RawRecord) -> tuple[str, int, int]:
    return (record.topic, record.partition, record.offset)
