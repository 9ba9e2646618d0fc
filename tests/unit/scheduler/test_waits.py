"""The scheduler's hop timing: pending pods and PodGroups, and bind reports paired with the
bound pod whichever arrives first."""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.result import SessionResult
from services.scheduler.state import BACKOFF_LIMIT, Assumption, SchedulerState
from services.scheduler.waits import Waits
from shared.bus import Record
from shared.events import ObjectAdded, PodBindDecided, PodBound, raw_object


def test_pending_pod_keeps_its_first_observation_until_it_is_not_pending() -> None:
    waits = Waits()
    waits.pod("ns/a", pending=True, bound=False, observed=1.0, now=1.1)
    waits.pod("ns/a", pending=True, bound=False, observed=2.0, now=2.1)
    assert waits.pods == {"ns/a": 1.0}
    waits.pod("ns/a", pending=False, bound=False, observed=3.0, now=3.1)  # deleted
    assert waits.pods == {}


@pytest.mark.parametrize(
    ("result_first", "expected"),
    [(True, 0.4), (False, 0.2)],
    ids=["result-then-pod", "pod-then-result"],
)
def test_bind_observed_pairs_the_report_and_the_bound_pod(
    result_first: bool, expected: float
) -> None:
    waits = Waits()
    if result_first:
        waits.bound("ns/a", at=10.0, awaited=True)
        waits.pod("ns/a", pending=False, bound=True, observed=10.3, now=10.4)
    else:
        waits.pod("ns/a", pending=False, bound=True, observed=10.1, now=10.2)
        waits.bound("ns/a", at=10.0, awaited=False)
    assert waits.drain() == [pytest.approx(expected)]
    assert waits.drain() == []


def test_unpaired_reports_expire() -> None:
    waits = Waits(ttl=5.0)
    waits.bound("ns/a", at=10.0, awaited=True)
    waits.pod("ns/b", pending=False, bound=True, observed=10.0, now=10.0)
    waits.expire(16.0)
    waits.pod("ns/a", pending=False, bound=True, observed=17.0, now=17.0)
    waits.bound("ns/b", at=17.0, awaited=False)
    assert waits.drain() == []


def test_podgroup_waits_while_pending() -> None:
    waits = Waits()
    waits.podgroup("ns/pg", pending=True, observed=1.0)
    waits.podgroup("ns/pg", pending=True, observed=2.0)
    assert waits.podgroups == {"ns/pg": 1.0}
    waits.podgroup("ns/pg", pending=False, observed=3.0)
    assert waits.podgroups == {}


def pod_record(*, node: str = "", observed: float) -> Record[Any]:
    rv = "2" if node else "1"
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "uid": "u1", "resourceVersion": rv},
        "spec": {"nodeName": node} if node else {},
    }
    event = ObjectAdded(
        key="ns/p", kind="Pod", resourceVersion=rv, object=raw_object(obj), occurred_at=observed
    )
    return Record(
        topic="state.pods", partition=0, offset=int(rv), key=b"ns/p", value=event, timestamp_ms=0
    )


def test_bind_decision_carries_when_the_pod_entered_and_the_bound_pod_ends_the_wait() -> None:
    state = SchedulerState()
    state.apply_state([pod_record(observed=100.0)], now=100.1)
    decided = state.decisions(
        SessionResult(binds={"ns/p": "n1"}), epoch=1, cycle=1, now=101.0, producer="t"
    )
    assert [(type(d), d.entered_at) for d in decided] == [(PodBindDecided, 100.0)]
    state.apply_results([PodBound(key="ns/p", pod_uid="u1", node="n1", occurred_at=101.5)])
    state.apply_state([pod_record(node="n1", observed=101.8)], now=102.0)
    assert state.waits.pods == {} and state.assumed == {}
    assert state.waits.drain() == [pytest.approx(0.5)]


def test_rebuilt_records_are_not_timed() -> None:
    state = SchedulerState()
    state.apply_state([pod_record(observed=100.0)])
    assert state.waits.pods == {}


@pytest.mark.parametrize(
    ("pod", "podgroup_phase", "assumed", "rest"),
    [
        (None, None, False, True),
        ({"spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}, "Running", False, True),
        ({"spec": {}, "status": {"phase": "Pending"}}, "Inqueue", False, False),
        (None, "Pending", False, False),
        (None, None, True, False),
    ],
    ids=["empty", "all-placed", "pod-waiting", "podgroup-waiting", "bind-in-flight"],
)
def test_at_rest_only_when_nothing_waits(
    pod: dict[str, Any] | None, podgroup_phase: str | None, assumed: bool, rest: bool
) -> None:
    state = SchedulerState()
    records: list[Record[Any]] = []
    if pod is not None:
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}}
        records.append(_record("Pod", {**obj, **pod}))
    if podgroup_phase is not None:
        obj = {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "ns"},
            "status": {"phase": podgroup_phase},
        }
        records.append(_record("PodGroup", obj))
    state.apply_state(records)
    if assumed:
        state.decisions(SessionResult(), epoch=1, cycle=1, now=1.0, producer="t")
        state.assumed["ns/x"] = Assumption(uid="u", node="n1", since=1.0)
    assert state.at_rest() is rest


def _record(kind: str, obj: dict[str, Any]) -> Record[Any]:
    obj["metadata"]["resourceVersion"] = "1"
    obj["metadata"]["uid"] = "u-" + kind
    event = ObjectAdded(key="ns/x", kind=kind, resourceVersion="1", object=raw_object(obj))
    return Record(topic=kind, partition=0, offset=1, key=b"ns/x", value=event, timestamp_ms=0)


def test_an_expired_assumption_makes_the_next_one_of_the_pod_last_twice_as_long() -> None:
    """A bind whose result did not come back within ``assume_ttl`` is decided again; when the
    binder lags behind a busy API server, the next decision waits twice as long before it is
    given up, up to BACKOFF_LIMIT times; the bound pod forgets its backoff."""
    state = SchedulerState(assume_ttl=60.0)
    state.apply_state([pod_record(observed=100.0)], now=100.0)

    def decide(now: float) -> list[Any]:
        return state.decisions(
            SessionResult(binds={"ns/p": "n1"}), epoch=1, cycle=1, now=now, producer="t"
        )

    assert len(decide(100.0)) == 1
    state.expire(161.0)
    assert state.assumed == {} and state.assume_backoff == {"ns/p": 120.0}
    assert len(decide(161.0)) == 1
    state.expire(261.0)  # 100 s: within the doubled time to live
    assert "ns/p" in state.assumed
    state.expire(282.0)
    assert state.assume_backoff == {"ns/p": 240.0}
    for _ in range(10):  # held at BACKOFF_LIMIT x 60 s
        decide(0.0)
        state.expire(1e6)
    assert state.assume_backoff == {"ns/p": 60.0 * BACKOFF_LIMIT}
    state.apply_state([pod_record(node="n1", observed=300.0)], now=300.0)
    assert state.assume_backoff == {}
