"""The quota tree: ClusterQueues and Cohorts as Kueue's resource nodes, and usage.

A tree of Cohorts (``spec.parentName``) with ClusterQueues at the leaves, as Kueue's cache
(``pkg/cache/scheduler/resource_node.go``). Per (flavor, resource) every node has:

- ``quotas``: its own nominal quota, borrowingLimit and lendingLimit (a Cohort's
  ``resourceGroups`` are quota of its own, shared by its subtree);
- ``subtree_quota``: its nominal quota plus what its children lend it (a child lends its
  subtree quota minus its *local quota*, the part its lendingLimit keeps for itself);
- ``usage``: a ClusterQueue's usage; a Cohort's is what its children use beyond their
  local quota.

What a ClusterQueue may still use is its local quota left plus what its parent has left,
capped at each level by the borrowingLimit (Kueue's ``available``). How far a request has to
borrow is the height of the lowest subtree that covers it (the *borrowing level*).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from services.scheduler.kueue.workloads import AdmittedWorkload, FlavorResource, Usage
from shared.models import LabelSelector, ResourceFlavor

NEVER = "Never"
LOWER_PRIORITY = "LowerPriority"
LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority"
ANY = "Any"
STRICT_FIFO = "StrictFIFO"
BEST_EFFORT_FIFO = "BestEffortFIFO"
MAY_STOP_SEARCH = "MayStopSearch"
TRY_NEXT_FLAVOR = "TryNextFlavor"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"


@dataclass(frozen=True)
class Quota:
    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(frozen=True)
class ResourceGroup:
    resources: tuple[str, ...]
    flavors: tuple[str, ...]
    """In the order they are tried."""


@dataclass(frozen=True)
class Preemption:
    within_cluster_queue: str = NEVER
    reclaim_within_cohort: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None


@dataclass(frozen=True)
class Fungibility:
    when_can_borrow: str = MAY_STOP_SEARCH
    when_can_preempt: str = TRY_NEXT_FLAVOR
    preference: str | None = None
    """BorrowingOverPreemption (the default when unset) or PreemptionOverBorrowing."""


@dataclass(kw_only=True, eq=False)
class ResourceNode:
    """What ClusterQueues and Cohorts share: quota, subtree quota, usage, the parent."""

    name: str
    quotas: dict[FlavorResource, Quota] = field(default_factory=dict)
    subtree_quota: Usage = field(default_factory=dict)
    usage: Usage = field(default_factory=dict)
    parent: Cohort | None = None
    fair_weight: float = 1.0
    """``fairSharing.weight``: how much of the shared quota this node deserves."""

    def quota(self, fr: FlavorResource) -> Quota:
        return self.quotas.get(fr, Quota())

    def ancestors(self) -> Iterator[Cohort]:
        """The parent, its parent, ... up to the root."""
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def local_quota(self, fr: FlavorResource) -> int:
        """The capacity kept for this subtree by its lendingLimit, never lent upwards."""
        limit = self.quota(fr).lending_limit
        return 0 if limit is None else max(0, self.subtree_quota.get(fr, 0) - limit)

    def local_available(self, fr: FlavorResource) -> int:
        return max(0, self.local_quota(fr) - self.usage.get(fr, 0))

    def raw_available(self, fr: FlavorResource) -> int:
        """Kueue's ``available``: may be negative when over-admitted."""
        if self.parent is None:
            return self.subtree_quota.get(fr, 0) - self.usage.get(fr, 0)
        from_parent = self.parent.raw_available(fr)
        limit = self.quota(fr).borrowing_limit
        if limit is not None:
            local = self.local_quota(fr)
            stored = self.subtree_quota.get(fr, 0) - local
            used_in_parent = max(0, self.usage.get(fr, 0) - local)
            from_parent = min(stored - used_in_parent + limit, from_parent)
        return self.local_available(fr) + from_parent

    def potential_available(self, fr: FlavorResource) -> int:
        """The most this node could ever use, with nothing admitted anywhere."""
        if self.parent is None:
            return self.subtree_quota.get(fr, 0)
        most = self.local_quota(fr) + self.parent.potential_available(fr)
        limit = self.quota(fr).borrowing_limit
        if limit is not None:
            most = min(self.subtree_quota.get(fr, 0) + limit, most)
        return most

    def add(self, fr: FlavorResource, amount: int) -> None:
        """Add usage; what exceeds the local quota left is used in the parent too."""
        local = self.local_available(fr)
        self.usage[fr] = self.usage.get(fr, 0) + amount
        if self.parent is not None and amount > local:
            self.parent.add(fr, amount - local)

    def remove(self, fr: FlavorResource, amount: int) -> None:
        stored_in_parent = self.usage.get(fr, 0) - self.local_quota(fr)
        self.usage[fr] = self.usage.get(fr, 0) - amount
        if stored_in_parent > 0 and self.parent is not None:
            self.parent.remove(fr, min(amount, stored_in_parent))

    def borrowing_with(self, fr: FlavorResource, amount: int) -> bool:
        return self.subtree_quota.get(fr, 0) < self.usage.get(fr, 0) + amount

    def within_nominal(self, frs: Iterable[FlavorResource]) -> bool:
        """Kueue's IsWithinNominalInResources: no usage above the subtree quota."""
        return all(self.usage.get(fr, 0) <= self.subtree_quota.get(fr, 0) for fr in frs)

    def fit_in_quota(self, requests: Usage) -> tuple[bool, Usage]:
        """Kueue's QuantitiesFitInQuota: do ``requests`` fit here, and what is left for the
        parent after this node's local quota."""
        fits = all(
            self.subtree_quota.get(fr, 0) >= self.usage.get(fr, 0) + v for fr, v in requests.items()
        )
        remaining = {fr: max(0, v - self.local_available(fr)) for fr, v in requests.items()}
        return fits, remaining


@dataclass(kw_only=True, eq=False)
class Cohort(ResourceNode):
    child_cohorts: list[Cohort] = field(default_factory=list)
    members: list[ClusterQueueState] = field(default_factory=list)
    """The ClusterQueues directly in this Cohort."""

    def root(self) -> Cohort:
        return self if self.parent is None else self.parent.root()

    def height(self) -> int:
        """Kueue's getNodeHeight: the distance to the furthest leaf."""
        most = min(len(self.child_cohorts) + len(self.members), 1)
        for child in self.child_cohorts:
            most = max(most, child.height() + 1)
        return most

    def subtree_queues(self) -> list[ClusterQueueState]:
        queues = list(self.members)
        for child in self.child_cohorts:
            queues.extend(child.subtree_queues())
        return queues


@dataclass(kw_only=True, eq=False)
class ClusterQueueState(ResourceNode):
    groups: tuple[ResourceGroup, ...]
    strategy: str = BEST_EFFORT_FIFO
    namespace_selector: LabelSelector | None = None
    preemption: Preemption = Preemption()
    fungibility: Fungibility = Fungibility()
    inactive_reason: str | None = None
    """Why the queue admits nothing (a missing ResourceFlavor, stopPolicy), or None."""
    workloads: dict[str, AdmittedWorkload] = field(default_factory=dict)

    def group_of(self, resource: str) -> ResourceGroup | None:
        return next((g for g in self.groups if resource in g.resources), None)

    def covers(self, resource: str) -> bool:
        return self.group_of(resource) is not None

    def available(self, fr: FlavorResource) -> int:
        """What this queue may still use: its own unused quota and what it may borrow."""
        return max(0, self.raw_available(fr))

    def is_borrowing(self, frs: Iterable[FlavorResource]) -> bool:
        """Kueue's cqIsBorrowing: in a cohort and above nominal quota in one of ``frs``."""
        return self.parent is not None and any(self.borrowing_with(fr, 0) for fr in frs)

    def fits(self, usage: Usage) -> bool:
        return all(amount <= self.available(fr) for fr, amount in usage.items())

    def add_usage(self, usage: Usage) -> None:
        for fr, amount in usage.items():
            self.add(fr, amount)

    def remove_usage(self, usage: Usage) -> None:
        for fr, amount in usage.items():
            self.remove(fr, amount)


def borrowing_level(cq: ClusterQueueState, fr: FlavorResource, amount: int) -> tuple[int, bool]:
    """Kueue's FindHeightOfLowestSubtreeThatFits: the height of the lowest subtree whose
    quota covers ``amount`` more (0 when the queue's own does), and whether that subtree is
    smaller than the whole tree (so quota could be reclaimed within it)."""
    if not cq.borrowing_with(fr, amount) or cq.parent is None:
        return 0, cq.parent is not None
    remaining = amount - cq.local_available(fr)
    for node in cq.ancestors():
        if not node.borrowing_with(fr, remaining):
            return node.height(), node.parent is not None
        remaining -= node.local_available(fr)
    return cq.parent.root().height(), False


@dataclass
class Snapshot:
    """Every ClusterQueue with its usage, the cohorts, and the ResourceFlavors."""

    cluster_queues: dict[str, ClusterQueueState]
    cohorts: dict[str, Cohort]
    flavors: dict[str, ResourceFlavor]

    def add_workload(self, wl: AdmittedWorkload) -> None:
        cq = self.cluster_queues[wl.cluster_queue]
        cq.workloads[wl.info.key] = wl
        cq.add_usage(wl.usage)

    def remove_workload(self, wl: AdmittedWorkload) -> None:
        cq = self.cluster_queues[wl.cluster_queue]
        del cq.workloads[wl.info.key]
        cq.remove_usage(wl.usage)

    @contextmanager
    def without(self, workloads: Iterable[AdmittedWorkload]) -> Iterator[None]:
        """Simulate the removal of ``workloads``; they are restored on exit."""
        unique = {w.info.key: w for w in workloads}
        removed = [
            w
            for w in unique.values()
            if w.info.key in self.cluster_queues[w.cluster_queue].workloads
        ]
        for wl in removed:
            self.remove_workload(wl)
        try:
            yield
        finally:
            for wl in removed:
                self.add_workload(wl)
