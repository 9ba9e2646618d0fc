"""Sets of completion indexes as ordered intervals, written as the API does: ``"1,3-5,7"``.

Used for ``status.completedIndexes``, ``status.failedIndexes`` and success-policy rules.
Two adjacent indexes are written ``"3,4"`` (not ``"3-4"``), as Kubernetes does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Interval:
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Intervals:
    """Disjoint, non-adjacent intervals in increasing order."""

    items: tuple[Interval, ...] = ()

    @classmethod
    def parse(cls, text: str | None, completions: int) -> Intervals:
        """Parse an interval string, ignoring corrupt parts and indexes ``>= completions``."""
        result: list[Interval] = []
        for part in (text or "").split(","):
            if not part:
                continue
            bounds = part.split("-")
            try:
                first = int(bounds[0])
                last = int(bounds[1]) if len(bounds) > 1 else first
            except ValueError:
                continue
            if first >= completions:
                break
            last = min(last, completions - 1)
            if result and result[-1].last == first - 1:
                result[-1] = Interval(result[-1].first, last)
            else:
                result.append(Interval(first, last))
        return cls(tuple(result))

    def with_indexes(self, indexes: Iterable[int]) -> Intervals:
        return self.merge(Intervals(tuple(Interval(i, i) for i in sorted(set(indexes)))))

    def merge(self, other: Intervals) -> Intervals:
        merged: list[Interval] = []
        for item in sorted(self.items + other.items, key=lambda iv: iv.first):
            if merged and item.first <= merged[-1].last + 1:
                if item.last > merged[-1].last:
                    merged[-1] = Interval(merged[-1].first, item.last)
            else:
                merged.append(item)
        return Intervals(tuple(merged))

    def total(self) -> int:
        return sum(iv.last - iv.first + 1 for iv in self.items)

    def has(self, index: int) -> bool:
        return any(iv.first <= index <= iv.last for iv in self.items)

    def overlap(self, other: Intervals) -> int:
        """How many indexes the two sets have in common."""
        count = 0
        for a in self.items:
            for b in other.items:
                count += max(0, min(a.last, b.last) - max(a.first, b.first) + 1)
        return count

    def __str__(self) -> str:
        parts: list[str] = []
        for iv in self.items:
            if iv.last == iv.first:
                parts.append(str(iv.first))
            elif iv.last == iv.first + 1:
                parts.append(f"{iv.first},{iv.last}")
            else:
                parts.append(f"{iv.first}-{iv.last}")
        return ",".join(parts)
