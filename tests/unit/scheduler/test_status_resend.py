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
from services.scheduler.state import SchedulerState
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


def test_a_resent_status_waits_a_full_period_again() -> None:
    state = SchedulerState(status_resend=10.0)
    state.apply_state([podgroup_record("Pending", 1)])
    assert statuses(state, 100.0) == ["Running"]
    assert statuses(state, 111.0) == ["Running"]
    assert statuses(state, 115.0) == []
    assert statuses(state, 122.0) == ["Running"]
