"""kubernetes ``pkg/controller/job/job_controller_test.go``, ported: the finalizer-tracking and
pod-claiming tables, ``TestTrackJobStatusAndRemoveFinalizers``, ``TestGetPodsForJob`` and
``TestFinalizerCleanup`` (kept apart from ``test_k8s_job_controller.py`` for its size).

``TestTrackJobStatusAndRemoveFinalizers`` calls ``trackJobStatusAndRemoveFinalizers`` with a
hand-built sync context, as upstream does: the Job, its pods (``buildPod()``: no owner), the
finished condition and the pods whose finalizer removal is in flight (claimed without the
finalizer, as ``claim_pods`` does for ``Observed.finalizers_removing``). Upstream records each
status write; Shoal's track returns the status written before the finalizer patches
(``interim_status``) and the status after them, so the writes are those two, a repeated one
written once, and a first one equal to the cached status skipped unless the row sets
``needsFlush`` (the caller changed the status). Shoal runs as Kubernetes with the Job gates on;
a row that turns them off is ported with the gate-on expectation and says so in ``adapted``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from services.jobcontroller.batchjob import keys, spec, tracking, verdict
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.claiming import claim_pods
from services.jobcontroller.batchjob.context import SyncContext
from services.jobcontroller.batchjob.orphans import needs_release
from services.jobcontroller.batchjob.status import StatusDraft
from services.jobcontroller.core import Actions, Observed
from shared.models import Condition, Job, Pod, convert
from shared.models.batch import JobStatus
from tests.unit.jobcontroller.conformance.k8s_job_cases import (
    INDEX,
    JOB_UID,
    NOW,
    TRACKING,
    new_job,
)

Json = dict[str, Any]
GATE_OFF_DELAYED = (
    "gates JobPodReplacementPolicy and JobManagedBy off upstream: the terminal condition at "
    "once; gate on (as the two rows before): delayed while a pod terminates"
)


def pod(uid: str, phase: str, *, finalizer: bool = True, deleting: bool = False,
        index: str | None = None, failure_count: str | None = None) -> Json:  # fmt: skip
    """``buildPod().uid(u).phase(p)[.trackingFinalizer()][.deletionTimestamp()][.index(i)]
    [.indexFailureCount(c)]``: no owner, no labels."""
    meta: Json = {"name": f"pod-{uid}", "namespace": "default", "uid": uid, "annotations": {}}
    if finalizer:
        meta["finalizers"] = [TRACKING]
    if deleting:
        meta["deletionTimestamp"] = "2023-11-14T22:13:20Z"
    if index is not None:
        meta["annotations"][INDEX] = index
    if failure_count is not None:
        meta["annotations"][keys.INDEX_FAILURE_COUNT_ANNOTATION] = failure_count
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": []},
            "status": {"phase": phase}}  # fmt: skip


def cond(kind: str) -> Json:
    """``newCondition(kind, True, "", "")``."""
    return {"type": kind, "status": "True"}


FAILED, COMPLETE = cond(keys.FAILED), cond(keys.COMPLETE)
CRITERIA_MET, FAILURE_TARGET = cond(keys.SUCCESS_CRITERIA_MET), cond(keys.FAILURE_TARGET)


def st(active: int = 0, succeeded: int = 0, failed: int = 0, *, uncounted_s: tuple[str, ...] = (),
       uncounted_f: tuple[str, ...] = (), completed: str = "", failed_indexes: str | None = None,
       conditions: tuple[Json, ...] = (), completion_time: bool = False) -> Json:  # fmt: skip
    """A ``batch.JobStatus`` of the table, as compared (times ignored)."""
    return {
        "active": active,
        "succeeded": succeeded,
        "failed": failed,
        "uncounted": (list(uncounted_s), list(uncounted_f)),
        "completedIndexes": completed,
        "failedIndexes": failed_indexes,
        "conditions": [c["type"] for c in conditions],
        "completionTime": completion_time,
    }


@dataclass
class TrackCase:
    pods: list[Json] = field(default_factory=list)
    status: Json = field(default_factory=dict)  # the Job's status, in the API schema
    job_spec: Json = field(default_factory=dict)
    deleting: bool = False
    finished: Json | None = None
    expected_rm_finalizers: frozenset[str] = frozenset()
    needs_flush: bool = False
    want_rm_finalizers: int = 0
    want_status_updates: list[Json] = field(default_factory=list)
    adapted: str = ""


INDEXED_6 = {"completionMode": "Indexed", "completions": 6}
PER_INDEX_6 = {**INDEXED_6, "backoffLimitPerIndex": 1}
ONE = {"completions": 1, "parallelism": 1}


def _uncounted(s: tuple[str, ...] = (), f: tuple[str, ...] = ()) -> Json:
    return {"uncountedTerminatedPods": {"succeeded": list(s), "failed": list(f)}}


def _many(n: int, **kw: Any) -> list[Json]:
    return [pod(str(i), "Succeeded", **({"index": str(i)} | kw)) for i in range(n)]


TRACK: dict[str, TrackCase] = {
    "no updates": TrackCase(),
    "new active": TrackCase(
        status={"active": 1}, needs_flush=True, want_status_updates=[st(1)],
    ),
    "track finished pods": TrackCase(
        [pod("a", "Succeeded"), pod("b", "Failed"), pod("c", "Succeeded", deleting=True),
         pod("d", "Failed", deleting=True), pod("e", "Pending", deleting=True),
         pod("", "Pending"), pod("", "Running")],
        want_rm_finalizers=5,
        want_status_updates=[st(uncounted_s=("a", "c"), uncounted_f=("b", "d", "e")),
                             st(0, 2, 3)],
    ),
    "past and new finished pods": TrackCase(
        [pod("e", "Succeeded", finalizer=False), pod("", "Failed", finalizer=False),
         pod("", "Pending", finalizer=False), pod("a", "Succeeded"), pod("b", "Failed"),
         pod("c", "Succeeded"), pod("d", "Failed")],
        status={"active": 1, "succeeded": 2, "failed": 3, **_uncounted(("a", "e"), ("b", "f"))},
        want_rm_finalizers=4,
        want_status_updates=[st(1, 3, 4, uncounted_s=("a", "c"), uncounted_f=("b", "d")),
                             st(1, 5, 6)],
    ),
    "expecting removed finalizers": TrackCase(
        [pod(u, "Succeeded" if u in "aceg" else "Failed") for u in "abcdefgh"],
        status={"succeeded": 2, "failed": 3, **_uncounted(("a", "g"), ("b", "h"))},
        expected_rm_finalizers=frozenset("cdgh"),
        want_rm_finalizers=4,
        want_status_updates=[st(0, 3, 4, uncounted_s=("a", "e"), uncounted_f=("b", "f")),
                             st(0, 5, 6)],
    ),
    "succeeding job by JobSuccessPolicy": TrackCase(
        [pod("a", "Succeeded"), pod("b", "Failed"), pod("c", "Pending")],
        finished=CRITERIA_MET, want_rm_finalizers=3,
        want_status_updates=[
            st(uncounted_s=("a",), uncounted_f=("b",), conditions=(CRITERIA_MET,)),
            st(0, 1, 1, conditions=(CRITERIA_MET, COMPLETE), completion_time=True)],
    ),
    "completing job": TrackCase(
        [pod("a", "Succeeded"), pod("b", "Failed")],
        finished=COMPLETE, want_rm_finalizers=2,
        want_status_updates=[st(uncounted_s=("a",), uncounted_f=("b",)),
                             st(0, 1, 1, conditions=(COMPLETE,), completion_time=True)],
    ),
    "failing job": TrackCase(
        [pod("a", "Succeeded"), pod("b", "Failed"), pod("c", "Running")],
        finished=FAILED, want_rm_finalizers=3,
        want_status_updates=[st(uncounted_s=("a",), uncounted_f=("b", "c")),
                             st(0, 1, 2, conditions=(FAILED,))],
    ),
    "deleted job": TrackCase(
        [pod("a", "Succeeded"), pod("b", "Failed"), pod("", "Running")],
        status={"active": 1}, deleting=True, want_rm_finalizers=3,
        want_status_updates=[st(1, uncounted_s=("a",), uncounted_f=("b",)), st(1, 1, 1)],
    ),
    "indexed job new successful pods": TrackCase(
        [pod("", "Succeeded", index="1"), pod("", "Succeeded", index="3"),
         pod("", "Succeeded", index="3"), pod("", "Running", index="5"),
         pod("", "Succeeded")],
        status={"active": 1}, job_spec=INDEXED_6, want_rm_finalizers=4,
        want_status_updates=[st(1, 2, completed="1,3")],
    ),
    (
        "indexed job prev successful pods outside current completions index range with no "
        "new succeeded pods"
    ): TrackCase(
        [pod("", "Running", index="0"), pod("", "Running", index="1")],
        status={"active": 2, "succeeded": 1, "completedIndexes": "3"},
        job_spec={"completionMode": "Indexed", "completions": 2, "parallelism": 2},
        want_status_updates=[st(2)],
    ),
    (
        "indexed job prev successful pods outside current completions index range with new "
        "succeeded pods in range"
    ): TrackCase(
        [pod("", "Running", index="0"), pod("", "Succeeded", index="1")],
        status={"active": 2, "succeeded": 1, "completedIndexes": "3"},
        job_spec={"completionMode": "Indexed", "completions": 2, "parallelism": 2},
        want_rm_finalizers=1, want_status_updates=[st(2, 1, completed="1")],
    ),
    "indexed job new failed pods": TrackCase(
        [pod("a", "Failed", index="1"), pod("b", "Failed", index="3"),
         pod("c", "Failed", index="3"), pod("d", "Running", index="5"), pod("", "Failed")],
        status={"active": 1}, job_spec=INDEXED_6, want_rm_finalizers=4,
        want_status_updates=[st(1, uncounted_f=("a", "b", "c")), st(1, 0, 3)],
    ),
    "indexed job past and new pods": TrackCase(
        [pod("", "Succeeded", index="0", finalizer=False),
         pod("", "Failed", index="1", finalizer=False), pod("", "Succeeded", index="1"),
         pod("", "Succeeded", index="3"), pod("a", "Failed", index="2"),
         pod("b", "Failed", index="5")],
        status={"failed": 2, "succeeded": 5, "completedIndexes": "0-2,4,6,7"},
        job_spec={"completionMode": "Indexed", "completions": 7}, want_rm_finalizers=4,
        want_status_updates=[st(0, 6, 2, completed="0-4,6", uncounted_f=("a", "b")),
                             st(0, 6, 4, completed="0-4,6")],
    ),
    "too many finished": TrackCase(
        [pod(str(i), "Succeeded") for i in range(500)] + [pod("b", "Failed")],
        status=_uncounted((), ("a", "b")), want_rm_finalizers=499,
        want_status_updates=[
            st(0, 0, 1, uncounted_s=tuple(str(i) for i in range(499)), uncounted_f=("b",)),
            st(0, 499, 1, uncounted_f=("b",))],
    ),
    "too many indexed finished": TrackCase(
        _many(501), job_spec={"completionMode": "Indexed", "completions": 501},
        want_rm_finalizers=500, want_status_updates=[st(0, 500, completed="0-499")],
    ),
    "pod flips from failed to succeeded": TrackCase(
        [pod("a", "Failed"), pod("b", "Succeeded")],
        status=_uncounted((), ("a", "b")), job_spec={"completions": 2, "parallelism": 2},
        finished=FAILED, want_rm_finalizers=2,
        want_status_updates=[st(0, 0, 2, conditions=(FAILED,))],
    ),
    "pod is terminal; JobFailed condition is set": TrackCase(
        [pod("a", "Failed")], status=_uncounted((), ("a",)), job_spec=ONE,
        finished=FAILED, want_rm_finalizers=1,
        want_status_updates=[st(0, 0, 1, conditions=(FAILED,))],
    ),
    (
        "pod is terminating; counted as failed, but the JobFailed condition is delayed; "
        "JobPodReplacementPolicy enabled"
    ): TrackCase(
        [pod("a", "Running", deleting=True, finalizer=False)],
        status={**_uncounted((), ("a",)), "conditions": [FAILURE_TARGET]}, job_spec=ONE,
        finished=FAILED, want_status_updates=[st(0, 0, 1, conditions=(FAILURE_TARGET,))],
    ),
    (
        "pod is terminating; counted as failed, but the JobFailed condition is delayed; "
        "JobManagedBy enabled"
    ): TrackCase(
        [pod("a", "Running", deleting=True, finalizer=False)],
        status={**_uncounted((), ("a",)), "conditions": [FAILURE_TARGET]}, job_spec=ONE,
        finished=FAILED, want_status_updates=[st(0, 0, 1, conditions=(FAILURE_TARGET,))],
    ),
    (
        "pod is terminating; counted as failed, JobFailed condition is not delayed; "
        "JobPodReplacementPolicy and JobManagedBy disabled"
    ): TrackCase(
        [pod("a", "Running", deleting=True, finalizer=False)],
        status={**_uncounted((), ("a",)), "conditions": [FAILURE_TARGET]}, job_spec=ONE,
        finished=FAILED, want_status_updates=[st(0, 0, 1, conditions=(FAILURE_TARGET,))],
        adapted=GATE_OFF_DELAYED,
    ),
    (
        "pod is terminating; JobSuccessCriteriaMet, but JobComplete condition is delayed; "
        "JobPodReplacementPolicy enabled"
    ): TrackCase(
        [pod("a", "Running", deleting=True, finalizer=False)],
        status={**_uncounted(("b",), ("a",)), "conditions": [CRITERIA_MET]}, job_spec=ONE,
        finished=COMPLETE, want_status_updates=[st(0, 1, 1, conditions=(CRITERIA_MET,))],
    ),
    (
        "pod is terminating; JobSuccessCriteriaMet, but JobComplete condition is delayed; "
        "JobManagedBy enabled"
    ): TrackCase(
        [pod("a", "Running", deleting=True, finalizer=False)],
        status={**_uncounted(("b",), ("a",)), "conditions": [CRITERIA_MET]}, job_spec=ONE,
        finished=COMPLETE, want_status_updates=[st(0, 1, 1, conditions=(CRITERIA_MET,))],
    ),
    (
        "pod is terminating; JobSuccessCriteriaMet, JobComplete condition is not delayed; "
        "JobPodReplacementPolicy and JobManagedBy disabled"
    ): TrackCase(
        [pod("a", "Running", deleting=True, finalizer=False)],
        status={**_uncounted(("b",), ("a",)), "conditions": [CRITERIA_MET]}, job_spec=ONE,
        finished=COMPLETE, want_status_updates=[st(0, 1, 1, conditions=(CRITERIA_MET,))],
        adapted=GATE_OFF_DELAYED,
    ),
    "indexed job with a failed pod with delayed finalizer removal; the pod is not counted": (
        TrackCase(
            [pod("a", "Failed", failure_count="0", index="1")], job_spec=PER_INDEX_6,
            want_status_updates=[st(failed_indexes="")],
        )
    ),
    "indexed job with a failed pod which is recreated by a running pod; the pod is counted": (
        TrackCase(
            [pod("a1", "Failed", failure_count="0", index="1"),
             pod("a2", "Running", failure_count="1", index="1")],
            status={"active": 1}, job_spec=PER_INDEX_6, want_rm_finalizers=1,
            want_status_updates=[st(1, uncounted_f=("a1",), failed_indexes=""),
                                 st(1, 0, 1, failed_indexes="")],
        )
    ),
    "indexed job with a failed pod for a failed index; the pod is counted": TrackCase(
        [pod("a", "Failed", failure_count="1", index="1")], job_spec=PER_INDEX_6,
        want_rm_finalizers=1,
        want_status_updates=[st(uncounted_f=("a",), failed_indexes="1"),
                             st(0, 0, 1, failed_indexes="1")],
    ),
}  # fmt: skip


def _without_finalizer(raw: Json) -> Json:
    meta = {**raw["metadata"], "finalizers": []}
    return {**raw, "metadata": meta}


def _compared(status: JobStatus) -> Json:
    uncounted = status.uncountedTerminatedPods
    return {
        "active": status.active or 0,
        "succeeded": status.succeeded or 0,
        "failed": status.failed or 0,
        "uncounted": (
            list(uncounted.succeeded) if uncounted else [],
            list(uncounted.failed) if uncounted else [],
        ),
        "completedIndexes": status.completedIndexes or "",
        "failedIndexes": status.failedIndexes,
        "conditions": [c.type for c in status.conditions],
        "completionTime": status.completionTime is not None,
    }


def _track(case: TrackCase) -> tuple[Actions, list[Json]]:
    job_json = new_job(-1, -1, 6)
    job_json["spec"].update(case.job_spec)
    job_json["status"] = {
        **case.status,
        "conditions": [{**c, "lastTransitionTime": "2023-11-14T22:12:20Z"}
                       for c in case.status.get("conditions", [])],
    }  # fmt: skip
    if case.deleting:
        job_json["metadata"]["deletionTimestamp"] = "2023-11-14T22:13:20Z"
    job = convert(job_json, Job)
    view = spec.view(job)
    # A pod whose finalizer removal is in flight is seen without it, as ``claim_pods`` sees
    # the pods of ``Observed.finalizers_removing``.
    pods = [convert(_without_finalizer(p) if p["metadata"]["uid"] in case.expected_rm_finalizers
                    else p, Pod) for p in case.pods]  # fmt: skip
    status = StatusDraft.of(job.status)
    actions = Actions()
    ctx = SyncContext(
        job=view, now=NOW, pods=pods, status=status, actions=actions,
        expectations_satisfied=True, active=[p for p in pods if podutil.is_active(p)],
        uncounted_succeeded=set(status.uncounted_succeeded),
        uncounted_failed=set(status.uncounted_failed),
        terminating=sum(1 for p in pods if podutil.is_terminating(p)),
    )  # fmt: skip
    verdict.decide(ctx)  # the indexes upstream's harness computes; the verdict is the row's
    ctx.finished = None if case.finished is None else convert(case.finished, Condition)
    # Upstream's harness parses the succeeded indexes from the status alone (syncJob adds
    # the tracked pods' too).
    ctx.succeeded_indexes = ctx.prev_succeeded_indexes
    tracking.track(ctx)
    writes = [s for s in (actions.interim_status, status.to_status()) if s is not None]
    updates: list[Json] = []
    for write in writes:
        assert isinstance(write, JobStatus)
        compared = _compared(write)
        if compared not in updates[-1:]:
            updates.append(compared)
    if updates and updates[0] == _compared(job.status) and not case.needs_flush:
        updates.pop(0)
    return actions, updates


@pytest.mark.parametrize("case", list(TRACK.values()), ids=list(TRACK))
def test_track_job_status_and_remove_finalizers(case: TrackCase) -> None:
    actions, updates = _track(case)
    assert updates == case.want_status_updates
    removed = [p for p in actions.patch if p.releases or p.patch.get("metadata", {}).get(
        "$deleteFromPrimitiveList/finalizers")]  # fmt: skip
    assert len(removed) == case.want_rm_finalizers


OTHER_UID = "other-job-uid"


def claimable(name: str, *, owner: str | None = JOB_UID, labels: bool = True,
              finalizer: bool = False) -> Json:  # fmt: skip
    """``buildPod().name(n).job(job)`` (labels of the Job's selector, controlled by it),
    ``.job(otherJob)`` (owner ``OTHER_UID``), ``.clearOwner()`` (owner None),
    ``.clearLabels()``, ``.trackingFinalizer()``."""
    raw = pod(name, "Pending", finalizer=finalizer)
    raw["metadata"]["name"] = name
    if labels:
        raw["metadata"]["labels"] = {"foo": "bar"}
    if owner is not None:
        raw["metadata"]["ownerReferences"] = [{
            "apiVersion": "batch/v1", "kind": "Job", "uid": owner, "controller": True,
            "name": "test_job" if owner == JOB_UID else "other_job"}]  # fmt: skip
    return raw


@dataclass
class GetPodsCase:
    pods: list[Json]
    want_pods: list[str]
    want_pods_finalizer: list[str] = field(default_factory=list)
    job_deleted: bool = False


GET_PODS: dict[str, GetPodsCase] = {
    "only matching": GetPodsCase(
        [claimable("pod1", finalizer=True), claimable("pod2", owner=OTHER_UID),
         claimable("pod3", owner=None, labels=False), claimable("pod4")],
        ["pod1", "pod4"], ["pod1"],
    ),
    "adopt": GetPodsCase(
        [claimable("pod1"), claimable("pod2", owner=None), claimable("pod3", owner=OTHER_UID)],
        ["pod1", "pod2"], ["pod2"],
    ),
    "no adopt when deleting": GetPodsCase(
        [claimable("pod1"), claimable("pod2", owner=None)], ["pod1"], job_deleted=True,
    ),
    # Upstream's Job is deleted in the API but not yet in its informer cache; the claim reads
    # the deletion from the Job it is given. Shoal has one Job object, the cached one.
    "no adopt when deleting race": GetPodsCase(
        [claimable("pod1"), claimable("pod2", owner=None)], ["pod1"], job_deleted=True,
    ),
    "release": GetPodsCase([claimable("pod1"), claimable("pod2", labels=False)], ["pod1"]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(GET_PODS.values()), ids=list(GET_PODS))
def test_get_pods_for_job(case: GetPodsCase) -> None:
    job_json = new_job(1, 1, 6)
    job_json["metadata"]["name"] = "test_job"
    if case.job_deleted:
        job_json["metadata"]["deletionTimestamp"] = "2023-11-14T22:13:20Z"
    pods = [convert(p, Pod) for p in case.pods]
    observed = Observed(
        pods=[p for p in pods if p.metadata.controller_ref() is not None],
        orphans=[p for p in pods if p.metadata.controller_ref() is None],
    )
    claimed = claim_pods(spec.view(convert(job_json, Job)), observed, Actions())
    assert sorted(p.metadata.name for p in claimed) == case.want_pods
    with_finalizer = sorted(p.metadata.name for p in claimed if podutil.has_finalizer(p))
    assert with_finalizer == case.want_pods_finalizer


def test_finalizer_cleanup() -> None:
    """``TestFinalizerCleanup``: a pod with the tracking finalizer whose Job is Complete loses
    the finalizer (``syncOrphanPod``); while the Job runs it keeps it."""
    job_json = new_job(1, 1, 6)
    raw = claimable("pod", finalizer=True)
    raw["metadata"]["ownerReferences"][0]["name"] = "foobar"
    owned = convert(raw, Pod)
    assert not needs_release(owned, convert(job_json, Job))
    job_json["status"] = {
        "conditions": [{**COMPLETE, "lastTransitionTime": "2023-11-14T22:13:20Z"}]
    }
    assert needs_release(owned, convert(job_json, Job))
