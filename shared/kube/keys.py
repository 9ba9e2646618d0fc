"""Object keys: ``namespace/name`` strings, as client-go's ``MetaNamespaceKeyFunc`` writes them.

Two conventions, on purpose: ``object_key`` leaves a cluster-scoped object (no namespace) as
its bare name (cache and topic keys, where Nodes and Queues live next to Pods), while
``namespaced_key`` fills in ``default`` as the API server does for a namespaced object
submitted without one (manifests read from a file, pods of a job).
"""

from __future__ import annotations

from typing import Protocol

DEFAULT_NAMESPACE = "default"


class NamedObject(Protocol):
    """Anything with ``metadata.namespace`` and ``metadata.name`` (every model, a Pod say)."""

    @property
    def metadata(self) -> _Meta: ...


class _Meta(Protocol):
    @property
    def namespace(self) -> str | None: ...

    @property
    def name(self) -> str: ...


def object_key(namespace: str | None, name: str) -> str:
    """``namespace/name``, or ``name`` alone for a cluster-scoped object."""
    return f"{namespace}/{name}" if namespace else name


def namespaced_key(namespace: str | None, name: str) -> str:
    """``namespace/name`` with the namespace defaulted to ``default``."""
    return f"{namespace or DEFAULT_NAMESPACE}/{name}"


def split_key(key: str) -> tuple[str, str]:
    """``(namespace, name)`` of a key; the namespace is ``""`` for a cluster-scoped key."""
    namespace, _, name = key.rpartition("/")
    return namespace, name


def key_of(obj: NamedObject) -> str:
    """The ``namespace/name`` key of a namespaced object (``namespaced_key`` of its metadata)."""
    return namespaced_key(obj.metadata.namespace, obj.metadata.name)
