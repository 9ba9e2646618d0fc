"""A PodGroup status decision the log never shows applied is published again (architecture §3).

The scheduler publishes a status once; if the state log still shows another status
``status_resend`` seconds later (the binder dropped it, a fenced binder, a lost record), the
same decision goes out again. A status the log shows applied is not re-sent.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.result import PodGroupUpdate, SessionResult
from services.scheduler.state import BACKOFF_LIMIT, SchedulerState
from shared.bus import Record
from shared.events import ObjectAdded, PodGroupStatusDecided, raw_object

RUNNING = {"phase": "Running", "conditions": [{"type": "Scheduled", "status": "True"}]}
RUNNING_UPDATE = msgspec.convert(RUNNING, PodGroupUpdate)


def podgroup_record(phase: str, rv: int) -> Record[Any]:
    obj = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "ns", "uid": "u1", "resourceVersion": str(rv)},
        "spec": {"minMember": 1},
        "status": RUNNING if phase == "Running" else {"phase": phase},
    }
    event = ObjectAdded(
        key="ns/pg", kind="PodGroup", resourceVersion=str(rv), object=raw_object(obj)
    )
    return Record(
        topic="state.podgroups", partition=0, offset=rv, key=b"ns/pg", value=event, timestamp_ms=0
    )


def statuses(state: SchedulerState, now: float) -> list[str]:
    out = state.decisions(
        SessionResult(pod_groups={"ns/pg": RUNNING_UPDATE}), epoch=1, cycle=1, now=now, producer="t"
    )
    return [d.phase for d in out if isinstance(d, PodGroupStatusDecided)]


@pytest.mark.parametrize(
    ("observed_after", "now", "expected"),
    [
        ("Pending", 105.0, []),
        ("Pending", 111.0, ["Running"]),
        ("Running", 111.0, []),
    ],
    ids=[
        "not-applied-yet-within-resend-waits",
        "not-applied-after-resend-is-published-again",
        "applied-is-not-resent",
    ],
)
def test_status_is_resent_only_when_the_log_shows_it_was_not_applied(
    observed_after: str, now: float, expected: list[str]
) -> None:
    state = SchedulerState(status_resend=10.0)
    state.apply_state([podgroup_record("Pending", 1)])
    assert statuses(state, 100.0) == ["Running"]
    state.apply_state([podgroup_record(observed_after, 2)])
    assert statuses(state, now) == expected


def test_each_resend_of_the_same_status_waits_twice_as_long() -> None:
    """10 s, then 20, 40, ... up to BACKOFF_LIMIT times 10 s: a binder behind an API server at
    capacity is not sent the same write again and again."""
    state = SchedulerState(status_resend=10.0)
    state.apply_state([podgroup_record("Pending", 1)])
    assert statuses(state, 100.0) == ["Running"]
    assert statuses(state, 111.0) == ["Running"]  # waited 10 s
    assert statuses(state, 125.0) == []  # now waits 20 s
    assert statuses(state, 131.0) == ["Running"]
    assert statuses(state, 170.0) == []  # 40 s
    assert statuses(state, 171.0) == ["Running"]
    sent = [at for at in range(172, 2000) if statuses(state, float(at))]
    waits = [b - a for a, b in zip([171, *sent], sent, strict=False)]
    assert waits[:3] == [80, 160, 160]  # doubled once more, then held at 16 x 10 s
    assert BACKOFF_LIMIT == 16


def test_the_log_showing_it_applied_resets_the_wait() -> None:
    state = SchedulerState(status_resend=10.0)
    state.apply_state([podgroup_record("Pending", 1)])
    assert statuses(state, 100.0) == ["Running"]
    assert statuses(state, 111.0) == ["Running"]
    state.apply_state([podgroup_record("Running", 2)])
    assert statuses(state, 112.0) == []  # applied: the wait starts over at 10 s
    state.apply_state([podgroup_record("Pending", 3)])  # someone wrote it back
    assert statuses(state, 121.0) == []
    assert statuses(state, 123.0) == ["Running"]
