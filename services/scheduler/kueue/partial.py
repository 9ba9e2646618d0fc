"""Partial admission: Kueue's PodSetReducer (``pkg/scheduler/flavorassigner/podset_reducer.go``).

A workload whose pod sets have ``minCount`` below ``count`` may be admitted with fewer pods.
The search walks every pod set down from ``count`` towards ``minCount`` together, in
``Σ (count - minCount)`` equal steps, and binary-searches the first step (the largest
counts) at which ``fits`` succeeds, as upstream's ``sort.Search`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

R = TypeVar("R")


def can_be_partially_admitted(counts: Sequence[int], minimums: Sequence[int | None]) -> bool:
    """Kueue's CanBePartiallyAdmitted: some pod set has a minCount below its count."""
    return any(m is not None and c > m for c, m in zip(counts, minimums, strict=True))


def search_counts(
    counts: Sequence[int],
    minimums: Sequence[int | None],
    fits: Callable[[list[int]], R | None],
) -> R | None:
    """The result of ``fits`` for the largest reduced counts it accepts, or None."""
    deltas = [c - (c if m is None else m) for c, m in zip(counts, minimums, strict=True)]
    total = sum(deltas)
    if total == 0:
        return None
    low, high = 0, total + 1
    found: R | None = None
    while low < high:
        step = (low + high) // 2
        result = fits([c - d * step // total for c, d in zip(counts, deltas, strict=True)])
        if result is None:
            low = step + 1
        else:
            high, found = step, result
    return found
