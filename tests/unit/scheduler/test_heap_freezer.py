"""The scheduler freezes its long-lived heap after the rebuild and after a cycle in which a
full collection ran, and never freezes cyclic garbage."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from services.scheduler.heap import HeapFreezer


@pytest.fixture
def freezer() -> Iterator[HeapFreezer]:
    heap = HeapFreezer()
    heap.start()
    yield heap
    heap.stop()
    gc.unfreeze()


@pytest.mark.parametrize(
    ("full_collection", "frozen"), [(False, False), (True, True)], ids=["none-ran", "one-ran"]
)
def test_a_cycle_freezes_again_only_after_a_full_collection(
    freezer: HeapFreezer, full_collection: bool, frozen: bool
) -> None:
    freezer.freeze()
    before = gc.get_freeze_count()
    kept = [[i] for i in range(1000)]  # long-lived objects made during the cycle
    if full_collection:
        gc.collect(2)
    assert freezer.after_cycle() is frozen
    assert (gc.get_freeze_count() >= before + len(kept)) is frozen


def test_cyclic_garbage_is_collected_not_frozen(freezer: HeapFreezer) -> None:
    class Node:
        other: object = None

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    freezer.freeze()
    assert gone() is None, "a frozen cycle would never be collected"
