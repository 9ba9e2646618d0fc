"""The Queue lister the Volcano webhooks consult, over kubesim's store."""

from __future__ import annotations

from typing import Any, Protocol

Obj = dict[str, Any]


class QueueLister(Protocol):
    def get(self, name: str) -> Obj | None: ...

    def all(self) -> list[Obj]: ...

    def children(self, parent: str) -> list[Obj]:
        """Queues whose ``spec.parent`` is ``parent`` (``GetQueuesByParent``)."""
        ...


class ListedQueues:
    """A QueueLister over a fixed list (tests, and the store's current Queues)."""

    def __init__(self, queues: list[Obj]) -> None:
        self.by_name = {q["metadata"]["name"]: q for q in queues}

    def get(self, name: str) -> Obj | None:
        return self.by_name.get(name)

    def all(self) -> list[Obj]:
        return list(self.by_name.values())

    def children(self, parent: str) -> list[Obj]:
        return [q for q in self.by_name.values() if (q.get("spec") or {}).get("parent") == parent]
