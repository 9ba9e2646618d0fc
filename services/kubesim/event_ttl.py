"""Events expire, as the API server stores them with a TTL (``--event-ttl``, default 1 h).

A store listener notes, for every Event written, when it expires (its last write + the TTL);
``sweep`` deletes the expired ones. Without it a long-running kubesim keeps every Event ever
posted (thousands after a few thousand jobs).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from services.kubesim.apierrors import ApiError
from services.kubesim.registry import ResourceType
from services.kubesim.store import Store
from services.kubesim.watch import Event

DEFAULT_EVENT_TTL = 3600.0

_Key = tuple[str, str]  # (namespace, name)


class EventExpiry:
    """Store listener + sweeper; ``clock`` is the store's (seconds since the epoch)."""

    def __init__(self, store: Store, *, ttl: float, clock: Callable[[], float]) -> None:
        self.store = store
        self.ttl = ttl
        self.clock = clock
        self._deadline: dict[_Key, float] = {}
        self._heap: list[tuple[float, _Key]] = []

    def __call__(self, rtype: ResourceType, event: Event) -> None:
        if rtype.kind != "Event" or rtype.group:
            return
        meta = event.obj["metadata"]
        key = (str(meta.get("namespace", "")), str(meta["name"]))
        if event.type == "DELETED":
            self._deadline.pop(key, None)
            return
        due = self.clock() + self.ttl
        self._deadline[key] = due
        heapq.heappush(self._heap, (due, key))

    def sweep(self, rtype: ResourceType) -> int:
        """Delete every Event whose TTL ran out; returns how many."""
        now, removed = self.clock(), 0
        while self._heap and self._heap[0][0] <= now:
            due, key = heapq.heappop(self._heap)
            if self._deadline.get(key) != due:
                continue  # written again since: a later entry holds its deadline
            del self._deadline[key]
            try:
                self.store.delete(rtype, key[0], key[1], grace_seconds=0)
            except ApiError:
                continue  # already gone
            removed += 1
        return removed
