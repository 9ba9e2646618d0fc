"""The Kueue status an admission run implies: Workloads, ClusterQueues and LocalQueues.

Kueue's scheduler writes a Workload's admission and conditions (``SetQuotaReservation``,
``SyncAdmittedCondition``, the preemptor's ``SetEvictedCondition``/``SetPreemptedCondition``,
``QuotaReserved=False`` with the reason a workload waits), and its queue reconcilers write the
ClusterQueue, LocalQueue and Cohort status (``queue_status``). Here each is a pure function of
the objects and one
``AdmissionResult``: the desired ``status`` of every object whose status should change, with
condition semantics as ``apimeta.SetStatusCondition`` (the transition time moves only when the
status does). Reasons and messages are Kueue's (``apis/kueue/v1beta2``, ``pkg/workload``).
"""

from __future__ import annotations

import msgspec

from services.scheduler.kueue.objects import KueueObjects as KueueObjects
from services.scheduler.kueue.objects import StatusUpdate as StatusUpdate
from services.scheduler.kueue.objects import status_update
from services.scheduler.kueue.queue_status import queue_statuses
from services.scheduler.kueue.result import AdmissionResult, Admitted
from services.scheduler.kueue.workloads import WorkloadInfo, condition, holds_quota
from shared.kube.conditions import MAX_MESSAGE, same_ignoring_time, set_condition
from shared.models import Json, Workload

QUOTA_RESERVED, ADMITTED, EVICTED, PREEMPTED = "QuotaReserved", "Admitted", "Evicted", "Preempted"
FINISHED, REQUEUED = "Finished", "Requeued"
IN_CLUSTER_QUEUE, IN_COHORT_RECLAMATION = "InClusterQueue", "InCohortReclamation"
_HUMAN = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
}
# What the admission core's verdicts are, in Kueue's QuotaReserved=False reasons
# (``UnadmittedWorkloadsObservability``, on by default since Kueue 0.19).
MISCONFIGURED = "Misconfigured"
_PENDING_REASONS = {
    "NamespaceMismatch": MISCONFIGURED,
    "ClusterQueueInactive": MISCONFIGURED,
    "NoQueueName": MISCONFIGURED,
    "LocalQueueNotFound": MISCONFIGURED,
    "ClusterQueueNotFound": MISCONFIGURED,
    "PendingPreemption": "WaitingForPreemptedWorkloads",
}
_WAITING = "WaitingForQuota"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"


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


def statuses(
    objects: KueueObjects,
    result: AdmissionResult,
    now: str,
    *,
    fair_sharing: bool = False,
    deferred: list[WorkloadInfo] | None = None,
) -> list[StatusUpdate]:
    """Every Workload, ClusterQueue, LocalQueue and Cohort status this run changes
    (``fair_sharing``: Kueue's Configuration enables it, so the queues' shares are written;
    ``deferred``: see ``workload_statuses``)."""
    return [
        *workload_statuses(objects, result, now, deferred=deferred),
        *queue_statuses(objects, result, now, fair_sharing=fair_sharing),
    ]


def workload_statuses(
    objects: KueueObjects,
    result: AdmissionResult,
    now: str,
    *,
    deferred: list[WorkloadInfo] | None = None,
) -> list[StatusUpdate]:
    """The run's Workloads (``result.workloads``) whose status changes, by key.

    A waiting workload's explanation (its ``QuotaReserved=False`` condition) is written as
    Kueue writes it: the first one when the workload first waits; a new one only when a
    cycle evaluated it at the head of its queue (``result.heads``: the scheduler's
    ``requeueAndUpdate``), or when it turns misconfigured or stops being so (the workload
    controller's ``Inadmissible``, written when the queue changes). Those behind the head
    keep theirs until they come forward. With ``deferred``, waiting workloads' explanations
    go there, not built (``workload_status`` builds one; the caller caps how many)."""
    workloads = _Workloads(result)
    updates: list[StatusUpdate] = []
    admitted, preempted, pending, no_fit = (
        result.admitted,
        result.preempted,
        result.pending,
        result.no_fit,
    )
    # What each verdict shows (message, reason but a NoFit one), found once per verdict:
    # the waiting workloads of a queue share a few.
    shows: dict[int, tuple[str, str]] = {}
    for info in result.workloads:
        key = info.key
        if key not in admitted and key not in preempted:
            # The common case by far: a waiting workload that already says why (what it
            # shows is a fact of the object, found once, not per run).
            why = pending.get(key)
            if why is None:
                continue  # not admitted, preempted or waiting by this run: nothing to write
            shown = info.shown_waiting
            if shown is not None and not info.has_quota_reservation:
                expected = shows.get(id(why))
                if expected is None:
                    expected = shows[id(why)] = (
                        why.message[:MAX_MESSAGE],
                        _PENDING_REASONS.get(why.reason, _WAITING),
                    )
                if shown[1] == expected[0] and shown[0] == (no_fit.get(key) or expected[1]):
                    continue
                if key not in result.heads and (shown[0] == MISCONFIGURED) == (
                    expected[1] == MISCONFIGURED
                ):
                    continue  # not evaluated at the head: it keeps what it shows
            waits = key in result.pending and not info.has_quota_reservation
            if waits and info.shown_waiting is not None:  # only rewords its explanation
                if deferred is not None:
                    deferred.append(info)
                    continue
            elif waits and deferred is not None and condition(info.obj, QUOTA_RESERVED) is None:
                deferred.append(info)  # its first explanation: never held back, only capped
                continue
        status = _workload_status(info.obj, key, result, objects, workloads, now)
        if status is not None:
            updates.append(status_update(info.obj, "Workload", key, status))
    updates.sort(key=lambda u: u.key)
    return updates


def workload_status(
    info: WorkloadInfo, objects: KueueObjects, result: AdmissionResult, now: str
) -> StatusUpdate | None:
    """The update of one workload ``workload_statuses`` deferred (None: no change)."""
    status = _workload_status(info.obj, info.key, result, objects, _Workloads(result), now)
    return None if status is None else status_update(info.obj, "Workload", info.key, status)


class _Workloads:
    """The run's Workloads by key, gathered only if a preemption needs its preemptor."""

    def __init__(self, result: AdmissionResult) -> None:
        self._result = result
        self._by_key: dict[str, Workload] | None = None

    def get(self, key: str) -> Workload | None:
        if self._by_key is None:
            self._by_key = {info.key: info.obj for info in self._result.workloads}
        return self._by_key.get(key)


def _workload_status(
    wl: Workload,
    key: str,
    result: AdmissionResult,
    objects: KueueObjects,
    workloads: _Workloads,
    now: str,
) -> Json | None:
    admitted = result.admitted.get(key)
    pending = key in result.pending and not holds_quota(wl)
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
        preemptor = workloads.get(result.preempted[key])
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
        reason = quota_reserved_reason(key, result)
        set_condition(conditions, QUOTA_RESERVED, "False", reason, why.message, now)
    if new_admission is None and same_ignoring_time(current, conditions):
        return None
    status: Json = {"conditions": conditions}
    if new_admission is not None:
        status["admission"] = new_admission
    return status


def quota_reserved_reason(key: str, result: AdmissionResult) -> str:
    """The reason of pending workload ``key``'s ``QuotaReserved=False`` condition, Kueue's:
    ``WaitingForQuota``, ``WaitingForPreemptedWorkloads``, ``Misconfigured``, or the
    ``NoFitReason`` (``NoMatchingFlavor``, ``ExceedsMaxQuota``) when no flavor fits."""
    found = result.no_fit.get(key)
    return found or _PENDING_REASONS.get(result.pending[key].reason, _WAITING)


def _true(wl: Workload, kind: str) -> bool:
    found = condition(wl, kind)
    return found is not None and found.status == "True"
