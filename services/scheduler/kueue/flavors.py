"""Flavor assignment: for each pod set and resource group, the first flavor that works.

Kueue's ``findFlavorForPodSets``: a flavor is a candidate when it suits the pod template
(``matching``). Against quota a flavor *fits* (within nominal or borrowable quota, at some
borrowing level), needs *preemption* (the request is within nominal quota, could be reclaimed
in a subtree, or the queue may preempt while borrowing; the preemption oracle says whether
targets exist) or does not fit. ``flavorFungibility`` decides whether a borrowing or
preempting flavor is taken or the next one tried; after the last, the best mode seen wins
(the first among equals). Every flavor tried leaves an attempt (``modes``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from services.scheduler.api.status import Code, Status
from services.scheduler.kueue.matching import incompatible
from services.scheduler.kueue.model import (
    NEVER,
    PREEMPTION_OVER_BORROWING,
    TRY_NEXT_FLAVOR,
    ClusterQueueState,
    Fungibility,
    ResourceGroup,
    borrowing_level,
)
from services.scheduler.kueue.modes import (
    EXCEEDS_MAX_QUOTA,
    NO_MATCHING_FLAVOR,
    WAITING_FOR_QUOTA,
    Attempt,
    Mode,
    Possibility,
    Reason,
    finalize,
    merge,
    most_severe,
    no_fit_reason,
)
from services.scheduler.kueue.workloads import FlavorResource, PodSetInfo, Usage, WorkloadInfo
from shared.models import PodSpec, ResourceFlavor
from shared.resources import Resources

PLUGIN = "flavorassigner"


@dataclass(frozen=True)
class FlavorChoice:
    flavor: str
    mode: Mode
    borrow: int
    """The borrowing level: 0 within the queue's own quota, else the height of the lowest
    cohort subtree that covers the request."""
    tried: int = -1
    """Kueue's TriedFlavorIdx: where the search stopped, -1 after the group's last flavor."""


@dataclass
class PodSetAssignment:
    name: str
    count: int
    flavors: dict[str, FlavorChoice] = field(default_factory=dict)
    """Resource → the flavor chosen for it."""
    reasons: list[Reason] = field(default_factory=list)
    """Why a resource group's flavor does not simply fit (empty: everything fits)."""
    attempts: list[Attempt] = field(default_factory=list)
    """Every flavor tried, by name (Kueue's FlavorAssignmentAttempts)."""

    @property
    def mode(self) -> Mode:
        """Kueue's PodSetAssignment.RepresentativeMode."""
        if not self.reasons:
            return Mode.FIT
        return min((c.mode for c in self.flavors.values()), default=Mode.NO_FIT)

    def message(self) -> str:
        return ", ".join(sorted(r.message for r in self.reasons))


@dataclass
class Assignment:
    podsets: list[PodSetAssignment]
    usage: Usage
    no_fit_reason: str = ""
    """When nothing fits: NoMatchingFlavor, ExceedsMaxQuota or WaitingForQuota."""
    # mode and status, once asked: an assignment is complete when made, and one verdict
    # serves every equivalent workload of a run (``cycle``), so they are asked often.
    _mode: Mode | None = field(default=None, init=False, repr=False, compare=False)
    _status: Status | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def mode(self) -> Mode:
        """The worst mode of any pod set (Kueue's representative mode)."""
        if self._mode is None:
            self._mode = min((ps.mode for ps in self.podsets), default=Mode.NO_FIT)
        return self._mode

    @property
    def borrows(self) -> int:
        """Kueue's Borrowing: the highest borrowing level of any resource (0: none)."""
        return max((c.borrow for ps in self.podsets for c in ps.flavors.values()), default=0)

    def needs_preemption(self) -> set[FlavorResource]:
        return {
            (choice.flavor, resource)
            for ps in self.podsets
            for resource, choice in ps.flavors.items()
            if choice.mode == Mode.PREEMPT
        }

    def status(self) -> Status:
        """Why the workload does not simply fit: Kueue's Assignment.Message."""
        if self._status is None:
            self._status = self._explain()
        return self._status

    def _explain(self) -> Status:
        message = "; ".join(
            f"couldn't assign flavors to pod set {ps.name}: {ps.message()}"
            for ps in self.podsets
            if ps.reasons
        )
        codes = [r.code for ps in self.podsets for r in ps.reasons]
        return Status(
            code=Code.UNSCHEDULABLE,
            reason=codes[0] if codes else "InsufficientQuota",
            message=message or "insufficient quota",
            plugin=PLUGIN,
        )


Oracle = Callable[[FlavorResource, int], tuple[Possibility, int]]
"""(flavor/resource, total request) → possibility, and the borrowing level afterwards."""


def _no_oracle(fr: FlavorResource, amount: int) -> tuple[Possibility, int]:
    return Possibility.PREEMPT, 0


@dataclass(frozen=True)
class _Granular:
    """Kueue's granularMode: the preemption mode (0 no fit .. 4 fit) and borrowing level."""

    level: int
    borrow: int

    @property
    def mode(self) -> Mode:
        if self.level == _FIT:
            return Mode.FIT
        return Mode.NO_FIT if self.level == _NO_FIT else Mode.PREEMPT

    @property
    def possibility(self) -> Possibility | None:
        return None if self.level in (_NO_FIT, _FIT) else Possibility(self.level)


_NO_FIT, _FIT = 0, 4
_BEST = _Granular(_FIT, 0)
_WORST = _Granular(_NO_FIT, sys.maxsize)


def assign_flavors(
    info: WorkloadInfo,
    cq: ClusterQueueState,
    flavors: dict[str, ResourceFlavor],
    *,
    oracle: Oracle = _no_oracle,
    counts: Sequence[int] | None = None,
    fair_sharing: bool = False,
    nomination: Mapping[str, Mapping[str, str]] | None = None,
) -> Assignment:
    """Flavors for every pod set of ``info`` in ``cq``, pod sets adding up as they go.

    ``counts`` replaces the pod sets' counts (partial admission tries smaller ones);
    with ``fair_sharing`` a queue that may reclaim may also preempt while borrowing;
    ``nomination`` (pod set → resource → flavor) keeps a recomputed assignment to the
    flavors first nominated (Kueue's NominationMapping).
    """
    search = _Search(cq, flavors, {}, oracle, fair_sharing)
    usage: Usage = {}
    podsets: list[PodSetAssignment] = []
    count_pods = cq.covers("pods")
    for i, podset in enumerate(info.podsets):
        if counts is not None:
            podset = podset.scaled(counts[i])
        requests = podset.requests(count_pods=count_pods)
        nominated = None if nomination is None else nomination.get(podset.name, {})
        assignment = _assign_podset(
            podset, requests, replace(search, assumed=usage, nominated=nominated)
        )
        podsets.append(assignment)
        if requests and not assignment.flavors and assignment.reasons:
            break  # as upstream, the pod sets after one that cannot be assigned are not tried
        for resource, choice in assignment.flavors.items():
            fr = (choice.flavor, resource)
            usage[fr] = usage.get(fr, 0) + requests[resource]
    result = Assignment(podsets=podsets, usage=usage)
    if result.mode == Mode.NO_FIT:
        result.no_fit_reason = no_fit_reason(
            ((ps.mode, ps.attempts) for ps in podsets), [g.flavors for g in cq.groups]
        )
    return result


def _assign_podset(podset: PodSetInfo, requests: dict[str, int], base: _Search) -> PodSetAssignment:
    """One pod set, resource group by resource group; a group with no flavor fails it."""
    result = PodSetAssignment(name=podset.name, count=podset.count)
    attempts: dict[str, Attempt] = {}
    for resource in sorted(requests):
        if resource in result.flavors:
            continue
        group = base.cq.group_of(resource)
        if group is None:
            if requests[resource] == 0:
                continue  # a zero request for a resource the queue lacks is ignored (#8079)
            why = Reason("ResourceNotCovered", f"resource {resource} unavailable in ClusterQueue")
            return PodSetAssignment(
                podset.name, podset.count, reasons=[why], attempts=finalize(attempts)
            )
        wanted = {r: requests[r] for r in group.resources if r in requests}
        search = replace(base, reasons=[], attempts=[])
        choices = search.find(group, wanted, podset.spec, resource)
        merge(attempts, search.attempts, resource, group.flavors)
        if not choices:
            return PodSetAssignment(
                podset.name, podset.count, reasons=search.reasons, attempts=finalize(attempts)
            )
        result.flavors.update(choices)
        result.reasons.extend(search.reasons)
    result.attempts = finalize(attempts)
    return result


@dataclass
class _Search:
    """Kueue's findFlavorForPodSets for one resource group."""

    cq: ClusterQueueState
    flavors: dict[str, ResourceFlavor]
    assumed: Usage
    oracle: Oracle
    fair_sharing: bool
    reasons: list[Reason] = field(default_factory=list)
    """Why flavors were passed over; cleared when the chosen flavor fits."""
    attempts: list[Attempt] = field(default_factory=list)
    nominated: Mapping[str, str] | None = None
    """Resource → the flavor the first assignment of the cycle chose (when recomputing)."""

    def find(
        self, group: ResourceGroup, requests: dict[str, int], spec: PodSpec, resource: str
    ) -> dict[str, FlavorChoice]:
        """Resource → flavor for the group's resources, or {} when no flavor works."""
        fungibility = self.cq.fungibility
        best: dict[str, FlavorChoice] = {}
        best_mode, tried = _WORST, -1
        for index, name in enumerate(group.flavors):
            tried = index
            if self.nominated is not None and self.nominated.get(resource) != name:
                self.reasons.append(
                    Reason(
                        "NotNominated",
                        f"skipping flavor {name} as it is not found in the nomination mapping "
                        f"for resource {resource}",
                    )
                )
                continue
            flavor = self.flavors.get(name)
            mismatch = (
                Reason("FlavorNotFound", f"flavor {name} not found")
                if flavor is None
                else incompatible(flavor, spec)
            )
            if mismatch is not None:
                self.reasons.append(mismatch)
                self.attempts.append(
                    Attempt(
                        name,
                        Mode.NO_FIT,
                        reasons=(mismatch.message,),
                        no_fit_reason=NO_MATCHING_FLAVOR,
                    )
                )
                continue
            representative = _BEST
            chosen: dict[str, FlavorChoice] = {}
            reasons: list[str] = []
            why_not, most_borrowed = "", 0
            for resource, amount in sorted(requests.items()):
                fr = (name, resource)
                mode, reason, no_fit = self._fits_quota(fr, self.assumed.get(fr, 0), amount)
                if reason is not None:
                    self.reasons.append(reason)
                    reasons.append(reason.message)
                why_not = most_severe(why_not, no_fit)
                most_borrowed = max(most_borrowed, mode.borrow)
                if _preferred(representative, mode, fungibility):
                    representative = mode
                if representative.level == _NO_FIT:
                    break
                chosen[resource] = FlavorChoice(name, mode.mode, mode.borrow)
            self.attempts.append(
                Attempt(
                    name,
                    representative.mode,
                    most_borrowed,
                    representative.possibility,
                    tuple(sorted(reasons)),
                    why_not,
                )
            )
            if not _try_next(representative, fungibility):
                best, best_mode = chosen, representative
                break
            if _preferred(representative, best_mode, fungibility):
                best, best_mode = chosen, representative
        last = -1 if tried == len(group.flavors) - 1 else tried
        if best_mode.level == _FIT:
            self.reasons = []
        return {r: replace(c, tried=last) for r, c in best.items()}

    def _fits_quota(
        self, fr: FlavorResource, assumed: int, request: int
    ) -> tuple[_Granular, Reason | None, str]:
        """Kueue's fitsResourceQuota, with ``assumed`` used by earlier pod sets: the mode,
        why it does not simply fit, and the NoFitReason when it does not fit at all."""
        flavor, resource = fr
        cq, amount = self.cq, assumed + request
        most = cq.potential_available(fr)
        if amount > most:
            why = Reason(
                EXCEEDS_MAX_QUOTA,
                f"insufficient quota for {resource} in flavor {flavor}, previously "
                f"considered podsets requests ({_show(resource, assumed)}) + current "
                f"podset request ({_show(resource, request)}) > maximum capacity "
                f"({_show(resource, most)})",
            )
            return _Granular(_NO_FIT, 0), why, EXCEEDS_MAX_QUOTA
        borrow, may_reclaim_in_hierarchy = borrowing_level(cq, fr, amount)
        available = cq.available(fr)
        if amount <= available:
            return _Granular(_FIT, borrow), None, ""
        why = Reason(
            "InsufficientQuota",
            f"insufficient unused quota for {resource} in flavor {flavor}, "
            f"{_show(resource, amount - available)} more needed",
        )
        if (
            amount <= cq.quota(fr).nominal
            or may_reclaim_in_hierarchy
            or self._may_preempt_borrowing()
        ):
            possibility, borrow_after = self.oracle(fr, amount)
            return _Granular(int(possibility), borrow_after), why, ""
        return _Granular(_NO_FIT, borrow), why, WAITING_FOR_QUOTA

    def _may_preempt_borrowing(self) -> bool:
        """Kueue's canPreemptWhileBorrowing."""
        preemption = self.cq.preemption
        return preemption.borrow_within_cohort != NEVER or (
            self.fair_sharing and preemption.reclaim_within_cohort != NEVER
        )


def _preferred(a: _Granular, b: _Granular, fungibility: Fungibility) -> bool:
    """Kueue's isPreferred: is mode ``a`` better than ``b``?"""
    if a.level == _NO_FIT:
        return False
    if b.level == _NO_FIT:
        return True
    a_none, b_none = a.level == Possibility.NO_CANDIDATES, b.level == Possibility.NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if fungibility.preference == PREEMPTION_OVER_BORROWING:
        if a.borrow != b.borrow:
            return a.borrow < b.borrow
        return a.level > b.level
    if a.level != b.level:
        return a.level > b.level
    return a.borrow < b.borrow


def _try_next(mode: _Granular, fungibility: Fungibility) -> bool:
    """Kueue's shouldTryNextFlavor."""
    if mode.level in (_NO_FIT, Possibility.NO_CANDIDATES):
        return True
    if mode.level != _FIT and fungibility.when_can_preempt == TRY_NEXT_FLAVOR:
        return True
    return mode.borrow > 0 and fungibility.when_can_borrow == TRY_NEXT_FLAVOR


def _show(resource: str, milli: int) -> str:
    return Resources({resource: milli}).to_list().get(resource, "0")
