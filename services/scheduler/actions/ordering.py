"""Priority queues over the session's order keys: keyed when an item is pushed (jobs), or
re-keyed at every comparison as Go's heap with a comparator (allocate's queues)."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from services.scheduler.api import JobInfo, QueueInfo

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

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


class LiveQueue(Generic[T]):
    """A binary heap that re-reads the keys at every comparison, as Go's ``container/heap``
    under Volcano's comparator-based ``PriorityQueue`` does: when one pop changes the order
    of items still inside (hierarchical drf rescales a queue's siblings), the sift steps see
    the new order, exactly as upstream's do. For the few queues of a session."""

    __slots__ = ("_items", "_key")

    def __init__(self, key: Callable[[T], tuple[Any, ...]], items: Iterable[T] = ()) -> None:
        self._key = key
        self._items: list[T] = []
        for item in items:
            self.push(item)

    def _less(self, i: int, j: int) -> bool:
        return bool(self._key(self._items[i]) < self._key(self._items[j]))

    def _swap(self, i: int, j: int) -> None:
        items = self._items
        items[i], items[j] = items[j], items[i]

    def _up(self, j: int) -> None:
        while j > 0:
            i = (j - 1) // 2
            if not self._less(j, i):
                break
            self._swap(i, j)
            j = i

    def _down(self, i: int, n: int) -> None:
        while True:
            j = 2 * i + 1
            if j >= n:
                break
            if j + 1 < n and self._less(j + 1, j):
                j += 1
            if not self._less(j, i):
                break
            self._swap(i, j)
            i = j

    def push(self, item: T) -> None:
        self._items.append(item)
        if len(self._items) > 1:
            self._up(len(self._items) - 1)

    def pop(self) -> T:
        n = len(self._items) - 1
        if n > 0:
            self._swap(0, n)
            self._down(0, n)
        return self._items.pop()

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)


def starving_by_queue(
    ssn: Session,
) -> tuple[dict[str, KeyedQueue[JobInfo]], KeyedQueue[QueueInfo]]:
    """What reclaim and the gang actions walk: each queue's starving jobs in job order, and
    every queue holding a non-pending valid job, in queue order (Volcano builds the queue heap
    from those jobs' queues, starving or not)."""
    starving: dict[str, KeyedQueue[JobInfo]] = {}
    present: set[str] = set()
    for job in ssn.jobs.values():
        if job.is_pending() or ssn.job_valid(job) is not None or job.queue not in ssn.queues:
            continue
        present.add(job.queue)
        if ssn.job_starving(job):
            starving.setdefault(job.queue, KeyedQueue(ssn.job_order_key)).push(job)
    queues = KeyedQueue(ssn.queue_order_key, (ssn.queues[q] for q in sorted(present)))
    return starving, queues
