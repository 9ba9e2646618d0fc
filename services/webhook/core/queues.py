"""What the webhooks read from the cluster: Volcano Queues (as Volcano's webhook-manager reads
them through its informer), namespace annotations (the PodGroup mutation) and whether a
namespace has Kueue's default LocalQueue (Kueue's job webhook).

The core reads through this protocol only; kubesim answers from its store, the HTTPS shell from
a snapshot it lists before it calls the core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

Obj = dict[str, Any]


class QueueLister(Protocol):
    def get(self, name: str) -> Obj | None: ...

    def all(self) -> list[Obj]: ...

    def children(self, parent: str) -> list[Obj]:
        """Queues whose ``spec.parent`` is ``parent`` (``GetQueuesByParent``)."""
        ...


class ClusterView(QueueLister, Protocol):
    def namespace_annotations(self, namespace: str) -> Mapping[str, str] | None:
        """The namespace's annotations; None when it cannot be read."""
        ...

    def default_local_queue_exists(self, namespace: str) -> bool:
        """Kueue's ``DefaultLocalQueueExist``: a LocalQueue named ``default`` in ``namespace``."""
        ...


class ListedQueues:
    """A QueueLister over a fixed list of Queues."""

    def __init__(self, queues: Iterable[Obj]) -> None:
        self.by_name = {q["metadata"]["name"]: q for q in queues}

    def get(self, name: str) -> Obj | None:
        return self.by_name.get(name)

    def all(self) -> list[Obj]:
        return list(self.by_name.values())

    def children(self, parent: str) -> list[Obj]:
        return [q for q in self.by_name.values() if (q.get("spec") or {}).get("parent") == parent]


class Snapshot(ListedQueues):
    """A ClusterView over data read beforehand."""

    def __init__(
        self,
        queues: Iterable[Obj] = (),
        *,
        namespaces: Mapping[str, Mapping[str, str]] | None = None,
        default_local_queues: Iterable[str] = (),
    ) -> None:
        super().__init__(queues)
        self.namespaces = dict(namespaces or {})
        self.default_local_queues = frozenset(default_local_queues)

    def namespace_annotations(self, namespace: str) -> Mapping[str, str] | None:
        return self.namespaces.get(namespace)

    def default_local_queue_exists(self, namespace: str) -> bool:
        return namespace in self.default_local_queues
