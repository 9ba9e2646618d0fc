"""The quota ClusterQueues, LocalQueues and Cohorts hold, as Kueue's cache reports it.

Kueue's queue reconcilers copy their cache's usage into the queues' status
(``pkg/cache/scheduler/cache.go``: ``Usage``/``getUsage``, ``LocalQueueUsage``/
``filterLocalQueueUsage``, ``CohortStats``):

- ``flavorsReservation`` counts every workload holding a quota reservation, ``flavorsUsage``
  (v1beta1 calls a LocalQueue's ``flavorUsage``) only the admitted ones — the same set here,
  as there are no admission checks, but for a reservation whose ``Admitted`` is not true;
- one entry per flavor of each resource group, in spec order, listing the group's covered
  resources sorted by name; ``total`` is what is used, and a ClusterQueue's ``borrowed`` what
  exceeds its nominal quota (0 outside a cohort); quantities as Kueue's ``ResourceFormatter``
  writes them (CPU in milli-units, memory, ephemeral storage and huge pages binary when whole
  in Ki..Ei, anything else decimal);
- with fair sharing on, ``fairSharing.weightedShare`` of each ClusterQueue and Cohort: its
  dominant resource share rounded up, the largest int64 for a borrowing node of weight 0.

The usage is that of the workloads holding quota after the run (a head waiting for its
preemptions holds some of the run's quota, but no reservation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from services.scheduler.kueue.fair_sharing import share
from services.scheduler.kueue.model import ClusterQueueState, ResourceNode, Snapshot
from services.scheduler.kueue.workloads import AdmittedWorkload, FlavorResource, Usage
from shared.quantities import canonical

Json = dict[str, Any]
MAX_INT64 = 2**63 - 1
_BINARY = ("memory", "ephemeral-storage")


@dataclass
class QueueUsage:
    """What the workloads holding quota in one queue use."""

    reserved: Usage = field(default_factory=dict)
    admitted: Usage = field(default_factory=dict)
    reserving: int = 0
    admitted_workloads: int = 0

    def add(self, wl: AdmittedWorkload, admitted: bool) -> None:
        self.reserving += 1
        _add(self.reserved, wl.usage)
        if admitted:
            self.admitted_workloads += 1
            _add(self.admitted, wl.usage)


def _add(total: Usage, usage: Usage) -> None:
    for fr, amount in usage.items():
        total[fr] = total.get(fr, 0) + amount


@dataclass
class Usages:
    """Every queue's usage after one admission run."""

    cluster_queues: dict[str, QueueUsage] = field(default_factory=dict)
    local_queues: dict[tuple[str, str, str], QueueUsage] = field(default_factory=dict)
    """(ClusterQueue, namespace, LocalQueue) → the usage of that LocalQueue's workloads."""

    @classmethod
    def of(cls, snapshot: Snapshot, is_admitted: Callable[[AdmittedWorkload], bool]) -> Usages:
        found = cls()
        for name, cq in snapshot.cluster_queues.items():
            queue = found.cluster_queues[name] = QueueUsage()
            for wl in cq.workloads.values():
                admitted = is_admitted(wl)
                queue.add(wl, admitted)
                local = (name, wl.info.namespace, wl.info.queue_name or "")
                found.local_queues.setdefault(local, QueueUsage()).add(wl, admitted)
        return found


def kueue_value(resource: str, milli: int) -> int:
    """Kueue's int64 for a quantity (``resources.ResourceValue``): CPU in milli-units,
    anything else in units rounded up."""
    return milli if resource == "cpu" else math.ceil(milli / 1000)


def resource_quantity(resource: str, value: int) -> str:
    """Kueue's ``ResourceFormatter.ResourceQuantity`` of a ``kueue_value``, as JSON."""
    if resource == "cpu":
        return canonical(Fraction(value, 1000))
    if resource in _BINARY or resource.startswith("hugepages-"):
        # newCanonicalQuantity: the BinarySI string parsed back, so one without a binary
        # suffix (1000000000) is DecimalSI again (1G).
        text = canonical(value, binary=True)
        return text if text.endswith("i") else canonical(value)
    return canonical(value)


def flavors_usage(cq: ClusterQueueState, usage: Usage, *, borrowed: bool) -> list[Json]:
    """``getUsage`` (``borrowed``) or ``filterLocalQueueUsage`` over ``cq``'s groups."""
    found: list[Json] = []
    for group in cq.groups:
        for flavor in group.flavors:
            resources: list[Json] = []
            for resource in sorted(group.resources):
                fr: FlavorResource = (flavor, resource)
                used = kueue_value(resource, usage.get(fr, 0))
                entry: Json = {"name": resource, "total": resource_quantity(resource, used)}
                if borrowed:
                    over = 0
                    if cq.parent is not None:  # "Enforce borrowed=0" outside a cohort
                        nominal = kueue_value(resource, cq.quota(fr).nominal)
                        over = max(0, used - nominal)
                    entry["borrowed"] = resource_quantity(resource, over)
                resources.append(entry)
            found.append({"name": flavor, "resources": resources})
    return found


def weighted_shares(snapshot: Snapshot, usages: Usages) -> dict[str, int]:
    """``fairSharing.weightedShare`` per ClusterQueue name and per ``cohort/<name>``."""
    tree: dict[int, Usage] = {}
    for name, cq in snapshot.cluster_queues.items():
        for fr, amount in usages.cluster_queues[name].reserved.items():
            _use(tree, cq, fr, amount)
    shares: dict[str, int] = {}
    for name, cq in snapshot.cluster_queues.items():
        shares[name] = _rounded(cq, tree)
    for name, cohort in snapshot.cohorts.items():
        shares[f"cohort/{name}"] = _rounded(cohort, tree)
    return shares


def _use(tree: dict[int, Usage], node: ResourceNode, fr: FlavorResource, amount: int) -> None:
    """``ResourceNode.add`` on a usage of our own: what the node's local quota does not take
    is used in its parent too."""
    used = tree.setdefault(id(node), {})
    local = max(0, node.local_quota(fr) - used.get(fr, 0))
    used[fr] = used.get(fr, 0) + amount
    if node.parent is not None and amount > local:
        _use(tree, node.parent, fr, amount - local)


def _rounded(node: ResourceNode, tree: dict[int, Usage]) -> int:
    """``core.WeightedShare(PreciseWeightedShare)``: rounded up, +Inf as the largest int64."""
    weighted = share(node, node.fair_weight, usage=tree.get(id(node), {})).weighted()
    return MAX_INT64 if math.isinf(weighted) else math.ceil(weighted)
