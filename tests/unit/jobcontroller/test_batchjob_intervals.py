"""Completion-index interval strings ("1,3-5") as the Job API writes them."""

from __future__ import annotations

import pytest

from services.jobcontroller.batchjob.intervals import Intervals


@pytest.mark.parametrize(
    ("text", "completions", "added", "expected", "total"),
    [
        ("", 10, [], "", 0),
        ("1,3-5", 10, [], "1,3-5", 4),
        ("1,3-5", 10, [2], "1-5", 5),
        ("1", 10, [2], "1,2", 2),
        ("0-3,7", 5, [], "0-3", 4),
        ("x,2-y,4", 10, [0], "0,4", 2),
        ("8-12", 10, [], "8,9", 2),
        ("", 10, [9, 3, 3, 4], "3,4,9", 3),
    ],
    ids=[
        "empty",
        "parse",
        "bridge",
        "adjacent-pair",
        "drop-out-of-range",
        "corrupt",
        "clip-last",
        "unsorted-dups",
    ],
)
def test_intervals(
    text: str, completions: int, added: list[int], expected: str, total: int
) -> None:
    result = Intervals.parse(text, completions).with_indexes(added)
    assert str(result) == expected
    assert result.total() == total


def test_overlap_and_has() -> None:
    a = Intervals.parse("0-4,8", 10)
    assert a.overlap(Intervals.parse("3-8", 10)) == 3
    assert a.has(8) and not a.has(5)
