"""Preemption: which admitted workloads to evict so that a pending one fits.

Candidates use a flavor/resource the preemptor needs and are allowed by its ClusterQueue's
policy: ``withinClusterQueue`` (LowerPriority, LowerOrNewerEqualPriority) in its own queue,
``reclaimWithinCohort`` (LowerPriority, Any) in other queues of the cohort that are borrowing.
They are tried in Kueue's order (already being preempted, other queues, lower priority, most
recently admitted first), removed until the preemptor fits, then added back in reverse while
it still fits. Preempting in other queues and borrowing at once is only allowed under
``borrowWithinCohort``; otherwise only the preemptor's own queue is used when it must borrow.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from services.scheduler.kueue.flavors import Assignment, Oracle, Possibility
from services.scheduler.kueue.model import (
    ANY,
    LOWER_OR_NEWER_EQUAL_PRIORITY,
    NEVER,
    ClusterQueueState,
    Snapshot,
)
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    FlavorResource,
    Usage,
    WorkloadInfo,
)


def preemption_targets(
    info: WorkloadInfo,
    assignment: Assignment,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    *,
    preempting: Collection[str] = (),
) -> list[AdmittedWorkload]:
    """The workloads to preempt for ``info`` to be admitted with ``assignment``, or []."""
    return find_targets(
        info, assignment.needs_preemption(), assignment.usage, cq, snapshot, preempting=preempting
    )


def oracle(
    info: WorkloadInfo,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    *,
    preempting: Collection[str] = (),
) -> Oracle:
    """Kueue's preemption oracle: would preempting for one flavor/resource find targets?"""

    def simulate(fr: FlavorResource, amount: int) -> tuple[Possibility, bool]:
        usage = {fr: amount}
        targets = find_targets(info, {fr}, usage, cq, snapshot, preempting=preempting)
        if not targets:
            return Possibility.NO_CANDIDATES, cq.borrowing_with(fr, amount)
        with snapshot.without(targets):
            borrows = cq.borrowing_with(fr, amount)
        if any(t.cluster_queue == cq.name for t in targets):
            return Possibility.PREEMPT, borrows
        return Possibility.RECLAIM, borrows

    return simulate


def find_targets(
    info: WorkloadInfo,
    frs: set[FlavorResource],
    usage: Usage,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    *,
    preempting: Collection[str] = (),
) -> list[AdmittedWorkload]:
    """The workloads to preempt so that ``usage`` fits, needing ``frs`` freed, or []."""
    candidates = _candidates(info, cq, frs)
    if not candidates:
        return []
    candidates.sort(
        key=lambda w: (
            w.info.key not in preempting and not w.evicted,
            w.cluster_queue == cq.name,
            w.info.priority,
            -w.admitted_at.timestamp(),
            w.info.key,
        )
    )
    own = [w for w in candidates if w.cluster_queue == cq.name]
    if len(own) == len(candidates):
        return _minimal(usage, cq, snapshot, frs, candidates, allow_borrowing=True)
    threshold = _borrow_threshold(cq, info)
    if threshold is not None:
        if not cq.under_nominal(usage):
            candidates = [
                w for w in candidates if w.cluster_queue == cq.name or w.info.priority < threshold
            ]
        return _minimal(usage, cq, snapshot, frs, candidates, allow_borrowing=True, below=threshold)
    if cq.under_nominal(usage):
        targets = _minimal(usage, cq, snapshot, frs, candidates, allow_borrowing=False)
        if targets:
            return targets
    return _minimal(usage, cq, snapshot, frs, own, allow_borrowing=True)


def _candidates(
    info: WorkloadInfo, cq: ClusterQueueState, frs: set[FlavorResource]
) -> list[AdmittedWorkload]:
    found: list[AdmittedWorkload] = []
    within = cq.preemption.within_cluster_queue
    if within != NEVER:
        for wl in cq.workloads.values():
            lower = wl.info.priority < info.priority
            newer_equal = (
                within == LOWER_OR_NEWER_EQUAL_PRIORITY
                and wl.info.priority == info.priority
                and info.timestamp < wl.info.timestamp
            )
            if (lower or newer_equal) and wl.uses_any(frs):
                found.append(wl)
    reclaim = cq.preemption.reclaim_within_cohort
    if cq.cohort is not None and reclaim != NEVER:
        for member in cq.cohort.members:
            if member is cq or not member.is_borrowing(frs):
                continue
            for wl in member.workloads.values():
                if (reclaim == ANY or wl.info.priority < info.priority) and wl.uses_any(frs):
                    found.append(wl)
    return found


def _borrow_threshold(cq: ClusterQueueState, info: WorkloadInfo) -> int | None:
    """With borrowWithinCohort, the priority below which others may be preempted."""
    if cq.preemption.borrow_within_cohort == NEVER:
        return None
    threshold = info.priority
    limit = cq.preemption.max_priority_threshold
    if limit is not None and limit < threshold:
        threshold = limit + 1
    return threshold


def _minimal(
    usage: Usage,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    frs: set[FlavorResource],
    candidates: Sequence[AdmittedWorkload],
    *,
    allow_borrowing: bool,
    below: int | None = None,
) -> list[AdmittedWorkload]:
    targets: list[AdmittedWorkload] = []
    fits = False
    for wl in candidates:
        owner = snapshot.cluster_queues[wl.cluster_queue]
        if owner is not cq and not owner.is_borrowing(frs):
            continue
        if owner is not cq and below is not None and wl.info.priority >= below:
            allow_borrowing = False
        snapshot.remove_workload(wl)
        targets.append(wl)
        if _fits(usage, cq, allow_borrowing=allow_borrowing):
            fits = True
            break
    if fits:
        # Put back, last removed first, whatever is not needed after all.
        for i in range(len(targets) - 2, -1, -1):
            snapshot.add_workload(targets[i])
            if _fits(usage, cq, allow_borrowing=allow_borrowing):
                del targets[i]
            else:
                snapshot.remove_workload(targets[i])
    for wl in targets:
        snapshot.add_workload(wl)
    return targets if fits else []


def _fits(usage: Usage, cq: ClusterQueueState, *, allow_borrowing: bool) -> bool:
    for fr, amount in usage.items():
        within_nominal = cq.usage.get(fr, 0) + amount <= cq.quota(fr).nominal
        if (cq.cohort is None or not allow_borrowing) and not within_nominal:
            return False
        if amount > cq.available(fr):
            return False
    return True
