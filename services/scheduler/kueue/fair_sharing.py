"""Fair sharing: the dominant resource share of ClusterQueues and Cohorts.

Kueue's ``pkg/cache/scheduler/fair_sharing.go``. A node's share is, over the resources it
borrows (usage, plus a workload's request, above its subtree quota), the largest ratio of
what it borrows to what the tree could lend it (the parent's potential available, summed over
the flavors the root knows), times 1000, divided by its ``fairSharing.weight``. A node that
borrows with weight 0 has an infinite share; one that borrows nothing has 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, TypeVar

from services.scheduler.kueue.model import ClusterQueueState, Cohort, ResourceNode
from services.scheduler.kueue.workloads import FlavorResource, Usage

E = TypeVar("E")

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"


@dataclass(frozen=True)
class FairSharing:
    """Kueue's Configuration ``fairSharing``: on, with its preemption strategies in order."""

    preemption_strategies: tuple[str, ...] = (
        LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
        LESS_THAN_INITIAL_SHARE,
    )


@dataclass(frozen=True)
class DRS:
    """Kueue's DRS: a node's dominant resource share, compared with ``compare``."""

    weight: float = 1.0
    ratio: float = 0.0
    """The unweighted share (0 when not borrowing, -1 for the comparisons' start)."""
    resource: str = ""
    borrowed: tuple[FlavorResource, ...] = field(default=())

    @property
    def borrowing(self) -> bool:
        return bool(self.borrowed)

    def weighted(self) -> float:
        """Kueue's PreciseWeightedShare."""
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return math.inf
        return self.ratio / self.weight

    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.ratio != 0

    def borrowing_on(self, requested: Usage) -> bool:
        """Kueue's IsBorrowingOn: borrowing on a flavor/resource the request uses."""
        return any(requested.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE = DRS(ratio=-1.0)


def compare(a: DRS, b: DRS) -> int:
    """Kueue's CompareDRS: lower is preferred for scheduling, higher for preemption."""
    if a.zero_weight_borrows() and b.zero_weight_borrows():
        return _cmp(a.ratio, b.ratio)
    if a.zero_weight_borrows():
        return 1
    if b.zero_weight_borrows():
        return -1
    return _cmp(a.weighted(), b.weighted())


def share(
    node: ResourceNode, weight: float, request: Usage | None = None, *, usage: Usage | None = None
) -> DRS:
    """Kueue's dominantResourceShare of ``node``, with ``request`` added to its usage
    (``usage`` in place of the node's own, when given)."""
    if node.parent is None:
        return DRS(weight=weight)
    request = request or {}
    used = node.usage if usage is None else usage
    borrowed: list[FlavorResource] = []
    by_resource: dict[str, int] = {}
    for fr, quota in node.subtree_quota.items():
        over = request.get(fr, 0) + used.get(fr, 0) - quota
        if over > 0:
            by_resource[fr[1]] = by_resource.get(fr[1], 0) + over
            borrowed.append(fr)
    if not by_resource:
        return DRS(weight=weight)
    lendable = _lendable(node)
    ratio, dominant = 0.0, ""
    for resource, amount in sorted(by_resource.items()):
        capacity = lendable.get(resource, 0)
        if capacity > 0:
            value = amount * 1000.0 / capacity
            if value > ratio:
                ratio, dominant = value, resource
    return DRS(weight=weight, ratio=ratio, resource=dominant, borrowed=tuple(borrowed))


def _lendable(node: ResourceNode) -> dict[str, int]:
    """Kueue's calculateLendable: per resource, what the parent could ever give."""
    parent = node.parent
    assert parent is not None
    root = parent.root()
    lendable: dict[str, int] = {}
    for fr in root.subtree_quota:
        lendable[fr[1]] = lendable.get(fr[1], 0) + parent.potential_available(fr)
    return lendable


def _cmp(a: float, b: float) -> int:
    return (a > b) - (a < b)


@dataclass(frozen=True)
class Nominee(Generic[E]):
    """A ClusterQueue's head as the fair-sharing tournament sees it."""

    entry: E
    key: str
    queue: ClusterQueueState
    usage: Usage
    priority: int
    timestamp: datetime


def fairest(
    nominees: Sequence[Nominee[E]], first: Callable[[Sequence[Nominee[E]]], Nominee[E]]
) -> Nominee[E]:
    """Kueue's fairSharingIterator.pop: the next head to process.

    ``first`` picks the queue to start from (Kueue takes any); in a cohort tree the
    tournament from its root picks the head whose admission leaves its side the lowest
    share (not borrowing on its flavors first, then the share, priority, age).
    """
    start = first(nominees)
    if start.queue.parent is None:
        return start
    by_queue = {id(n.queue): n for n in nominees}
    root = start.queue.parent.root()
    shares = _tournament_shares(root, by_queue)
    winner = _tournament(root, by_queue, shares)
    assert winner is not None
    return winner


def _tournament_shares(root: Cohort, by_queue: dict[int, Nominee[E]]) -> dict[tuple[int, str], DRS]:
    """Per (cohort, head): the share of the cohort's child on the head's side with the head
    admitted (Kueue's computeDRS)."""
    shares: dict[tuple[int, str], DRS] = {}
    for cq in root.subtree_queues():
        nominee = by_queue.get(id(cq))
        if nominee is None:
            continue
        cq.add_usage(nominee.usage)
        drs = share(cq, cq.fair_weight)
        for ancestor in cq.ancestors():
            shares[(id(ancestor), nominee.key)] = drs
            drs = share(ancestor, ancestor.fair_weight)
        cq.remove_usage(nominee.usage)
    return shares


def _tournament(
    cohort: Cohort, by_queue: dict[int, Nominee[E]], shares: dict[tuple[int, str], DRS]
) -> Nominee[E] | None:
    candidates = [
        winner
        for child in cohort.child_cohorts
        if (winner := _tournament(child, by_queue, shares)) is not None
    ]
    candidates += [by_queue[id(cq)] for cq in cohort.members if id(cq) in by_queue]
    if not candidates:
        return None
    best = candidates[0]
    for current in candidates[1:]:
        if _less(current, best, shares[(id(cohort), current.key)], shares[(id(cohort), best.key)]):
            best = current
    return best


def _less(a: Nominee[E], b: Nominee[E], a_drs: DRS, b_drs: DRS) -> bool:
    """Kueue's entryComparer.less."""
    a_borrowing, b_borrowing = a_drs.borrowing_on(a.usage), b_drs.borrowing_on(b.usage)
    if a_borrowing != b_borrowing:  # FairSharingPrioritizeNonBorrowing
        return not a_borrowing
    order = compare(a_drs, b_drs)
    if order != 0:
        return order == -1
    if a.priority != b.priority:
        return a.priority > b.priority
    return a.timestamp < b.timestamp
