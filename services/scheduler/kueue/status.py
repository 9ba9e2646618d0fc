"""The Kueue status an admission run implies: Workloads, ClusterQueues and LocalQueues.

Kueue's scheduler writes a Workload's admission and conditions (``SetQuotaReservation``,
``SyncAdmittedCondition``, the preemptor's ``SetEvictedCondition``/``SetPreemptedCondition``,
``QuotaReserved=False`` with the reason a workload waits), and its queue reconcilers write the
ClusterQueue and LocalQueue counters. Here each is a pure function of the objects and one
``AdmissionResult``: the desired ``status`` of every object whose status should change, with
condition semantics as ``apimeta.SetStatusCondition`` (the transition time moves only when the
status does). Reasons and messages are Kueue's (``apis/kueue/v1beta2``, ``pkg/workload``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import msgspec

from services.scheduler.api.status import Status
from services.scheduler.kueue.result import AdmissionResult, Admitted
from services.scheduler.kueue.workloads import condition, holds_quota, is_finished
from shared.kube.conditions import MAX_MESSAGE, same_ignoring_time, set_condition
from shared.models import (
    ClusterQueue,
    Cohort,
    Condition,
    Json,
    LocalQueue,
    ResourceFlavor,
    Workload,
    object_key,
)

QUOTA_RESERVED, ADMITTED, EVICTED, PREEMPTED = "QuotaReserved", "Admitted", "Evicted", "Preempted"
FINISHED, REQUEUED = "Finished", "Requeued"
IN_CLUSTER_QUEUE, IN_COHORT_RECLAMATION = "InClusterQueue", "InCohortReclamation"
_HUMAN = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
}
# What the admission core's verdicts are, in Kueue's QuotaReserved=False reasons
# (``UnadmittedWorkloadsObservability``, on by default since Kueue 0.19).
_PENDING_REASONS = {
    "NamespaceMismatch": "Misconfigured",
    "ClusterQueueInactive": "Misconfigured",
    "NoQueueName": "Misconfigured",
    "LocalQueueNotFound": "Misconfigured",
    "ClusterQueueNotFound": "Misconfigured",
    "PendingPreemption": "WaitingForPreemptedWorkloads",
}
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"


@dataclass(frozen=True)
class StatusUpdate:
    """The whole new ``status`` of one object, and the resourceVersion it was computed from."""

    kind: str
    key: str
    uid: str
    resource_version: str
    status: Json


def _reset(conditions: list[Json], kind: str, reason: str, now: str) -> None:
    """``resetActiveCondition``: a true condition turns false, "Previously: <message>"."""
    for old in conditions:
        if old.get("type") == kind and old.get("status") == "True":
            message = "Previously: " + str(old.get("message") or "")
            set_condition(conditions, kind, "False", reason, message, now)
            return


def admission(admitted: Admitted) -> Json:
    """``status.admission`` for an admitted workload (flavors and counts per pod set)."""
    return {
        "clusterQueue": admitted.cluster_queue,
        "podSetAssignments": [
            {
                "name": name,
                "flavors": dict(sorted(podset.flavors.items())),
                "count": podset.count,
            }
            for name, podset in sorted(admitted.podsets.items())
        ],
    }


def preemption_message(preemptor: Workload | None, reason: str) -> str:
    """Kueue's ``preemptionMessage`` (the cohort paths are not tracked: UNKNOWN, as upstream
    writes when it has none)."""
    uid = (preemptor.metadata.uid if preemptor else "") or "UNKNOWN"
    job_uid = (preemptor.metadata.labels.get(JOB_UID_LABEL) if preemptor else None) or "UNKNOWN"
    return (
        f"Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
        f"{_HUMAN.get(reason, 'UNKNOWN')}; preemptor path: UNKNOWN; preemptee path: UNKNOWN"
    )


@dataclass
class KueueObjects:
    """The Kueue objects one admission run looked at."""

    workloads: list[Workload] = field(default_factory=list)
    cluster_queues: list[ClusterQueue] = field(default_factory=list)
    local_queues: list[LocalQueue] = field(default_factory=list)
    flavors: list[ResourceFlavor] = field(default_factory=list)
    cohorts: list[Cohort] = field(default_factory=list)

    def cluster_queue_of(self, wl: Workload) -> str:
        """The ClusterQueue a workload is admitted to, else the one its LocalQueue points to."""
        if wl.status.admission is not None:
            return wl.status.admission.clusterQueue
        for lq in self.local_queues:
            if lq.metadata.name == wl.spec.queueName and (lq.metadata.namespace or "default") == (
                wl.metadata.namespace or "default"
            ):
                return lq.spec.clusterQueue
        return ""


def statuses(objects: KueueObjects, result: AdmissionResult, now: str) -> list[StatusUpdate]:
    """Every Workload, ClusterQueue and LocalQueue status this run changes."""
    tally = _tally(objects, result)
    return [
        *workload_statuses(objects, result, now),
        *cluster_queue_statuses(objects, result, now, tally=tally),
        *local_queue_statuses(objects, result, now, tally=tally),
    ]


_Tally = list[tuple[Workload, bool]]
"""The workloads not finished, each with whether it holds quota after the run."""


def _tally(objects: KueueObjects, result: AdmissionResult) -> _Tally:
    return [
        (wl, holds_quota(wl) or object_key(wl.metadata) in result.admitted)
        for wl in objects.workloads
        if not is_finished(wl)
    ]


def workload_statuses(
    objects: KueueObjects, result: AdmissionResult, now: str
) -> list[StatusUpdate]:
    by_key = {object_key(wl.metadata): wl for wl in objects.workloads}
    updates: list[StatusUpdate] = []
    for key, wl in sorted(by_key.items()):
        if is_finished(wl):
            continue
        status = _workload_status(wl, key, result, objects, by_key, now)
        if status is not None:
            updates.append(_update(wl, "Workload", key, status))
    return updates


def _update(
    obj: Workload | ClusterQueue | LocalQueue, kind: str, key: str, status: Json
) -> StatusUpdate:
    return StatusUpdate(
        kind=kind,
        key=key,
        uid=obj.metadata.uid,
        resource_version=obj.metadata.resourceVersion,
        status=status,
    )


def _workload_status(
    wl: Workload,
    key: str,
    result: AdmissionResult,
    objects: KueueObjects,
    by_key: Mapping[str, Workload],
    now: str,
) -> Json | None:
    admitted = result.admitted.get(key)
    pending = key in result.pending and not holds_quota(wl)
    if admitted is None and key not in result.preempted and pending:
        # The common case by far: a waiting workload that already says why (checked on its
        # one condition; decoding all of them for every waiting workload was most of a run).
        why: Status = result.pending[key]
        reason = result.no_fit.get(key) or _PENDING_REASONS.get(why.reason, "WaitingForQuota")
        if _says(condition(wl, QUOTA_RESERVED), "False", reason, why.message):
            return None
    current: list[Json] = msgspec.to_builtins(wl.status.conditions)
    conditions = [dict(c) for c in current]
    new_admission: Json | None = None
    if admitted is not None and wl.status.admission is None:
        new_admission = admission(admitted)
        message = f"Quota reserved in ClusterQueue {admitted.cluster_queue}"
        set_condition(conditions, QUOTA_RESERVED, "True", "QuotaReserved", message, now)
        for kind in (EVICTED, PREEMPTED):
            _reset(conditions, kind, "QuotaReserved", now)
        set_condition(conditions, ADMITTED, "True", "Admitted", "The workload is admitted", now)
    elif key in result.preempted and not pending and holds_quota(wl) and not _true(wl, EVICTED):
        preemptor = by_key.get(result.preempted[key])
        reason = IN_CLUSTER_QUEUE
        if preemptor is not None and objects.cluster_queue_of(preemptor) != (
            objects.cluster_queue_of(wl)
        ):
            reason = IN_COHORT_RECLAMATION
        message = preemption_message(preemptor, reason)
        set_condition(conditions, EVICTED, "True", "Preempted", message, now)
        set_condition(conditions, PREEMPTED, "True", reason, message, now)
    elif pending:
        why = result.pending[key]
        reason = result.no_fit.get(key) or _PENDING_REASONS.get(why.reason, "WaitingForQuota")
        set_condition(conditions, QUOTA_RESERVED, "False", reason, why.message, now)
    if new_admission is None and same_ignoring_time(current, conditions):
        return None
    status: Json = {"conditions": conditions}
    if new_admission is not None:
        status["admission"] = new_admission
    return status


def _says(found: Condition | None, status: str, reason: str, message: str) -> bool:
    """Whether ``found`` is what ``set_condition`` would write, but for its time."""
    if found is None:
        return False
    shown: Json = msgspec.to_builtins(found)
    shown.pop("lastTransitionTime", None)
    return shown == {
        "type": found.type,
        "status": status,
        "reason": reason,
        "message": message[:MAX_MESSAGE],
    }


def _true(wl: Workload, kind: str) -> bool:
    found = condition(wl, kind)
    return found is not None and found.status == "True"


def _counts(tally: _Tally, key_of: Callable[[Workload], str]) -> dict[str, list[int]]:
    """Per queue (``key_of(workload)``): [pending, reserving/admitted] after this run."""
    counts: dict[str, list[int]] = {}
    for wl, reserving in tally:
        queue = key_of(wl)
        if not queue:
            continue
        slot = counts.setdefault(queue, [0, 0])
        slot[1 if reserving else 0] += 1
    return counts


def _cluster_queue_key(objects: KueueObjects) -> Callable[[Workload], str]:
    """``objects.cluster_queue_of`` with the LocalQueues looked up once."""
    targets: dict[tuple[str, str | None], str] = {}
    for lq in objects.local_queues:
        targets.setdefault(
            (lq.metadata.namespace or "default", lq.metadata.name), lq.spec.clusterQueue
        )

    def cluster_queue_of(wl: Workload) -> str:
        if wl.status.admission is not None:
            return wl.status.admission.clusterQueue
        return targets.get((wl.metadata.namespace or "default", wl.spec.queueName), "")

    return cluster_queue_of


def cluster_queue_statuses(
    objects: KueueObjects, result: AdmissionResult, now: str, *, tally: _Tally | None = None
) -> list[StatusUpdate]:
    """pending/reserving/admitted workload counts and the ``Active`` condition per CQ."""
    flavors = {f.metadata.name for f in objects.flavors}
    if tally is None:
        tally = _tally(objects, result)
    counts = _counts(tally, _cluster_queue_key(objects))
    updates: list[StatusUpdate] = []
    for cq in sorted(objects.cluster_queues, key=lambda q: q.metadata.name):
        name = cq.metadata.name
        pending, reserving = counts.get(name, [0, 0])
        missing = sorted({f.name for g in cq.spec.resourceGroups for f in g.flavors} - flavors)
        reason, message, active = "Ready", "Can admit new workloads", "True"
        if cq.spec.stopPolicy in ("Hold", "HoldAndDrain"):
            reason, active = "Stopped", "False"
            message = "Can't admit new workloads: is stopped."
        elif missing:
            reason, active = "FlavorNotFound", "False"
            message = (
                "Can't admit new workloads: references missing ResourceFlavor(s): "
                f"{','.join(missing)}."
            )
        status = _queue_status(cq.status, pending, reserving, active, reason, message, now)
        if status is not None:
            updates.append(_update(cq, "ClusterQueue", name, status))
    return updates


def local_queue_statuses(
    objects: KueueObjects, result: AdmissionResult, now: str, *, tally: _Tally | None = None
) -> list[StatusUpdate]:
    """pending/reserving/admitted counts and ``Active`` per LocalQueue."""
    if tally is None:
        tally = _tally(objects, result)
    counts = _counts(
        tally,
        lambda wl: f"{wl.metadata.namespace or 'default'}/{wl.spec.queueName or ''}",
    )
    cluster_queues = {cq.metadata.name for cq in objects.cluster_queues}
    updates: list[StatusUpdate] = []
    for lq in sorted(objects.local_queues, key=lambda q: object_key(q.metadata)):
        key = f"{lq.metadata.namespace or 'default'}/{lq.metadata.name}"
        pending, reserving = counts.get(key, [0, 0])
        if lq.spec.clusterQueue in cluster_queues:
            active, reason, message = "True", "Ready", "Can submit new workloads to localQueue"
        else:
            active, reason, message = (
                "False",
                "ClusterQueueDoesNotExist",
                "Can't submit new workloads to clusterQueue",
            )
        status = _queue_status(lq.status, pending, reserving, active, reason, message, now)
        if status is not None:
            updates.append(_update(lq, "LocalQueue", key, status))
    return updates


def _queue_status(
    current: Json,
    pending: int,
    reserving: int,
    active: str,
    reason: str,
    message: str,
    now: str,
) -> Json | None:
    old_conditions: list[Json] = list(current.get("conditions") or [])
    conditions = [dict(c) for c in old_conditions]
    set_condition(conditions, "Active", active, reason, message, now)
    status: Json = {
        "pendingWorkloads": pending,
        "reservingWorkloads": reserving,
        "admittedWorkloads": reserving,
        "conditions": conditions,
    }
    unchanged = all(
        current.get(k, 0) == status[k]
        for k in ("pendingWorkloads", "reservingWorkloads", "admittedWorkloads")
    ) and same_ignoring_time(old_conditions, conditions)
    return None if unchanged else status
