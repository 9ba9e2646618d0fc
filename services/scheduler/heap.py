"""Keeping the cyclic garbage collector off the scheduler's long-lived cache.

The scheduler's cache holds every object it follows (15,000 Workloads and their history in
Kueue's baseline): millions of Python objects that live for the whole run. CPython's full
collections walk all of them, and a growing cache triggers one every time it grows by a
quarter, each a pause of the event loop. Objects that survived a collection and are still
alive between cycles are moved out of the collector's sight (``gc.freeze``): after the
rebuild, and after each cycle in which a full collection ran anyway (so the frozen set
follows the cache as it grows, at the price of one more pass over what is not frozen yet).
Nothing is lost: frozen objects are still freed when their last reference goes (cache
objects are replaced, not cyclic), and the collection just before each freeze leaves no
cyclic garbage to freeze. Only a cycle of objects alive at a freeze that becomes garbage
later is never collected: the cache holds none, and freezes are few (as full collections).
"""

from __future__ import annotations

import gc
from typing import Any


class HeapFreezer:
    def __init__(self) -> None:
        self.freezes = 0
        self._full_collections = 0
        self._seen = 0

    def start(self) -> None:
        """Follow full collections (call once)."""
        gc.callbacks.append(self._on_collect)

    def stop(self) -> None:
        if self._on_collect in gc.callbacks:
            gc.callbacks.remove(self._on_collect)

    def _on_collect(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info.get("generation") == 2:
            self._full_collections += 1

    def freeze(self) -> None:
        """Collect, then keep what survived out of later collections (after the rebuild)."""
        gc.collect()
        gc.freeze()
        self.freezes += 1
        self._seen = self._full_collections

    def after_cycle(self) -> bool:
        """Between cycles (no run's objects alive): freeze again if a full collection ran
        since the last freeze; returns whether it did."""
        if self._full_collections == self._seen:
            return False
        self.freeze()
        return True
