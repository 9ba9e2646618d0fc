"""Kueue's ``pkg/scheduler/flavorassigner/podset_reducer_test.go`` ``TestSearch`` table.

Each row is (pod sets as (count, minCount), the most pods that "fit", the total found or
None when upstream's search reports not found).
"""

from __future__ import annotations

import pytest

from services.scheduler.kueue.partial import search_counts

FOUR: list[tuple[int, int | None]] = [(5, 3), (5, 4), (5, 1), (5, 2)]
CASES: dict[str, tuple[list[tuple[int, int | None]], int, int | None]] = {
    "empty": ([], 10, None),
    "partial not available": ([(1, None), (2, 2)], 2, None),
    "partial available": (FOUR, 15, 15),
    "one partial available": ([(5, 3), (5, None), (5, None), (5, None)], 19, 19),
    "to min": (FOUR, 10, 10),
    "to max": (FOUR, 20, 20),
    "no overflow": ([(150_000, 1)] * 8, 150_000, 150_000),
    "max pods on 1.27": ([(150_000, 1)] + [(1, None)] * 7, 150_000, 150_000),
    "podset with replica count 0": ([(0, 0)], 0, None),
}


@pytest.mark.parametrize(("podsets", "limit", "want"), CASES.values(), ids=CASES.keys())
def test_search(podsets: list[tuple[int, int | None]], limit: int, want: int | None) -> None:
    def fits(counts: list[int]) -> int | None:
        return sum(counts) if sum(counts) <= limit else None

    found = search_counts([c for c, _ in podsets], [m for _, m in podsets], fits)
    assert found == want
