"""Flavor assignment: for each pod set and resource group, the first flavor that works.

A flavor is a candidate when its ``nodeTaints`` are tolerated by the pod template and its
``nodeLabels`` satisfy the template's nodeSelector and required node affinity (only label
keys that some flavor of the group defines are considered, as Kueue does). Against quota a
flavor *fits* (within nominal or borrowable quota), needs *preemption* (the request is within
nominal quota, or borrowWithinCohort allows preempting while borrowing) or does not fit.
``flavorFungibility`` decides whether a borrowing or preempting flavor is taken or the next
one tried; after the last, the best mode seen wins (the first among equals).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from services.scheduler.api.status import Code, Status
from services.scheduler.kueue.model import (
    NEVER,
    TRY_NEXT_FLAVOR,
    ClusterQueueState,
    Fungibility,
    ResourceGroup,
)
from services.scheduler.kueue.workloads import FlavorResource, PodSetInfo, Usage, WorkloadInfo
from shared.models import PodSpec, ResourceFlavor, Taint, Toleration
from shared.models.base import LabelSelectorRequirement, requirement_matches
from shared.resources import Resources

PLUGIN = "flavorassigner"


class Mode(enum.IntEnum):
    NO_FIT = 0
    PREEMPT = 1
    FIT = 2


@dataclass(frozen=True)
class FlavorChoice:
    flavor: str
    mode: Mode
    borrow: bool


@dataclass(frozen=True)
class Reason:
    code: str
    message: str


@dataclass
class PodSetAssignment:
    name: str
    count: int
    flavors: dict[str, FlavorChoice] = field(default_factory=dict)
    """Resource → the flavor chosen for it."""
    complete: bool = True
    reasons: list[Reason] = field(default_factory=list)


@dataclass
class Assignment:
    podsets: list[PodSetAssignment]
    usage: Usage

    @property
    def mode(self) -> Mode:
        """The worst mode of any resource (Kueue's representative mode)."""
        if not all(ps.complete for ps in self.podsets):
            return Mode.NO_FIT
        modes = [c.mode for ps in self.podsets for c in ps.flavors.values()]
        return min(modes, default=Mode.FIT)

    @property
    def borrows(self) -> bool:
        return any(c.borrow for ps in self.podsets for c in ps.flavors.values())

    def needs_preemption(self) -> set[FlavorResource]:
        return {
            (choice.flavor, resource)
            for ps in self.podsets
            for resource, choice in ps.flavors.items()
            if choice.mode == Mode.PREEMPT
        }

    def status(self) -> Status:
        """Why the workload does not simply fit, per pod set, Kueue-worded."""
        parts = [
            f"couldn't assign flavors to pod set {ps.name}: "
            + "; ".join(r.message for r in ps.reasons)
            for ps in self.podsets
            if ps.reasons
            and (not ps.complete or any(c.mode != Mode.FIT for c in ps.flavors.values()))
        ]
        codes = [r.code for ps in self.podsets for r in ps.reasons]
        return Status(
            code=Code.UNSCHEDULABLE,
            reason=codes[0] if codes else "InsufficientQuota",
            message=", ".join(parts) or "insufficient quota",
            plugin=PLUGIN,
        )


def assign_flavors(
    info: WorkloadInfo, cq: ClusterQueueState, flavors: dict[str, ResourceFlavor]
) -> Assignment:
    """Flavors for every pod set of ``info`` in ``cq``, pod sets adding up as they go."""
    usage: Usage = {}
    podsets: list[PodSetAssignment] = []
    count_pods = cq.covers("pods")
    for podset in info.podsets:
        assignment = _assign_podset(
            podset, podset.requests(count_pods=count_pods), cq, flavors, usage
        )
        podsets.append(assignment)
        requests = podset.requests(count_pods=count_pods)
        for resource, choice in assignment.flavors.items():
            fr = (choice.flavor, resource)
            usage[fr] = usage.get(fr, 0) + requests[resource]
    return Assignment(podsets=podsets, usage=usage)


def _assign_podset(
    podset: PodSetInfo,
    requests: Resources,
    cq: ClusterQueueState,
    flavors: dict[str, ResourceFlavor],
    assumed: Usage,
) -> PodSetAssignment:
    result = PodSetAssignment(name=podset.name, count=podset.count)
    for resource in sorted(requests):
        if resource in result.flavors:
            continue
        group = cq.group_of(resource)
        if group is None:
            result.complete = False
            result.reasons.append(
                Reason("ResourceNotCovered", f"resource {resource} unavailable in ClusterQueue")
            )
            continue
        wanted = {r: requests[r] for r in group.resources if r in requests}
        choice = _find_flavor(group, wanted, podset.spec, cq, flavors, assumed, result.reasons)
        if choice is None:
            result.complete = False
            continue
        for name in wanted:
            result.flavors[name] = choice
    return result


def _find_flavor(
    group: ResourceGroup,
    requests: dict[str, int],
    spec: PodSpec,
    cq: ClusterQueueState,
    flavors: dict[str, ResourceFlavor],
    assumed: Usage,
    reasons: list[Reason],
) -> FlavorChoice | None:
    allowed_keys = {key for name in group.flavors for key in flavors[name].spec.nodeLabels}
    best: FlavorChoice | None = None
    for name in group.flavors:
        mismatch = _incompatible(flavors[name], spec, allowed_keys)
        if mismatch is not None:
            reasons.append(mismatch)
            continue
        mode, borrow = Mode.FIT, False
        for resource, amount in sorted(requests.items()):
            fr = (name, resource)
            fit, borrows, why = _fits_quota(cq, fr, assumed.get(fr, 0) + amount)
            mode, borrow = min(mode, fit), borrow or borrows
            if why is not None:
                reasons.append(why)
            if mode == Mode.NO_FIT:
                break
        choice = FlavorChoice(name, mode, borrow)
        if mode != Mode.NO_FIT and not _try_next(choice, cq.fungibility):
            return choice
        if mode != Mode.NO_FIT and (best is None or mode > best.mode):
            best = choice
    return best


def _try_next(choice: FlavorChoice, fungibility: Fungibility) -> bool:
    if choice.mode == Mode.PREEMPT:
        return fungibility.when_can_preempt == TRY_NEXT_FLAVOR
    if choice.borrow:
        return fungibility.when_can_borrow == TRY_NEXT_FLAVOR
    return False


def _fits_quota(
    cq: ClusterQueueState, fr: FlavorResource, amount: int
) -> tuple[Mode, bool, Reason | None]:
    flavor, resource = fr
    most = cq.potential_available(fr)
    if amount > most:
        return (
            Mode.NO_FIT,
            False,
            Reason(
                "ExceedsMaxQuota",
                f"insufficient quota for {resource} in flavor {flavor}, request > maximum "
                f"capacity ({_show(resource, amount)} > {_show(resource, most)})",
            ),
        )
    borrow = cq.borrowing_with(fr, amount)
    available = cq.available(fr)
    if amount <= available:
        return Mode.FIT, borrow, None
    why = Reason(
        "InsufficientQuota",
        f"insufficient unused quota for {resource} in flavor {flavor}, "
        f"{_show(resource, amount - available)} more needed",
    )
    if amount <= cq.quota(fr).nominal or cq.preemption.borrow_within_cohort != NEVER:
        return Mode.PREEMPT, borrow, why
    return Mode.NO_FIT, False, why


def _show(resource: str, milli: int) -> str:
    return Resources({resource: milli}).to_list().get(resource, "0")


def _incompatible(flavor: ResourceFlavor, spec: PodSpec, allowed_keys: set[str]) -> Reason | None:
    name = flavor.metadata.name
    for taint in flavor.spec.nodeTaints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
            _tolerates(t, taint) for t in spec.tolerations
        ):
            shown = f"{taint.key}={taint.value}" if taint.value else taint.key
            return Reason(
                "UntoleratedTaint",
                f"untolerated taint {{{shown}: {taint.effect}}} in flavor {name}",
            )
    if not _matches_labels(spec, flavor.spec.nodeLabels, allowed_keys):
        return Reason("NodeAffinityMismatch", f"flavor {name} doesn't match node affinity")
    return None


def _tolerates(toleration: Toleration, taint: Taint) -> bool:
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator == "Exists":
        return True
    return (toleration.value or "") == (taint.value or "")


def _matches_labels(spec: PodSpec, labels: dict[str, str], allowed_keys: set[str]) -> bool:
    """nodeSelector and required node affinity, restricted to the flavors' label keys."""
    for key, value in spec.nodeSelector.items():
        if key in allowed_keys and labels.get(key) != value:
            return False
    affinity = spec.affinity.nodeAffinity if spec.affinity else None
    required = affinity.requiredDuringSchedulingIgnoredDuringExecution if affinity else None
    if required is None or not required.nodeSelectorTerms:
        return True
    terms = [
        [r for r in term.matchExpressions if r.key in allowed_keys]
        for term in required.nodeSelectorTerms
    ]
    # Terms are ORed: one left without a flavor key matches every flavor.
    if any(not term for term in terms):
        return True
    return any(
        all(
            requirement_matches(
                LabelSelectorRequirement(key=r.key, operator=r.operator, values=r.values), labels
            )
            for r in term
        )
        for term in terms
    )
