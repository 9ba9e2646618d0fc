"""Kueue admission in the running scheduler: the cache in, Workload/queue statuses out."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.admission import AdmissionState
from services.scheduler.kueue.status import StatusUpdate
from shared.cache import ObjectCache
from shared.events import ObjectAdded, ObjectModified
from tests.unit.scheduler.kueue_builders import (
    NOW,
    cluster_queue,
    flavor,
    local_queue,
    quota,
    workload,
)

Json = dict[str, Any]
T0 = NOW.timestamp()


def _cache(*objects: Json) -> ObjectCache:
    cache = ObjectCache()
    for rv, obj in enumerate(objects, start=1):
        obj = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(rv), "uid": f"u{rv}"}}
        obj["metadata"].setdefault("creationTimestamp", "2024-05-01T11:00:00Z")
        cache.apply(
            ObjectAdded(
                key="k",
                kind=obj["kind"],
                resourceVersion=str(rv),
                object=msgspec.Raw(msgspec.json.encode(obj)),
            )
        )
    return cache


def _by_key(updates: list[StatusUpdate], kind: str = "Workload") -> dict[str, Json]:
    return {u.key: u.status for u in updates if u.kind == kind}


def _condition(status: Json, kind: str) -> Json:
    return next(c for c in status["conditions"] if c["type"] == kind)


def _setup(*workloads: Json) -> ObjectCache:
    return _cache(
        flavor("default"),
        cluster_queue("cq", {"default": quota("2")}, within="LowerPriority"),
        local_queue("lq", "cq"),
        *workloads,
    )


def test_admits_within_quota_and_explains_the_rest() -> None:
    cache = _setup(
        workload("a", "1", minute=1), workload("b", "1", minute=2), workload("c", "1", minute=3)
    )
    result, updates = AdmissionState().decide(cache, T0)
    statuses = _by_key(updates)
    assert sorted(result.admitted) == ["default/a", "default/b"]
    admitted = statuses["default/a"]
    assert admitted["admission"] == {
        "clusterQueue": "cq",
        "podSetAssignments": [{"name": "main", "flavors": {"cpu": "default"}, "count": 1}],
    }
    assert _condition(admitted, "QuotaReserved")["message"] == "Quota reserved in ClusterQueue cq"
    assert _condition(admitted, "Admitted")["reason"] == "Admitted"
    waiting = _condition(statuses["default/c"], "QuotaReserved")
    assert (waiting["status"], waiting["reason"]) == ("False", "WaitingForQuota")
    queue = _by_key(updates, "ClusterQueue")["cq"]
    assert (queue["pendingWorkloads"], queue["admittedWorkloads"]) == (1, 2)
    assert _condition(queue, "Active")["message"] == "Can admit new workloads"
    assert _by_key(updates, "LocalQueue")["default/lq"]["reservingWorkloads"] == 2


def test_a_decided_admission_holds_quota_until_the_cache_shows_it() -> None:
    cache = _setup(workload("a", "2", minute=1), workload("b", "2", minute=2))
    state = AdmissionState()
    _, updates = state.decide(cache, T0)
    state.envelopes(updates, epoch=1, cycle=1, now=T0, producer="test")
    result, again = state.decide(cache, T0 + 1)
    assert result.admitted == {}, "a is assumed admitted: b must not take its quota"
    assert "admission" not in _by_key(again).get("default/a", {})


def test_an_assumption_that_is_never_confirmed_expires() -> None:
    cache = _setup(workload("a", "2", minute=1))
    state = AdmissionState(assume_ttl=5)
    _, updates = state.decide(cache, T0)
    state.envelopes(updates, epoch=1, cycle=1, now=T0, producer="test")
    result, _ = state.decide(cache, T0 + 10)
    assert list(result.admitted) == ["default/a"]


def test_higher_priority_workload_evicts_a_lower_one() -> None:
    low = workload("low", "2", minute=1, priority=1, admitted=("cq", "default"))
    cache = _setup(low, workload("high", "2", minute=2, priority=100))
    _, updates = AdmissionState().decide(cache, T0)
    statuses = _by_key(updates)
    evicted = _condition(statuses["default/low"], "Evicted")
    assert (evicted["status"], evicted["reason"]) == ("True", "Preempted")
    preempted = _condition(statuses["default/low"], "Preempted")
    assert preempted["reason"] == "InClusterQueue"
    assert "due to prioritization in the ClusterQueue" in preempted["message"]
    waiting = _condition(statuses["default/high"], "QuotaReserved")
    assert waiting["reason"] == "WaitingForPreemptedWorkloads"


@pytest.mark.parametrize(
    ("bad", "left_out"),
    [
        ({"spec": {"podSets": []}}, "Workload default/bad"),
        ({"metadata": {"creationTimestamp": "yesterday"}}, "Workload default/bad"),
    ],
    ids=["no-podsets", "bad-timestamp"],
)
def test_one_unreadable_workload_does_not_stop_admission(bad: Json, left_out: str) -> None:
    broken = workload("bad", "1")
    for part, fields in bad.items():
        broken[part] = {**broken[part], **fields}
    cache = _setup(broken, workload("good", "1", minute=5))
    state = AdmissionState()
    result, _ = state.decide(cache, T0)
    assert list(result.admitted) == ["default/good"]
    assert left_out in state.excluded
    fixed = {**workload("bad", "1"), "metadata": {"name": "bad", "namespace": "default"}}
    fixed["metadata"].update(
        resourceVersion="99", uid="u9", creationTimestamp="2024-05-01T11:00:00Z"
    )
    cache.apply(
        ObjectModified(
            key="k",
            kind="Workload",
            resourceVersion="99",
            object=msgspec.Raw(msgspec.json.encode(fixed)),
        )
    )
    result, _ = state.decide(cache, T0 + 1)
    assert "default/bad" in result.admitted, "a fixed object is tried again"


@pytest.mark.parametrize(
    ("wl", "reason"),
    [
        (workload("big", "3"), "ExceedsMaxQuota"),
        (workload("elsewhere", "1", node_selector={"zone": "b"}), "NoMatchingFlavor"),
    ],
    ids=["exceeds-max-quota", "no-matching-flavor"],
)
def test_a_workload_no_flavor_fits_waits_with_kueues_no_fit_reason(wl: Json, reason: str) -> None:
    cache = _cache(
        flavor("default", labels={"zone": "a"}),
        cluster_queue("cq", {"default": quota("2")}),
        local_queue("lq", "cq"),
        wl,
    )
    _, updates = AdmissionState().decide(cache, T0)
    key = f"default/{wl['metadata']['name']}"
    waiting = _condition(_by_key(updates)[key], "QuotaReserved")
    assert (waiting["status"], waiting["reason"]) == ("False", reason)
    assert waiting["message"].startswith("couldn't assign flavors to pod set main: ")


def test_partial_admission_writes_the_reduced_count_into_the_admission() -> None:
    wl = workload("partial", "1", count=6)
    wl["spec"]["podSets"][0]["minCount"] = 2
    result, updates = AdmissionState().decide(_setup(wl), T0)
    assert result.admitted["default/partial"].podsets["main"].count == 2
    assignment = _by_key(updates)["default/partial"]["admission"]["podSetAssignments"][0]
    assert assignment["count"] == 2


def test_a_cohort_objects_quota_is_shared_by_its_queues() -> None:
    """Kueue's Cohort object: quota of its own that its ClusterQueues borrow."""
    cohort = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "root"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "4"}]}
                    ],
                }
            ]
        },
    }
    cache = _cache(
        flavor("default"),
        cohort,
        cluster_queue("cq", {"default": quota("0")}, cohort="root"),
        local_queue("lq", "cq"),
        workload("borrower", "3", minute=1),
    )
    result, _ = AdmissionState().decide(cache, T0)
    assert list(result.admitted) == ["default/borrower"]


def test_a_run_that_admits_from_a_cut_queue_asks_for_another() -> None:
    """With a window, a run sees the first equivalent workloads of a queue; one that admits
    from a queue it saw only part of says so (the scheduler then runs again at once), and
    the next run, the admissions assumed, admits those behind."""
    cache = _setup(*[workload(f"w-{i}", "1", minute=i) for i in range(3)])
    state = AdmissionState(window=1)
    result, updates = state.decide(cache, T0)
    assert list(result.admitted) == ["default/w-0"] and state.more
    assert "default/w-2" not in _by_key(updates), "unseen: its explanation is left alone"
    state.envelopes(updates, epoch=1, cycle=1, now=T0, producer="test")
    result, updates = state.decide(cache, T0 + 0.1)
    assert list(result.admitted) == ["default/w-1"] and state.more
    state.envelopes(updates, epoch=1, cycle=2, now=T0, producer="test")
    result, _ = state.decide(cache, T0 + 0.2)
    assert result.admitted == {} and not state.more  # quota full: w-2 waits, seen now
    assert "default/w-2" in result.pending


def _apply(cache: ObjectCache, obj: Json, rv: int) -> None:
    obj = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(rv), "uid": f"u-{rv}"}}
    obj["metadata"].setdefault("creationTimestamp", "2024-05-01T11:00:00Z")
    raw = msgspec.Raw(msgspec.json.encode(obj))
    cache.apply(ObjectModified(key="k", kind=obj["kind"], resourceVersion=str(rv), object=raw))


def test_runs_kept_from_the_journal_decide_as_a_first_run() -> None:
    """The scheduler's state keeps the unfinished Workloads between runs from the cache's
    journal and tells the queue manager only what changed; after adds, finishes and
    deletes it decides what a state meeting the cache for the first time decides."""
    cache = _setup(*[workload(f"w-{i}", "1", minute=i) for i in range(6)])
    state = AdmissionState(window=8)
    state.decide(cache, T0)
    finished = workload("w-0", "1", minute=0, admitted=("cq", "default"))
    finished["status"]["conditions"].append(
        {"type": "Finished", "status": "True", "reason": "Succeeded", "message": "done"}
    )
    _apply(cache, finished, 100)
    _apply(cache, workload("w-9", "1", minute=0, priority=3), 101)
    _apply(cache, workload("w-1", "1", minute=1, admitted=("cq", "default")), 102)
    kept, kept_updates = state.decide(cache, T0 + 1)
    assert state.changes is not None  # w-9 and the new w-1 came; w-0 (finished) and w-1 went
    assert (len(state.changes.came), len(state.changes.went)) == (2, 2)
    fresh, fresh_updates = AdmissionState(window=8).decide(cache, T0 + 1)
    assert kept.decisions() == fresh.decisions()
    assert {k: (s.reason, s.message) for k, s in kept.pending.items()} == {
        k: (s.reason, s.message) for k, s in fresh.pending.items()
    }
    assert kept_updates == fresh_updates
