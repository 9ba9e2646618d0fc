"""Workloads as admission sees them: priority, queue-order timestamp, requests per pod set.

A Workload's priority is ``spec.priority`` (Kueue's webhook fills it from the PriorityClass);
when a manifest carries only a class name, the PriorityClass in the same file gives the value,
then a ``globalDefault`` class, then 0. Its place in the queue is its creation time, or the
time it was last evicted (Kueue's default ``requeuingTimestamp: Eviction``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property

import msgspec

from shared.errors import ManifestError, QuantityError
from shared.kube.timefmt import parse_datetime
from shared.models import PodSpec, PriorityClass, Workload, convert, object_key
from shared.models.base import Condition
from shared.quantities import parse_quantity
from shared.resources import PODS, Resources, spec_requests

FlavorResource = tuple[str, str]
"""(flavor name, resource name): the unit quota is kept in."""

Usage = dict[FlavorResource, int]
"""Milli-units used or requested per flavor and resource."""


@dataclass(frozen=True)
class PodSetInfo:
    name: str
    count: int
    per_pod: Resources
    """Requests of one pod (containers, init containers, overhead)."""
    spec: PodSpec
    """The pod template's spec: nodeSelector, affinity and tolerations pick flavors."""
    min_count: int | None = None
    """``minCount``: the fewest pods partial admission may admit."""
    named: frozenset[str] = frozenset()
    """Every resource the containers request, zero requests included (they get a flavor)."""

    def scaled(self, count: int) -> PodSetInfo:
        return replace(self, count=count)

    def requests(self, *, count_pods: bool) -> dict[str, int]:
        """Requests of all ``count`` pods; ``pods`` counts too when the queue covers it."""
        total = {name: 0 for name in self.named}
        total.update(self.per_pod.scale(self.count))
        if count_pods:
            total[PODS] = self.count * 1000
        return total


@dataclass(frozen=True)
class WorkloadInfo:
    key: str
    namespace: str
    queue_name: str | None
    priority: int
    timestamp: datetime
    """Queue order: creation time, or the last eviction."""
    podsets: tuple[PodSetInfo, ...]
    obj: Workload

    @cached_property
    def shape(self) -> bytes:
        """What flavor assignment and preemption read of the pod sets (Kueue's scheduling
        equivalence shape, with the priority kept apart): equal shapes in the same queue and
        snapshot get the same verdict."""
        return msgspec.json.encode(
            [(ps.name, ps.count, ps.min_count, sorted(ps.named), ps.spec) for ps in self.podsets]
        )

    @cached_property
    def local_queue(self) -> tuple[str, str]:
        """(namespace, LocalQueue name)."""
        return (self.namespace, self.queue_name or "")

    @cached_property
    def equivalence(self) -> tuple[str, int, bytes]:
        """What equivalent heads of one queue share but their age: namespace, priority,
        shape."""
        return (self.namespace, self.priority, self.shape)

    # Facts of the object read by every run; an info lives as long as its object is
    # unchanged (``queue_manager``), so each is found once per object, not once per run.

    @cached_property
    def queue_order(self) -> tuple[int, datetime, str]:
        """Its place in its ClusterQueue: higher priority first, then the queue timestamp."""
        return (-self.priority, self.timestamp, self.key)

    @cached_property
    def has_quota_reservation(self) -> bool:
        return holds_quota(self.obj)

    @cached_property
    def shown_waiting(self) -> tuple[str, str] | None:
        """The reason and message of its ``QuotaReserved=False`` condition when that is all
        the condition says (type, status, reason, message and the transition time, as
        ``set_condition`` writes it); else None."""
        found = condition(self.obj, "QuotaReserved")
        if found is None or found.status != "False":
            return None
        shown = msgspec.to_builtins(found)
        if shown.keys() - {"lastTransitionTime"} != _SHOWN_WAITING:
            return None
        return shown["reason"], shown["message"]


_SHOWN_WAITING = {"type", "status", "reason", "message"}


@dataclass(frozen=True)
class AdmittedWorkload:
    """A workload holding quota in a ClusterQueue (admitted before or during this cycle)."""

    info: WorkloadInfo
    cluster_queue: str
    flavors: dict[str, dict[str, str]]
    """Pod set name → resource → flavor."""
    counts: dict[str, int]
    usage: Usage
    admitted_at: datetime
    evicted: bool = False

    def uses_any(self, frs: Iterable[FlavorResource]) -> bool:
        return any(fr in self.usage for fr in frs)

    def candidate_order(
        self, preemptor_queue: str, preempting: Collection[str] = ()
    ) -> tuple[bool, bool, int, float, str]:
        """Kueue's CandidatesOrdering as a sort key: already evicted (or being preempted in
        this cycle) first, other queues before the preemptor's, lower priority, most
        recently admitted."""
        return (
            not (self.evicted or self.info.key in preempting),
            self.cluster_queue == preemptor_queue,
            self.info.priority,
            -self.admitted_at.timestamp(),
            self.info.key,
        )


class Priorities:
    """PriorityClass values by name, and the ``globalDefault`` one."""

    def __init__(self, classes: Sequence[PriorityClass]) -> None:
        self.by_name = {pc.metadata.name: pc.value for pc in classes}
        defaults = [pc.value for pc in classes if pc.globalDefault]
        self.default = defaults[0] if defaults else 0

    def same(self, other: Priorities) -> bool:
        return self.by_name == other.by_name and self.default == other.default

    def of(self, wl: Workload, template: PodSpec | None, *, document: str) -> int:
        if wl.spec.priority is not None:
            return wl.spec.priority
        ref = wl.spec.priorityClassRef or {}
        name = (
            wl.spec.priorityClassName
            or ref.get("name")  # v1beta2
            or (template.priorityClassName if template else None)
        )
        if name is None:
            if template is not None and template.priority is not None:
                return template.priority
            return self.default
        if name not in self.by_name:
            raise ManifestError(
                f"PriorityClass {name!r} not found", document=document, field="priorityClassName"
            )
        return self.by_name[name]


def parse_time(text: str | None, *, document: str, field: str) -> datetime | None:
    if text is None:
        return None
    parsed = parse_datetime(text)
    if parsed is None:
        raise ManifestError(f"not an RFC 3339 time: {text!r}", document=document, field=field)
    return parsed


def condition(wl: Workload, kind: str) -> Condition | None:
    for found in wl.status.conditions:  # a loop, not next(generator): called very often
        if found.type == kind:
            return found
    return None


def condition_true(wl: Workload, kind: str) -> bool:
    found = condition(wl, kind)
    return found is not None and found.status == "True"


def holds_quota(wl: Workload) -> bool:
    """Admitted already: an admission in status, or QuotaReserved/Admitted true."""
    return (
        wl.status.admission is not None
        or condition_true(wl, "QuotaReserved")
        or condition_true(wl, "Admitted")
    )


def is_finished(wl: Workload) -> bool:
    return condition_true(wl, "Finished")


def document_of(wl: Workload, source: str) -> str:
    return f"{source} (Workload {object_key(wl.metadata)})"


def workload_info(
    wl: Workload,
    *,
    priorities: Priorities,
    now: datetime,
    source: str,
    reclaimable_pods: bool = True,
) -> WorkloadInfo:
    """Decode a Workload's pod sets and ordering keys; bad input raises ManifestError."""
    document = document_of(wl, source)
    if not wl.metadata.name:
        raise ManifestError("missing name", document=document, field="metadata.name")
    if not wl.spec.podSets:
        raise ManifestError("at least one pod set is required", document=document, field="spec")
    # Kueue's ReclaimablePods feature gate (on by default).
    reclaimable = {r.name: r.count for r in wl.status.reclaimablePods if reclaimable_pods}
    podsets = tuple(_podset_info(wl, i, document, reclaimable) for i in range(len(wl.spec.podSets)))
    created = parse_time(
        wl.metadata.creationTimestamp, document=document, field="metadata.creationTimestamp"
    )
    evicted = condition(wl, "Evicted")
    requeued = None
    if evicted is not None and evicted.status == "True":
        requeued = parse_time(
            evicted.lastTransitionTime, document=document, field="status.conditions"
        )
    return WorkloadInfo(
        key=object_key(wl.metadata),
        namespace=wl.metadata.namespace or "default",
        queue_name=wl.spec.queueName,
        priority=priorities.of(wl, podsets[0].spec, document=document),
        timestamp=requeued or created or now,
        podsets=podsets,
        obj=wl,
    )


def _podset_info(
    wl: Workload, index: int, document: str, reclaimable: dict[str, int]
) -> PodSetInfo:
    """A pod set's requests; its pods already finished (``reclaimablePods``) count no more."""
    podset = wl.spec.podSets[index]
    field = f"spec.podSets[{index}]"
    if podset.count < 0:
        raise ManifestError("count must be >= 0", document=document, field=f"{field}.count")
    template = podset.template.get("spec", {})
    spec = convert(template, PodSpec, document=f"{document} {field}.template.spec")
    if podset.minCount is not None and not 0 <= podset.minCount <= podset.count:
        raise ManifestError(
            "minCount should be positive and less or equal to count",
            document=document,
            field=f"{field}.minCount",
        )
    return PodSetInfo(
        name=podset.name,
        count=podset.count - min(max(0, reclaimable.get(podset.name, 0)), podset.count),
        per_pod=spec_requests(spec),
        spec=spec,
        min_count=podset.minCount,
        named=frozenset(
            name
            for container in (*spec.containers, *spec.initContainers)
            if container.resources is not None
            for name in container.resources.requests
        ),
    )


def admitted_usage(
    info: WorkloadInfo, *, covered_pods: bool, fallback: dict[str, dict[str, str]], source: str
) -> tuple[dict[str, dict[str, str]], dict[str, int], Usage]:
    """Flavors, counts and usage of an admitted workload, from ``status.admission``.

    ``resourceUsage`` is what Kueue recorded; without it the usage is recomputed from the
    pod sets. ``fallback`` supplies flavors for pod sets the admission does not list (a
    manifest that only says Admitted=True).
    """
    document = document_of(info.obj, source)
    admission = info.obj.status.admission
    assignments = {a.name: a for a in admission.podSetAssignments} if admission else {}
    flavors: dict[str, dict[str, str]] = {}
    counts: dict[str, int] = {}
    usage: Usage = {}
    for podset in info.podsets:
        assignment = assignments.get(podset.name)
        chosen = dict(assignment.flavors) if assignment else fallback.get(podset.name, {})
        admitted = assignment.count if assignment and assignment.count is not None else None
        # More pods reclaimable than at admission scale the usage down; a partial admission
        # (fewer pods admitted than remain) keeps its count.
        count = podset.count if admitted is None else min(admitted, podset.count)
        requests = podset.scaled(count).requests(count_pods=covered_pods)
        if assignment and assignment.resourceUsage:
            requests = {
                name: _milli(q, document, f"status.admission.{podset.name}.resourceUsage.{name}")
                * count
                // (admitted or count or 1)
                for name, q in assignment.resourceUsage.items()
            }
        flavors[podset.name], counts[podset.name] = chosen, count
        for resource, amount in requests.items():
            if resource in chosen:
                fr = (chosen[resource], resource)
                usage[fr] = usage.get(fr, 0) + amount
    return flavors, counts, usage


def _milli(quantity: str | int | float, document: str, field: str) -> int:
    try:
        return parse_quantity(quantity).milli()
    except QuantityError as exc:
        raise ManifestError(str(exc), document=document, field=field) from None


REQUESTS_MUST_NOT_EXCEED_LIMITS = "requests must not exceed its limits"
"""Kueue's RequestsMustNotExceedLimitMessage."""


def requests_over_limits(info: WorkloadInfo) -> list[str]:
    """Kueue's ValidateResources: containers whose requests exceed their limits."""
    errors: list[str] = []
    for i, podset in enumerate(info.podsets):
        path = f"spec.podSets[{i}].template.spec"
        for kind, containers in (
            ("initContainers", podset.spec.initContainers),
            ("containers", podset.spec.containers),
        ):
            for j, container in enumerate(containers):
                res = container.resources
                if res is None:
                    continue
                over = sorted(
                    name
                    for name, limit in res.limits.items()
                    if name in res.requests
                    and parse_quantity(res.requests[name]).milli() > parse_quantity(limit).milli()
                )
                if over:
                    errors.append(f"{path}.{kind}[{j}]: {over}: {REQUESTS_MUST_NOT_EXCEED_LIMITS}")
    return errors
