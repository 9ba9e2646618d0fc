"""Flavor assignment modes, the attempts a flavor search records, and why a workload does
not fit (Kueue's ``FlavorAssignmentMode``, ``FlavorAssignmentAttempt``, ``NoFitReason``).

Every flavor the search tries leaves an *attempt*: its worst mode over the requested
resources, borrowing level, preemption possibility, reasons and, when it does not fit, why
(``NoMatchingFlavor`` when the flavor does not match the pod template, ``ExceedsMaxQuota``
when the request exceeds what the queue could ever have, ``WaitingForQuota`` otherwise).
A pod set's attempts merge over its resource groups (``mergeFlavorAttemptsForResource``);
an assignment that does not fit resolves one reason (``resolveNoFitReason``): the least
severe among the alternatives of a resource group, the most severe across groups.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

NO_MATCHING_FLAVOR = "NoMatchingFlavor"
EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
WAITING_FOR_QUOTA = "WaitingForQuota"
_SEVERITY = {NO_MATCHING_FLAVOR: 4, EXCEEDS_MAX_QUOTA: 3, WAITING_FOR_QUOTA: 2}


class Mode(enum.IntEnum):
    NO_FIT = 0
    PREEMPT = 1
    FIT = 2


class Possibility(enum.IntEnum):
    """What preempting for one flavor/resource would achieve (Kueue's preemption oracle)."""

    NO_CANDIDATES = 1
    PREEMPT = 2
    """Targets found, some in the preemptor's own ClusterQueue."""
    RECLAIM = 3
    """Targets found, all in other ClusterQueues of the cohort."""


@dataclass(frozen=True)
class Reason:
    code: str
    message: str


@dataclass(frozen=True)
class Attempt:
    """Kueue's FlavorAssignmentAttempt."""

    flavor: str
    mode: Mode
    borrow: int = 0
    possibility: Possibility | None = None
    reasons: tuple[str, ...] = ()
    """Sorted, without duplicates."""
    no_fit_reason: str = ""


def most_severe(a: str, b: str) -> str:
    """Kueue's mostSevereReason (the first among equals)."""
    return a if _SEVERITY.get(a, 0) >= _SEVERITY.get(b, 0) else b


def merge(
    merged: dict[str, Attempt],
    found: Sequence[Attempt],
    resource: str,
    group_flavors: Iterable[str],
) -> None:
    """Kueue's mergeFlavorAttemptsForResource: fold one resource's attempts into a pod set's.

    A flavor of the resource's group met before but not tried for it does not provide it.
    """
    for attempt in found:
        old = merged.get(attempt.flavor)
        if old is None:
            merged[attempt.flavor] = replace(attempt, reasons=_unique(attempt.reasons))
            continue
        possibility = old.possibility
        if attempt.possibility is not None and (
            possibility is None or attempt.possibility < possibility
        ):
            possibility = attempt.possibility
        merged[attempt.flavor] = Attempt(
            flavor=attempt.flavor,
            mode=min(attempt.mode, old.mode),
            borrow=max(attempt.borrow, old.borrow),
            possibility=possibility,
            reasons=_unique((*old.reasons, *attempt.reasons)),
            no_fit_reason=most_severe(old.no_fit_reason, attempt.no_fit_reason),
        )
    if not found:
        return
    tried = {a.flavor for a in found}
    for flavor in set(group_flavors) - tried:
        old = merged.get(flavor)
        if old is not None:
            message = f"flavor {flavor} does not provide resource {resource}"
            merged[flavor] = replace(
                old,
                mode=Mode.NO_FIT,
                reasons=_unique((*old.reasons, message)),
                no_fit_reason=NO_MATCHING_FLAVOR,
            )


def finalize(merged: dict[str, Attempt]) -> list[Attempt]:
    return [merged[name] for name in sorted(merged)]


def no_fit_reason(
    podsets: Iterable[tuple[Mode, Sequence[Attempt]]], groups: Sequence[Sequence[str]]
) -> str:
    """Kueue's resolveNoFitReason over the pod sets' (mode, attempts); ``groups`` are the
    ClusterQueue's resource groups' flavors."""
    overall = ""
    for mode, attempts in podsets:
        if mode != Mode.NO_FIT:
            continue
        if not attempts:
            overall = most_severe(overall, NO_MATCHING_FLAVOR)
            continue
        least: dict[int, str] = {}
        for i, attempt in enumerate(attempts):
            if attempt.mode != Mode.NO_FIT:
                continue
            indices = [g for g, flavors in enumerate(groups) if attempt.flavor in flavors]
            for index in indices or [-1 - i]:
                known = least.get(index)
                if known is None or _SEVERITY.get(attempt.no_fit_reason, 0) < _SEVERITY.get(
                    known, 0
                ):
                    least[index] = attempt.no_fit_reason
        podset = ""
        for reason in least.values():
            podset = most_severe(podset, reason)
        overall = most_severe(overall, podset)
    return overall


def _unique(reasons: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(reasons)))
