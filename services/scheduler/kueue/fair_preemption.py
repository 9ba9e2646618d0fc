"""Fair-sharing preemption: Kueue's ``fairPreemptions`` and its target ordering.

With fair sharing on, the candidates (the own queue's by ``withinClusterQueue``, the
borrowing queues' of the whole cohort tree by ``reclaimWithinCohort``) are taken queue by
queue: from the root, the child with the highest dominant resource share, down to a
ClusterQueue (``TargetClusterQueueOrdering``). The preemptor's queue counts the incoming
workload's usage. A candidate of another queue is preempted when the strategy holds between
the shares of the two nodes just below the queues' lowest common ancestor (the *almost
LCAs*): ``LessThanOrEqualToFinalShare`` (the preemptor's new share ≤ the target's share after
the removal) first, then ``LessThanInitialShare`` (< the target's share before) over the
candidates the first left. A preemptor within its nominal quota reclaims without the
strategies (``FairSharingPreemptWithinNominal``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from services.scheduler.kueue.fair_sharing import (
    DRS,
    LESS_THAN_INITIAL_SHARE,
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    NEGATIVE,
    FairSharing,
    compare,
    share,
)
from services.scheduler.kueue.model import ClusterQueueState, Cohort, ResourceNode, Snapshot
from services.scheduler.kueue.workloads import AdmittedWorkload, FlavorResource, Usage

Strategy = Callable[[DRS, DRS, DRS], bool]
"""(preemptor's new share, target's share before, target's share after) → preempt?"""

STRATEGIES: dict[str, Strategy] = {
    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE: lambda new, _old, after: compare(new, after) <= 0,
    LESS_THAN_INITIAL_SHARE: lambda new, old, _after: compare(new, old) < 0,
}


@dataclass
class _Ordering:
    """Kueue's TargetClusterQueueOrdering over the candidates, by queue."""

    preemptor: ClusterQueueState
    candidates: dict[str, list[AdmittedWorkload]]
    pruned: set[int] = field(default_factory=set)

    def __iter__(self) -> Iterator[ClusterQueueState]:
        if self.preemptor.parent is None:
            while id(self.preemptor) not in self.pruned and self.has_workload(self.preemptor):
                yield self.preemptor
            return
        root = self.preemptor.parent.root()
        while id(root) not in self.pruned:
            target = self._next(root)
            if target is not None:
                yield target

    def has_workload(self, cq: ClusterQueueState) -> bool:
        return bool(self.candidates.get(cq.name))

    def pop(self, cq: ClusterQueueState) -> AdmittedWorkload:
        return self.candidates[cq.name].pop(0)

    def drop(self, cq: ClusterQueueState) -> None:
        self.pruned.add(id(cq))

    def _first_order(self, cq: ClusterQueueState) -> tuple[bool, bool, int, float, str]:
        """CandidatesOrdering of a queue's first candidate, to break a tie between queues."""
        return self.candidates[cq.name][0].candidate_order(self.preemptor.name)

    def _on_preemptor_path(self, cohort: Cohort) -> bool:
        return any(a is cohort for a in self.preemptor.ancestors())

    def _next(self, cohort: Cohort) -> ClusterQueueState | None:
        best_cq: ClusterQueueState | None = None
        best_cq_drs = NEGATIVE
        for cq in cohort.members:
            if id(cq) in self.pruned:
                continue
            drs = share(cq, cq.fair_weight)
            if (not drs.borrowing and cq is not self.preemptor) or not self.has_workload(cq):
                self.pruned.add(id(cq))
            elif best_cq is not None and compare(drs, best_cq_drs) == 0:
                if self._first_order(cq) < self._first_order(best_cq):
                    best_cq = cq
            elif compare(drs, best_cq_drs) == 1:
                best_cq, best_cq_drs = cq, drs
        best_cohort: Cohort | None = None
        best_cohort_drs = NEGATIVE
        for child in cohort.child_cohorts:
            if id(child) in self.pruned:
                continue
            drs = share(child, child.fair_weight)
            if not drs.borrowing and not self._on_preemptor_path(child):
                self.pruned.add(id(child))
            elif compare(drs, best_cohort_drs) >= 0:
                best_cohort, best_cohort_drs = child, drs
        if best_cohort is None and best_cq is None:
            self.pruned.add(id(cohort))
            return None
        # A tie goes to the Cohort: the most unfair node within it can be chosen.
        if best_cohort is not None and compare(best_cohort_drs, best_cq_drs) >= 0:
            return self._next(best_cohort)
        return best_cq


def _almost_lcas(
    preemptor: ClusterQueueState, target: ClusterQueueState
) -> tuple[ResourceNode, ResourceNode]:
    """The nodes just below the lowest common ancestor, on each side."""
    lca = next(a for a in target.ancestors() if any(a is p for p in preemptor.ancestors()))
    return _below(preemptor, lca), _below(target, lca)


def _below(cq: ClusterQueueState, lca: Cohort) -> ResourceNode:
    node: ResourceNode = cq
    for ancestor in cq.ancestors():
        if ancestor is lca:
            return node
        node = ancestor
    raise AssertionError("no lowest common ancestor")


def _drs(node: ResourceNode) -> DRS:
    return share(node, node.fair_weight)


@dataclass
class FairSearch:
    """One fair-sharing preemption attempt for a workload needing ``usage`` in ``cq``."""

    cq: ClusterQueueState
    snapshot: Snapshot
    usage: Usage
    frs: set[FlavorResource]
    config: FairSharing
    targets: list[AdmittedWorkload] = field(default_factory=list)

    def run(self, candidates: list[AdmittedWorkload]) -> list[AdmittedWorkload]:
        """Kueue's fairPreemptions over ``candidates`` (already in CandidatesOrdering)."""
        if not candidates:
            return []
        strategies = [STRATEGIES[s] for s in self.config.preemption_strategies] or [
            STRATEGIES[LESS_THAN_OR_EQUAL_TO_FINAL_SHARE]
        ]
        self.cq.add_usage(self.usage)  # shares include the incoming workload
        try:
            fits, retry = self._first(candidates, strategies[0])
            if not fits and len(strategies) > 1:
                fits = self._second(retry)
        finally:
            self.cq.remove_usage(self.usage)
        if fits:
            self._fill_back()
        for wl in self.targets:
            self.snapshot.add_workload(wl)
        return self.targets if fits else []

    def _take(self, wl: AdmittedWorkload) -> bool:
        self.snapshot.remove_workload(wl)
        self.targets.append(wl)
        self.cq.remove_usage(self.usage)
        try:
            return self.cq.fits(self.usage)
        finally:
            self.cq.add_usage(self.usage)

    def _within_nominal(self) -> bool:
        return all(not self.cq.borrowing_with(fr, 0) for fr in self.frs)

    def _first(
        self, candidates: list[AdmittedWorkload], strategy: Strategy
    ) -> tuple[bool, list[AdmittedWorkload]]:
        ordering = _Ordering(self.cq, _by_queue(candidates))
        retry: list[AdmittedWorkload] = []
        within_nominal = self._within_nominal()
        for target in ordering:
            if target is self.cq or within_nominal:
                if self._take(ordering.pop(target)):
                    return True, []
                continue
            mine, theirs = _almost_lcas(self.cq, target)
            new_share, old_share = _drs(mine), _drs(theirs)
            if new_share.zero_weight_borrows() and not old_share.zero_weight_borrows():
                while ordering.has_workload(target):
                    retry.append(ordering.pop(target))  # no candidate here can pass
                continue
            while ordering.has_workload(target):
                wl = ordering.pop(target)
                target.remove_usage(wl.usage)
                after = _drs(_almost_lcas(self.cq, target)[1])
                target.add_usage(wl.usage)
                if strategy(new_share, old_share, after):
                    if self._take(wl):
                        return True, []
                    break  # the shares changed: pick the queue again
                retry.append(wl)
        return False, retry

    def _second(self, retry: list[AdmittedWorkload]) -> bool:
        """Rule S2-b: one workload per queue while the preemptor's share stays lower."""
        ordering = _Ordering(self.cq, _by_queue(retry))
        for target in ordering:
            mine, theirs = _almost_lcas(self.cq, target)
            passed = STRATEGIES[LESS_THAN_INITIAL_SHARE](_drs(mine), _drs(theirs), NEGATIVE)
            wl = ordering.pop(target)
            if passed and self._take(wl):
                return True
            ordering.drop(target)
        return False

    def _fill_back(self) -> None:
        """Put back, last removed first, what is not needed (borrowing allowed)."""
        for i in range(len(self.targets) - 2, -1, -1):
            self.snapshot.add_workload(self.targets[i])
            if self.cq.fits(self.usage):
                del self.targets[i]
            else:
                self.snapshot.remove_workload(self.targets[i])


def _by_queue(candidates: list[AdmittedWorkload]) -> dict[str, list[AdmittedWorkload]]:
    queues: dict[str, list[AdmittedWorkload]] = {}
    for wl in candidates:
        queues.setdefault(wl.cluster_queue, []).append(wl)
    return queues
