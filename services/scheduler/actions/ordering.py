"""Priority queues keyed by the session's order keys (computed when an item is pushed)."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class KeyedQueue(Generic[T]):
    """Pop the smallest key first; equal keys pop in push order."""

    __slots__ = ("_heap", "_key", "_seq")

    def __init__(self, key: Callable[[T], tuple[Any, ...]], items: Iterable[T] = ()) -> None:
        self._key = key
        self._seq = itertools.count()
        self._heap: list[tuple[tuple[Any, ...], int, T]] = [
            (key(item), next(self._seq), item) for item in items
        ]
        heapq.heapify(self._heap)

    def push(self, item: T) -> None:
        heapq.heappush(self._heap, (self._key(item), next(self._seq), item))

    def pop(self) -> T:
        return heapq.heappop(self._heap)[2]

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)
