"""From manifests to the admission snapshot: quota tree, admitted usage, queued workloads.

Quotas are parsed here so a bad quantity is reported with its document and field. A
ClusterQueue that names a missing ResourceFlavor, or whose ``stopPolicy`` holds it, is
inactive (Kueue's ``Active=False``): its workloads wait. Workloads that never reach a
ClusterQueue (no LocalQueue, no ClusterQueue, inactive, no queue name) are pending with
their reason and block nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from services.scheduler.api.status import Code, Status
from services.scheduler.kueue.model import (
    ANY,
    BEST_EFFORT_FIFO,
    LOWER_OR_NEWER_EQUAL_PRIORITY,
    LOWER_PRIORITY,
    MAY_STOP_SEARCH,
    NEVER,
    STRICT_FIFO,
    TRY_NEXT_FLAVOR,
    ClusterQueueState,
    Fungibility,
    Preemption,
    Quota,
    ResourceGroup,
    Snapshot,
)
from services.scheduler.kueue.queue_manager import Changes, Placement, QueueManager
from services.scheduler.kueue.tree import link
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    FlavorResource,
    Priorities,
    WorkloadInfo,
    admitted_usage,
    condition,
    condition_true,
    document_of,
    is_finished,
    parse_time,
    workload_info,
)
from shared.errors import ManifestError, QuantityError
from shared.models import (
    ClusterQueue,
    LocalQueue,
    Model,
    Namespace,
    PriorityClass,
    ResourceFlavor,
    Workload,
)
from shared.models.base import Json
from shared.models.kueue import Cohort
from shared.models.kueue import ResourceGroup as ResourceGroupSpec
from shared.quantities import parse_quantity

PLUGIN = "queue"
M = TypeVar("M", bound=Model)
_WITHIN = (NEVER, LOWER_PRIORITY, LOWER_OR_NEWER_EQUAL_PRIORITY)
_RECLAIM = (NEVER, LOWER_PRIORITY, ANY)
_STRATEGIES = (STRICT_FIFO, BEST_EFFORT_FIFO)
# FlavorFungibility values (apis/kueue/v1beta1/clusterqueue_types.go); ``Borrow`` and
# ``Preempt`` are the deprecated names of ``MayStopSearch``, converted as Kueue's webhook does.
_FUNGIBILITY = {
    "whenCanBorrow": (MAY_STOP_SEARCH, TRY_NEXT_FLAVOR, "Borrow"),
    "whenCanPreempt": (MAY_STOP_SEARCH, TRY_NEXT_FLAVOR, "Preempt"),
    "preference": ("BorrowingOverPreemption", "PreemptionOverBorrowing"),
}
# v1beta1's deprecated names for MayStopSearch.
_OLD_FUNGIBILITY = {"Borrow": MAY_STOP_SEARCH, "Preempt": MAY_STOP_SEARCH}


@dataclass
class Inputs:
    snapshot: Snapshot
    queued: dict[str, list[WorkloadInfo]] = field(default_factory=dict)
    """ClusterQueue name → its pending workloads in queue order (priority, then queue
    timestamp); not to be changed (a ``QueueManager`` keeps them for the next run)."""
    unqueued: dict[str, Status] = field(default_factory=dict)
    """Pending workloads that reach no ClusterQueue, with the reason."""
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    workloads: list[WorkloadInfo] = field(default_factory=list)
    """Every Workload but the finished ones, decoded, in input order."""
    admissible: dict[tuple[str, str], int] | None = None
    """Workloads that may be admitted per LocalQueue, when a queue manager counted them."""


def build(
    objects: Sequence[Model],
    *,
    now: datetime,
    source: str = "input",
    kept: QueueManager | None = None,
    changes: Changes | None = None,
) -> Inputs:
    """The run's inputs; ``kept`` reuses what earlier runs found (``queue_manager``), and
    ``changes`` says which Workloads changed since (``QueueManager.run``)."""
    kinds = _Kinds(objects)
    flavors = {f.metadata.name: f for f in kinds.of(ResourceFlavor)}
    specs = kinds.of(ClusterQueue)
    states = [_cluster_queue(cq, flavors, source) for cq in specs]
    # v1beta2 names it cohortName.
    names = [cq.spec.cohortName or cq.spec.cohort for cq in specs]
    cohorts = link(
        list(zip(states, names, strict=True)),
        kinds.of(Cohort),
        lambda co: _cohort(co, source),
    )
    snapshot = Snapshot({s.name: s for s in states}, cohorts, flavors)
    inputs = Inputs(snapshot=snapshot, namespace_labels=_namespace_labels(kinds))
    local_queues = {
        (lq.metadata.namespace or "default", lq.metadata.name): lq.spec.clusterQueue
        for lq in kinds.of(LocalQueue)
    }
    priorities = Priorities(kinds.of(PriorityClass))
    workloads = kinds.of(Workload)

    def place(info: WorkloadInfo) -> Placement:
        return _placement(snapshot, info, local_queues.get(info.local_queue), source)

    if kept is not None:
        routing = (source, local_queues, [(s.name, s.groups) for s in states])
        inputs.workloads, inputs.queued = kept.run(
            workloads,
            priorities=priorities,
            routing=routing,
            place=place,
            now=now,
            source=source,
            snapshot=snapshot,
            unqueued=inputs.unqueued,
            changes=changes,
        )
        inputs.admissible = kept.admissible()
        return inputs
    seen: set[str] = set()
    for wl in workloads:
        if is_finished(wl):
            continue
        info = workload_info(wl, priorities=priorities, now=now, source=source)
        if info.key in seen:
            raise ManifestError("duplicate Workload", document=document_of(wl, source))
        seen.add(info.key)
        inputs.workloads.append(info)
        placement = place(info)
        if placement.admitted is not None:
            snapshot.add_workload(placement.admitted)
        elif placement.unqueued is not None:
            inputs.unqueued[info.key] = placement.unqueued
        elif placement.queue is not None:
            inputs.queued.setdefault(placement.queue, []).append(info)
    for queue in inputs.queued.values():
        queue.sort(key=_queue_order)
    return inputs


class _Kinds:
    """The input objects grouped by type in one pass: with thousands of Workloads, a walk
    over all of them per kind looked up was a good part of a run."""

    def __init__(self, objects: Iterable[Model]) -> None:
        self.by_type: dict[type, list[Model]] = {}
        for obj in objects:
            found = self.by_type.get(type(obj))
            if found is None:
                found = self.by_type[type(obj)] = []
            found.append(obj)

    def of(self, model: type[M]) -> list[M]:
        """As ``of_kind``: the objects that are ``model`` (in input order within a type)."""
        groups = [group for t, group in self.by_type.items() if issubclass(t, model)]
        if len(groups) == 1:
            return groups[0]  # type: ignore[return-value]
        return [obj for group in groups for obj in group]  # type: ignore[misc]


def _queue_order(info: WorkloadInfo) -> tuple[int, datetime, str]:
    return info.queue_order


def _placement(
    snapshot: Snapshot, info: WorkloadInfo, cq_name: str | None, source: str
) -> Placement:
    """Where ``info`` stands: holding quota, waiting in a ClusterQueue, or in none."""
    if info.has_quota_reservation:
        admission = info.obj.status.admission
        held = admission.clusterQueue if admission else cq_name
        return Placement(admitted=_admitted(snapshot, info, held, source))
    queues = snapshot.cluster_queues
    if info.obj.spec.active is False:
        return Placement(unqueued=_why("Inactive", "the workload is deactivated (spec.active)"))
    if not info.queue_name:
        return Placement(unqueued=_why("NoQueueName", "spec.queueName is not set"))
    if cq_name is None:
        return Placement(
            unqueued=_why(
                "LocalQueueNotFound",
                f"LocalQueue {info.namespace}/{info.queue_name} doesn't exist",
            )
        )
    if cq_name not in queues:
        return Placement(
            unqueued=_why("ClusterQueueNotFound", f"ClusterQueue {cq_name} doesn't exist")
        )
    return Placement(queue=cq_name)


def _admitted(
    snapshot: Snapshot, info: WorkloadInfo, cq_name: str | None, source: str
) -> AdmittedWorkload | None:
    """An admitted workload's usage; one admitted to an unknown queue counts nowhere."""
    cq = snapshot.cluster_queues.get(cq_name or "")
    if cq is None:
        return None
    covered_pods = cq.covers("pods")
    fallback = {
        ps.name: {
            res: group.flavors[0]
            for res in ps.requests(count_pods=covered_pods)
            if (group := cq.group_of(res)) is not None and group.flavors
        }
        for ps in info.podsets
    }
    flavors, counts, usage = admitted_usage(
        info, covered_pods=covered_pods, fallback=fallback, source=source
    )
    document = document_of(info.obj, source)
    reserved = condition(info.obj, "QuotaReserved") or condition(info.obj, "Admitted")
    admitted_at = None
    if reserved is not None:
        admitted_at = parse_time(
            reserved.lastTransitionTime, document=document, field="status.conditions"
        )
    return AdmittedWorkload(
        info=info,
        cluster_queue=cq.name,
        flavors=flavors,
        counts=counts,
        usage=usage,
        admitted_at=admitted_at or info.timestamp,
        evicted=condition_true(info.obj, "Evicted"),
    )


def _why(reason: str, message: str) -> Status:
    return Status(code=Code.UNRESOLVABLE, reason=reason, message=message, plugin=PLUGIN)


def _namespace_labels(kinds: _Kinds) -> dict[str, dict[str, str]]:
    return {ns.metadata.name: dict(ns.metadata.labels) for ns in kinds.of(Namespace)}


def _cluster_queue(
    cq: ClusterQueue, flavors: dict[str, ResourceFlavor], source: str
) -> ClusterQueueState:
    document = f"{source} (ClusterQueue {cq.metadata.name})"
    if not cq.metadata.name:
        raise ManifestError("missing name", document=document, field="metadata.name")
    spec = cq.spec
    _check(spec.queueingStrategy, _STRATEGIES, document, "spec.queueingStrategy")
    groups, quotas = _quotas(spec.resourceGroups, document)
    missing = sorted({f for g in groups for f in g.flavors if f not in flavors})
    inactive = f"ResourceFlavor {', '.join(missing)} not found" if missing else None
    if spec.stopPolicy in ("Hold", "HoldAndDrain"):
        inactive = f"stopPolicy is {spec.stopPolicy}"
    if cq.metadata.deletionTimestamp:
        inactive = "it is terminating"
    return ClusterQueueState(
        name=cq.metadata.name,
        groups=groups,
        quotas=quotas,
        strategy=spec.queueingStrategy,
        namespace_selector=spec.namespaceSelector,
        preemption=_preemption(cq, document),
        fungibility=_fungibility(cq, document),
        inactive_reason=inactive,
        fair_weight=_weight(spec.fairSharing, document),
    )


def _cohort(cohort: Cohort, source: str) -> tuple[dict[FlavorResource, Quota], float]:
    document = f"{source} (Cohort {cohort.metadata.name})"
    _, quotas = _quotas(cohort.spec.resourceGroups, document)
    return quotas, _weight(cohort.spec.fairSharing, document)


def _weight(fair_sharing: Json | None, document: str) -> float:
    """``fairSharing.weight`` (a quantity, 1 when unset) as a number."""
    weight = (fair_sharing or {}).get("weight")
    if weight is None:
        return 1.0
    return _milli(weight, document, "spec.fairSharing.weight") / 1000


def _quotas(
    resource_groups: Sequence[ResourceGroupSpec], document: str
) -> tuple[tuple[ResourceGroup, ...], dict[FlavorResource, Quota]]:
    """A ClusterQueue's or Cohort's ``resourceGroups``: the groups and quota per flavor."""
    groups: list[ResourceGroup] = []
    quotas: dict[FlavorResource, Quota] = {}
    for i, group in enumerate(resource_groups):
        covered = tuple(group.coveredResources)
        for j, flavor in enumerate(group.flavors):
            where = f"spec.resourceGroups[{i}].flavors[{j}]"
            if sorted(r.name for r in flavor.resources) != sorted(covered):
                raise ManifestError(
                    f"resources must be the group's coveredResources {list(covered)}",
                    document=document,
                    field=f"{where}.resources",
                )
            for k, res in enumerate(flavor.resources):
                field_ = f"{where}.resources[{k}]"
                quotas[(flavor.name, res.name)] = Quota(
                    nominal=_milli(res.nominalQuota, document, f"{field_}.nominalQuota"),
                    borrowing_limit=_optional_milli(
                        res.borrowingLimit, document, f"{field_}.borrowingLimit"
                    ),
                    lending_limit=_optional_milli(
                        res.lendingLimit, document, f"{field_}.lendingLimit"
                    ),
                )
        groups.append(ResourceGroup(covered, tuple(f.name for f in group.flavors)))
    return tuple(groups), quotas


def _preemption(cq: ClusterQueue, document: str) -> Preemption:
    p = cq.spec.preemption
    if p is None:
        return Preemption()
    _check(p.withinClusterQueue, _WITHIN, document, "spec.preemption.withinClusterQueue")
    _check(p.reclaimWithinCohort, _RECLAIM, document, "spec.preemption.reclaimWithinCohort")
    borrow = p.borrowWithinCohort or {}
    policy = borrow.get("policy", NEVER)
    _check(policy, (NEVER, LOWER_PRIORITY), document, "spec.preemption.borrowWithinCohort.policy")
    threshold = borrow.get("maxPriorityThreshold")
    if threshold is not None and not isinstance(threshold, int):
        raise ManifestError(
            "expected an integer",
            document=document,
            field="spec.preemption.borrowWithinCohort.maxPriorityThreshold",
        )
    return Preemption(p.withinClusterQueue, p.reclaimWithinCohort, policy, threshold)


def _fungibility(cq: ClusterQueue, document: str) -> Fungibility:
    given = cq.spec.flavorFungibility or {}
    for key, allowed in _FUNGIBILITY.items():
        if key in given:
            _check(given[key], allowed, document, f"spec.flavorFungibility.{key}")
    borrow = given.get("whenCanBorrow", MAY_STOP_SEARCH)
    preempt = given.get("whenCanPreempt", TRY_NEXT_FLAVOR)
    return Fungibility(
        when_can_borrow=_OLD_FUNGIBILITY.get(borrow) or borrow,
        when_can_preempt=_OLD_FUNGIBILITY.get(preempt) or preempt,
        preference=given.get("preference"),
    )


def _check(value: object, allowed: Sequence[str], document: str, field_: str) -> None:
    if value not in allowed:
        raise ManifestError(
            f"unsupported value {value!r}: expected one of {', '.join(allowed)}",
            document=document,
            field=field_,
        )


def _milli(quantity: str | int | float, document: str, field_: str) -> int:
    try:
        return parse_quantity(quantity).milli()
    except QuantityError as exc:
        raise ManifestError(str(exc), document=document, field=field_) from None


def _optional_milli(quantity: str | int | float | None, document: str, field_: str) -> int | None:
    return None if quantity is None else _milli(quantity, document, field_)
