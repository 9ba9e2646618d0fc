"""The quota tree: ClusterQueues, the cohort they lend to and borrow from, and usage.

Kueue's resource nodes with one level of cohort (a cohort has no quota of its own). Per
(flavor, resource):

- a ClusterQueue's *guaranteed* quota is ``nominal - lendingLimit`` (0 without a
  lendingLimit): the part it never lends;
- the cohort's capacity is what its members lend, ``Σ (nominal - guaranteed)``, and its usage
  is what members use beyond their guaranteed quota, ``Σ max(0, usage - guaranteed)``;
- a ClusterQueue may use its unused guaranteed quota plus what the cohort has left, capped
  by its ``borrowingLimit`` above its nominal quota.
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


@dataclass
class Cohort:
    name: str
    members: list[ClusterQueueState] = field(default_factory=list)
    lendable: Usage = field(default_factory=dict)
    usage: Usage = field(default_factory=dict)


@dataclass
class ClusterQueueState:
    name: str
    groups: tuple[ResourceGroup, ...]
    quotas: dict[FlavorResource, Quota]
    strategy: str = BEST_EFFORT_FIFO
    namespace_selector: LabelSelector | None = None
    preemption: Preemption = Preemption()
    fungibility: Fungibility = Fungibility()
    inactive_reason: str | None = None
    """Why the queue admits nothing (a missing ResourceFlavor, stopPolicy), or None."""
    cohort: Cohort | None = None
    usage: Usage = field(default_factory=dict)
    workloads: dict[str, AdmittedWorkload] = field(default_factory=dict)

    def group_of(self, resource: str) -> ResourceGroup | None:
        return next((g for g in self.groups if resource in g.resources), None)

    def covers(self, resource: str) -> bool:
        return self.group_of(resource) is not None

    def quota(self, fr: FlavorResource) -> Quota:
        return self.quotas.get(fr, Quota())

    def guaranteed(self, fr: FlavorResource) -> int:
        quota = self.quota(fr)
        if quota.lending_limit is None:
            return 0
        return max(0, quota.nominal - quota.lending_limit)

    def available(self, fr: FlavorResource) -> int:
        """What this queue may still use: its own unused quota and what it may borrow."""
        quota, used = self.quota(fr), self.usage.get(fr, 0)
        if self.cohort is None:
            return quota.nominal - used
        guaranteed = self.guaranteed(fr)
        from_cohort = self.cohort.lendable.get(fr, 0) - self.cohort.usage.get(fr, 0)
        if quota.borrowing_limit is not None:
            stored = quota.nominal - guaranteed
            used_in_cohort = max(0, used - guaranteed)
            from_cohort = min(stored - used_in_cohort + quota.borrowing_limit, from_cohort)
        return max(0, guaranteed - used) + from_cohort

    def potential_available(self, fr: FlavorResource) -> int:
        """The most this queue could ever use, with nothing admitted anywhere."""
        quota = self.quota(fr)
        if self.cohort is None:
            return quota.nominal
        most = self.guaranteed(fr) + self.cohort.lendable.get(fr, 0)
        if quota.borrowing_limit is not None:
            most = min(quota.nominal + quota.borrowing_limit, most)
        return most

    def borrowing_with(self, fr: FlavorResource, amount: int) -> bool:
        return self.cohort is not None and self.usage.get(fr, 0) + amount > self.quota(fr).nominal

    def is_borrowing(self, frs: Iterable[FlavorResource]) -> bool:
        return self.cohort is not None and any(
            self.usage.get(fr, 0) > self.quota(fr).nominal for fr in frs
        )

    def fits(self, usage: Usage) -> bool:
        return all(amount <= self.available(fr) for fr, amount in usage.items())

    def under_nominal(self, usage: Usage) -> bool:
        """Every requested resource is below its nominal quota (before the request).

        A zero request (a resource the workload names but does not use) does not count.
        """
        return all(
            self.usage.get(fr, 0) < self.quota(fr).nominal for fr, amount in usage.items() if amount
        )

    def add_usage(self, usage: Usage) -> None:
        for fr, amount in usage.items():
            local = max(0, self.guaranteed(fr) - self.usage.get(fr, 0))
            self.usage[fr] = self.usage.get(fr, 0) + amount
            if self.cohort is not None and amount > local:
                self.cohort.usage[fr] = self.cohort.usage.get(fr, 0) + amount - local

    def remove_usage(self, usage: Usage) -> None:
        for fr, amount in usage.items():
            stored_in_cohort = self.usage.get(fr, 0) - self.guaranteed(fr)
            self.usage[fr] = self.usage.get(fr, 0) - amount
            if self.cohort is not None and stored_in_cohort > 0:
                self.cohort.usage[fr] -= min(amount, stored_in_cohort)


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
        removed = [
            w for w in workloads if w.info.key in self.cluster_queues[w.cluster_queue].workloads
        ]
        for wl in removed:
            self.remove_workload(wl)
        try:
            yield
        finally:
            for wl in removed:
                self.add_workload(wl)


def link_cohorts(queues: Iterable[tuple[ClusterQueueState, str | None]]) -> dict[str, Cohort]:
    """Attach each queue to its named cohort and total what the members lend."""
    cohorts: dict[str, Cohort] = {}
    for cq, name in queues:
        if name is None:
            continue
        cohort = cohorts.setdefault(name, Cohort(name=name))
        cohort.members.append(cq)
        cq.cohort = cohort
        for fr, quota in cq.quotas.items():
            lent = quota.nominal - cq.guaranteed(fr)
            cohort.lendable[fr] = cohort.lendable.get(fr, 0) + lent
    return cohorts
