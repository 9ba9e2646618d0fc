"""Preemption: which admitted workloads to evict so that a pending one fits.

Kueue's classical preemption (``pkg/scheduler/preemption/preemption.go`` and
``classical/``). Candidates use a flavor/resource the preemptor needs and are allowed by its
ClusterQueue's policy: ``withinClusterQueue`` in its own queue, ``reclaimWithinCohort`` in
the other queues of the cohort tree that use more than their quota. Walking up the tree, a
candidate in a subtree whose quota would cover the request is one the preemptor has a
*hierarchical advantage* over; others are reclaimed by priority, and only without borrowing
unless ``borrowWithinCohort`` allows it below its threshold. Candidates are tried in Kueue's
order (already evicted first, other queues before the own one, lower priority, most recently
admitted), removed until the preemptor fits, then added back in reverse while it still fits.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass

from services.scheduler.kueue.fair_preemption import FairSearch
from services.scheduler.kueue.fair_sharing import FairSharing
from services.scheduler.kueue.flavors import Assignment, Oracle
from services.scheduler.kueue.model import (
    ANY,
    LOWER_OR_NEWER_EQUAL_PRIORITY,
    LOWER_PRIORITY,
    NEVER,
    ClusterQueueState,
    Cohort,
    Snapshot,
    borrowing_level,
)
from services.scheduler.kueue.modes import Possibility
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    FlavorResource,
    Usage,
    WorkloadInfo,
)


class Variant(enum.IntEnum):
    """Kueue's preemptionVariant: on what grounds a candidate may be preempted."""

    NEVER = 0
    WITHIN_CQ = 1
    HIERARCHICAL_RECLAIM = 2
    RECLAIM_WITHOUT_BORROWING = 3
    RECLAIM_WHILE_BORROWING = 4


@dataclass(frozen=True)
class _Candidate:
    wl: AdmittedWorkload
    lca: Cohort | None
    """The lowest common ancestor of its queue and the preemptor's."""
    variant: Variant


def preemption_targets(
    info: WorkloadInfo,
    assignment: Assignment,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    *,
    preempting: Collection[str] = (),
    fair_sharing: FairSharing | None = None,
) -> list[AdmittedWorkload]:
    """The workloads to preempt for ``info`` to be admitted with ``assignment``, or []."""
    return find_targets(
        info,
        assignment.needs_preemption(),
        assignment.usage,
        cq,
        snapshot,
        preempting=preempting,
        fair_sharing=fair_sharing,
    )


def oracle(
    info: WorkloadInfo,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    *,
    preempting: Collection[str] = (),
    fair_sharing: FairSharing | None = None,
) -> Oracle:
    """Kueue's preemption oracle: would preempting for one flavor/resource find targets?"""

    def simulate(fr: FlavorResource, amount: int) -> tuple[Possibility, int]:
        targets = find_targets(
            info,
            {fr},
            {fr: amount},
            cq,
            snapshot,
            preempting=preempting,
            fair_sharing=fair_sharing,
        )
        if not targets:
            return Possibility.NO_CANDIDATES, borrowing_level(cq, fr, amount)[0]
        with snapshot.without(targets):
            borrow = borrowing_level(cq, fr, amount)[0]
        if any(t.cluster_queue == cq.name for t in targets):
            return Possibility.PREEMPT, borrow
        return Possibility.RECLAIM, borrow

    return simulate


def find_targets(
    info: WorkloadInfo,
    frs: set[FlavorResource],
    usage: Usage,
    cq: ClusterQueueState,
    snapshot: Snapshot,
    *,
    preempting: Collection[str] = (),
    fair_sharing: FairSharing | None = None,
) -> list[AdmittedWorkload]:
    """Kueue's classicalPreemptions (or fairPreemptions with ``fair_sharing``): the
    workloads to preempt so that ``usage`` fits."""
    usage = {fr: v for fr, v in usage.items() if v}
    if fair_sharing is not None:
        candidates = sorted(
            _fair_candidates(info, frs, cq), key=lambda w: w.candidate_order(cq.name, preempting)
        )
        return FairSearch(cq, snapshot, usage, frs, fair_sharing).run(candidates)
    search = _Search(info, frs, usage, cq, snapshot)
    own = search.own_queue()
    hierarchy, by_priority = search.in_cohort()
    ordered: list[_Candidate] = []
    groups = [
        sorted(c, key=lambda c: c.wl.candidate_order(cq.name, preempting))
        for c in (hierarchy, by_priority, own)
    ]
    for evicted in (True, False):
        ordered.extend(c for group in groups for c in group if _evicted(c, preempting) == evicted)
    forbidden = cq.preemption.borrow_within_cohort == NEVER
    if not (hierarchy or by_priority) or (forbidden and not search.under_nominal()):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for borrowing in attempts:
        targets = search.attempt(ordered, borrowing=borrowing)
        if targets:
            return targets
    return []


@dataclass
class _Search:
    info: WorkloadInfo
    frs: set[FlavorResource]
    usage: Usage
    cq: ClusterQueueState
    snapshot: Snapshot

    def own_queue(self) -> list[_Candidate]:
        if self.cq.preemption.within_cluster_queue == NEVER:
            return []
        return self._from_queue(self.cq, None, advantage=False)

    def in_cohort(self) -> tuple[list[_Candidate], list[_Candidate]]:
        """Kueue's collectCandidatesForHierarchicalReclaim: (hierarchy, priority) candidates."""
        hierarchy: list[_Candidate] = []
        by_priority: list[_Candidate] = []
        if self.cq.parent is None or self.cq.preemption.reclaim_within_cohort == NEVER:
            return hierarchy, by_priority
        advantage, remaining = self.cq.fit_in_quota(self.usage)
        previous: Cohort | None = None
        for subtree in self.cq.ancestors():
            found = hierarchy if advantage else by_priority
            self._in_subtree(subtree, subtree, previous, advantage, found)
            fits, remaining = subtree.fit_in_quota(remaining)
            # Every workload using this subtree's quota is one the preemptor has the
            # advantage over from here up.
            advantage = advantage or fits
            previous = subtree
        return hierarchy, by_priority

    def _in_subtree(
        self,
        cohort: Cohort,
        lca: Cohort,
        skip: Cohort | None,
        advantage: bool,
        found: list[_Candidate],
    ) -> None:
        for child in cohort.child_cohorts:
            if child is not skip and not child.within_nominal(self.frs):
                self._in_subtree(child, lca, skip, advantage, found)
        for queue in cohort.members:
            if queue is not self.cq and not queue.within_nominal(self.frs):
                found.extend(self._from_queue(queue, lca, advantage=advantage))

    def _from_queue(
        self, queue: ClusterQueueState, lca: Cohort | None, *, advantage: bool
    ) -> list[_Candidate]:
        found = []
        for wl in queue.workloads.values():
            variant = self._variant(wl, advantage)
            if variant != Variant.NEVER:
                found.append(_Candidate(wl, lca, variant))
        return found

    def _variant(self, wl: AdmittedWorkload, advantage: bool) -> Variant:
        """Kueue's classifyPreemptionVariant."""
        if not wl.uses_any(self.frs):
            return Variant.NEVER
        own = wl.cluster_queue == self.cq.name
        preemption = self.cq.preemption
        policy = preemption.within_cluster_queue if own else preemption.reclaim_within_cohort
        if not _satisfies(policy, self.info, wl.info):
            return Variant.NEVER
        if own:
            return Variant.WITHIN_CQ
        if advantage:
            return Variant.HIERARCHICAL_RECLAIM
        if preemption.borrow_within_cohort == NEVER:
            return Variant.RECLAIM_WITHOUT_BORROWING
        threshold = preemption.max_priority_threshold
        if wl.info.priority >= self.info.priority or (
            threshold is not None and wl.info.priority > threshold
        ):
            return Variant.RECLAIM_WITHOUT_BORROWING
        return Variant.RECLAIM_WHILE_BORROWING

    def under_nominal(self) -> bool:
        """Kueue's queueUnderNominalInResourcesNeedingPreemption."""
        return all(self.cq.usage.get(fr, 0) < self.cq.quota(fr).nominal for fr in self.frs)

    def attempt(self, ordered: list[_Candidate], *, borrowing: bool) -> list[AdmittedWorkload]:
        """Remove candidates until the preemptor fits, then put back what is not needed."""
        targets: list[AdmittedWorkload] = []
        fits = False
        for candidate in ordered:
            if not self._valid(candidate, borrowing):
                continue
            self.snapshot.remove_workload(candidate.wl)
            targets.append(candidate.wl)
            if self._fits(borrowing):
                fits = True
                break
        if fits:
            for i in range(len(targets) - 2, -1, -1):
                self.snapshot.add_workload(targets[i])
                if self._fits(borrowing):
                    del targets[i]
                else:
                    self.snapshot.remove_workload(targets[i])
        for wl in targets:
            self.snapshot.add_workload(wl)
        return targets if fits else []

    def _valid(self, candidate: _Candidate, borrowing: bool) -> bool:
        """Kueue's candidateIsValid, against the snapshot as the preemptions so far left it."""
        if candidate.wl.cluster_queue == self.cq.name:
            return True
        if borrowing and candidate.variant == Variant.RECLAIM_WITHOUT_BORROWING:
            return False
        owner = self.snapshot.cluster_queues[candidate.wl.cluster_queue]
        if owner.within_nominal(self.frs):
            return False
        for node in owner.ancestors():
            if node is candidate.lca:
                break
            if node.within_nominal(self.frs):
                return False
        return True

    def _fits(self, borrowing: bool) -> bool:
        """Kueue's workloadFits."""
        for fr, amount in self.usage.items():
            if not borrowing and self.cq.borrowing_with(fr, amount):
                return False
            if amount > self.cq.available(fr):
                return False
        return True


def _fair_candidates(
    info: WorkloadInfo, frs: set[FlavorResource], cq: ClusterQueueState
) -> list[AdmittedWorkload]:
    """Kueue's findCandidates: the own queue's by policy, and every borrowing queue's of the
    cohort tree by ``reclaimWithinCohort``."""
    found: list[AdmittedWorkload] = []
    queues = [(cq, cq.preemption.within_cluster_queue)]
    if cq.parent is not None and cq.preemption.reclaim_within_cohort != NEVER:
        reclaim = cq.preemption.reclaim_within_cohort
        queues += [
            (q, reclaim)
            for q in cq.parent.root().subtree_queues()
            if q is not cq and q.is_borrowing(frs)
        ]
    for queue, policy in queues:
        if policy == NEVER:
            continue
        for wl in queue.workloads.values():
            if wl.uses_any(frs) and _satisfies(policy, info, wl.info):
                found.append(wl)
    return found


def _satisfies(policy: str, preemptor: WorkloadInfo, candidate: WorkloadInfo) -> bool:
    """Kueue's SatisfiesPreemptionPolicy."""
    lower = preemptor.priority > candidate.priority
    if policy == LOWER_PRIORITY:
        return lower
    if policy == LOWER_OR_NEWER_EQUAL_PRIORITY:
        newer_equal = (
            preemptor.priority == candidate.priority and preemptor.timestamp < candidate.timestamp
        )
        return lower or newer_equal
    return policy == ANY


def _evicted(candidate: _Candidate, preempting: Collection[str]) -> bool:
    return candidate.wl.evicted or candidate.wl.info.key in preempting
