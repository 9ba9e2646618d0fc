"""ClusterQueue, LocalQueue and Cohort status as Kueue's queue reconcilers write it.

``pkg/controller/core``: the ClusterQueue reconciler (``updateCqStatusIfChanged``) writes the
pending, reserving and admitted workload counts, ``flavorsReservation``/``flavorsUsage``
(``usage``), the ``Active`` condition (``ClusterQueueReadiness``/``inactiveReason``) and, with
fair sharing, ``fairSharing.weightedShare``; the LocalQueue reconciler (``Reconcile``,
``updateStatusIfChanged``) writes its counts and usage and an ``Active`` condition that
follows its ``stopPolicy`` and its ClusterQueue's; the Cohort reconciler writes the Cohort's
``fairSharing``. Conditions carry the object's generation (``observedGeneration``). A status
is decided only when something in it changes. Pending counts are Kueue's queue manager's:
workloads without a reservation that may be admitted (active, not finished) in a LocalQueue
that is not stopped. A LocalQueue follows its ClusterQueue's ``Active`` condition as the
ClusterQueue shows it (decided in an earlier run and written, or assumed), as Kueue's
LocalQueue reconciler reads it from the ClusterQueue object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.scheduler.kueue.model import ClusterQueueState, Snapshot
from services.scheduler.kueue.objects import KueueObjects, StatusUpdate, status_update
from services.scheduler.kueue.result import AdmissionResult
from services.scheduler.kueue.usage import QueueUsage, Usages, flavors_usage, weighted_shares
from services.scheduler.kueue.workloads import condition_true
from shared.kube.conditions import is_true, same_ignoring_time, set_condition
from shared.models import ClusterQueue, Cohort, LocalQueue, ResourceFlavor, object_key

Json = dict[str, Any]
ACTIVE = "Active"
_STOPPED = ("Hold", "HoldAndDrain")
_CLUSTER_QUEUE_INACTIVE = "Can't submit new workloads to clusterQueue"
_COUNTS = ("pendingWorkloads", "reservingWorkloads", "admittedWorkloads")


@dataclass
class _Facts:
    """What every queue's status is computed from, gathered once per run."""

    usages: Usages
    snapshot: Snapshot | None
    pending_in_cluster_queue: dict[str, int] = field(default_factory=dict)
    pending_in_local_queue: dict[tuple[str, str], int] = field(default_factory=dict)
    shares: dict[str, int] | None = None
    """``weightedShare`` per ClusterQueue and ``cohort/<name>``; None without fair sharing."""


def queue_statuses(
    objects: KueueObjects, result: AdmissionResult, now: str, *, fair_sharing: bool = False
) -> list[StatusUpdate]:
    """Every ClusterQueue, LocalQueue and Cohort status this run changes."""
    facts = _facts(objects, result, fair_sharing=fair_sharing)
    readiness = {
        cq.metadata.name: cluster_queue_readiness(cq, objects.flavors)
        for cq in objects.cluster_queues
    }
    updates: list[StatusUpdate] = []
    for cq in sorted(objects.cluster_queues, key=lambda q: q.metadata.name):
        status = _cluster_queue_status(cq, readiness[cq.metadata.name], facts, now)
        if status is not None:
            updates.append(status_update(cq, "ClusterQueue", cq.metadata.name, status))
    active = {
        cq.metadata.name: is_true(cq.status.get("conditions") or [], ACTIVE)
        for cq in objects.cluster_queues
    }
    for lq in sorted(objects.local_queues, key=lambda q: object_key(q.metadata)):
        status = _local_queue_status(lq, active, facts, now)
        if status is not None:
            key = f"{lq.metadata.namespace or 'default'}/{lq.metadata.name}"
            updates.append(status_update(lq, "LocalQueue", key, status))
    for cohort in sorted(objects.cohorts, key=lambda c: c.metadata.name):
        status = _cohort_status(cohort, facts)
        if status is not None:
            updates.append(status_update(cohort, "Cohort", cohort.metadata.name, status))
    return updates


def cluster_queue_readiness(
    cq: ClusterQueue, flavors: list[ResourceFlavor]
) -> tuple[str, str, str]:
    """``ClusterQueueReadiness``: the ``Active`` condition's status, reason and message."""
    if cq.metadata.deletionTimestamp:
        return "False", "Terminating", "Can't admit new workloads; clusterQueue is terminating"
    known = {f.metadata.name for f in flavors}
    reasons: list[str] = []
    messages: list[str] = []
    if cq.spec.stopPolicy in _STOPPED:
        reasons.append("Stopped")
        messages.append("is stopped")
    missing = [f.name for g in cq.spec.resourceGroups for f in g.flavors if f.name not in known]
    if missing:
        reasons.append("FlavorNotFound")
        messages.append(f"references missing ResourceFlavor(s): {','.join(missing)}")
    if reasons:
        return "False", reasons[0], f"Can't admit new workloads: {', '.join(messages)}."
    return "True", "Ready", "Can admit new workloads"


def _facts(objects: KueueObjects, result: AdmissionResult, *, fair_sharing: bool) -> _Facts:
    snapshot = result.snapshot
    admitted_now = result.admitted.keys()
    usages = Usages()
    if snapshot is not None:
        usages = Usages.of(
            snapshot,
            lambda wl: wl.info.key in admitted_now or condition_true(wl.info.obj, "Admitted"),
        )
    facts = _Facts(usages=usages, snapshot=snapshot)
    if fair_sharing and snapshot is not None:
        facts.shares = weighted_shares(snapshot, usages)
    open_queues = {
        (lq.metadata.namespace or "default", lq.metadata.name): lq.spec.clusterQueue
        for lq in objects.local_queues
        if lq.spec.stopPolicy not in _STOPPED
    }
    counts = result.admissible
    if counts is None:
        counts = {}
        for info in result.workloads:  # (finished ones are left out)
            # Kueue's IsAdmissible: what its queue manager keeps queued.
            if info.has_quota_reservation or info.obj.spec.active is False:
                continue
            if info.key not in admitted_now:
                local = info.local_queue
                counts[local] = counts.get(local, 0) + 1
    for local, count in counts.items():
        target = open_queues.get(local)
        if target is not None:
            facts.pending_in_local_queue[local] = count
            facts.pending_in_cluster_queue[target] = (
                facts.pending_in_cluster_queue.get(target, 0) + count
            )
    return facts


def _cluster_queue_status(
    cq: ClusterQueue, readiness: tuple[str, str, str], facts: _Facts, now: str
) -> Json | None:
    name = cq.metadata.name
    state = facts.snapshot.cluster_queues.get(name) if facts.snapshot else None
    usage = facts.usages.cluster_queues.get(name, QueueUsage())
    status: Json = {
        "flavorsReservation": _flavors(state, usage, admitted=False, borrowed=True),
        "flavorsUsage": _flavors(state, usage, admitted=True, borrowed=True),
        "pendingWorkloads": facts.pending_in_cluster_queue.get(name, 0),
        "reservingWorkloads": usage.reserving,
        "admittedWorkloads": usage.admitted_workloads,
    }
    if facts.shares is not None:
        status["fairSharing"] = {"weightedShare": facts.shares.get(name, 0)}
    elif cq.status.get("fairSharing") is not None:
        status["fairSharing"] = None
    return _changed(cq.status, status, cq.metadata.generation, readiness, now)


def _local_queue_status(
    lq: LocalQueue, active: dict[str, bool], facts: _Facts, now: str
) -> Json | None:
    namespace = lq.metadata.namespace or "default"
    cq_name = lq.spec.clusterQueue
    state = facts.snapshot.cluster_queues.get(cq_name) if facts.snapshot else None
    usage = facts.usages.local_queues.get((cq_name, namespace, lq.metadata.name), QueueUsage())
    pending = facts.pending_in_local_queue.get((namespace, lq.metadata.name), 0)
    if lq.spec.stopPolicy in _STOPPED:
        readiness = ("False", "Stopped", "LocalQueue is stopped")
    elif cq_name not in active:
        readiness = ("False", "ClusterQueueDoesNotExist", _CLUSTER_QUEUE_INACTIVE)
        state, usage = None, QueueUsage()
    elif active[cq_name]:
        readiness = ("True", "Ready", "Can submit new workloads to localQueue")
    else:
        readiness = ("False", "ClusterQueueIsInactive", _CLUSTER_QUEUE_INACTIVE)
    status: Json = {
        "pendingWorkloads": pending,
        "reservingWorkloads": usage.reserving,
        "admittedWorkloads": usage.admitted_workloads,
        "flavorsReservation": _flavors(state, usage, admitted=False, borrowed=False),
        "flavorsUsage": _flavors(state, usage, admitted=True, borrowed=False),
    }
    return _changed(lq.status, status, lq.metadata.generation, readiness, now)


def _cohort_status(cohort: Cohort, facts: _Facts) -> Json | None:
    current = cohort.status.get("fairSharing")
    if facts.shares is None:
        return {"fairSharing": None} if current is not None else None
    share = facts.shares.get(f"cohort/{cohort.metadata.name}", 0)
    if isinstance(current, dict) and current.get("weightedShare") == share:
        return None
    return {"fairSharing": {"weightedShare": share}}


def _flavors(
    state: ClusterQueueState | None, usage: QueueUsage, *, admitted: bool, borrowed: bool
) -> list[Json] | None:
    """A flavor usage list; None (not written, as Go's nil) for a missing ClusterQueue."""
    if state is None:
        return None
    return flavors_usage(state, usage.admitted if admitted else usage.reserved, borrowed=borrowed)


def _changed(
    current: Json,
    status: Json,
    generation: int | None,
    readiness: tuple[str, str, str],
    now: str,
) -> Json | None:
    """``status`` with the ``Active`` condition set, or None when nothing would change."""
    old_conditions: list[Json] = list(current.get("conditions") or [])
    conditions = [dict(c) for c in old_conditions]
    active, reason, message = readiness
    set_condition(conditions, ACTIVE, active, reason, message, now, observed_generation=generation)
    status["conditions"] = conditions
    unchanged = same_ignoring_time(old_conditions, conditions) and all(
        _same(key, current.get(key), value) for key, value in status.items() if key != "conditions"
    )
    return None if unchanged else status


def _same(key: str, old: Any, new: Any) -> bool:
    if key in _COUNTS:
        return bool((old or 0) == new)
    if key == "fairSharing" and isinstance(new, dict):
        return isinstance(old, dict) and bool(old.get("weightedShare") == new["weightedShare"])
    return bool((old or None) == (new or None))  # Go's nil list, null and [] alike
