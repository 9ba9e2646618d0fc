"""The work queue of keys to sync, with the guarantees of client-go's rate-limited workqueue.

- A key waiting in the queue is held once, however often it is added (dedupe).
- A key being synced is never handed to a second worker: added meanwhile, it is marked dirty and
  queued again when the first worker calls ``done`` (so the change is not lost either).
- ``add_after`` queues a key later (requeue for deadlines and TTLs); only the earliest pending
  timer of a key is kept.
- ``add_rate_limited`` queues a key after an exponential back-off per key (errors), which
  ``forget`` resets once a sync succeeds.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class QueueShutDown(Exception):
    """``get`` on a queue that was shut down: the worker should return."""


class WorkQueue(Generic[K]):
    """See the module docstring. Delays use the running loop's clock."""

    def __init__(self, *, backoff_base: float = 0.05, backoff_max: float = 60.0) -> None:
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._order: deque[K] = deque()
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        self._timers: dict[K, asyncio.TimerHandle] = {}
        self._failures: dict[K, int] = {}
        self._ready = asyncio.Event()
        self._shut = False

    def __len__(self) -> int:
        """Keys waiting to be synced (not those being synced or delayed): the queue depth."""
        return len(self._order)

    @property
    def delayed(self) -> int:
        return len(self._timers)

    def add(self, key: K) -> None:
        if self._shut or key in self._dirty:
            return
        self._dirty.add(key)
        if key not in self._processing:
            self._order.append(key)
            self._wake()

    def add_after(self, key: K, delay: float) -> None:
        if delay <= 0:
            self.add(key)
            return
        loop = asyncio.get_running_loop()
        when = loop.time() + delay
        pending = self._timers.get(key)
        if pending is not None:
            if pending.when() <= when:
                return
            pending.cancel()
        self._timers[key] = loop.call_at(when, self._fire, key)

    def add_rate_limited(self, key: K) -> float:
        """Queue ``key`` after its back-off; returns the delay chosen."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        delay = min(self._backoff_base * 2.0**failures, self._backoff_max)
        self.add_after(key, delay)
        return delay

    def forget(self, key: K) -> None:
        """Reset the back-off of ``key`` (its last sync succeeded)."""
        self._failures.pop(key, None)

    def failures(self, key: K) -> int:
        return self._failures.get(key, 0)

    async def get(self) -> K:
        """The next key to sync; the caller must call ``done(key)`` when finished."""
        while not self._order:
            if self._shut:
                raise QueueShutDown
            self._ready.clear()
            await self._ready.wait()
        key = self._order.popleft()
        self._processing.add(key)
        self._dirty.discard(key)
        return key

    def done(self, key: K) -> None:
        self._processing.discard(key)
        if key in self._dirty:
            self._order.append(key)
            self._wake()

    def shutdown(self) -> None:
        """Refuse new keys, drop timers, and let idle workers return (``get`` raises)."""
        self._shut = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._order.clear()
        self._wake()

    def _fire(self, key: K) -> None:
        self._timers.pop(key, None)
        self.add(key)

    def _wake(self) -> None:
        self._ready.set()  # every idle worker wakes; those that find nothing wait again
