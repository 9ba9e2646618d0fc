"""State-topic records for scheduler tests: models as the watcher would publish them."""

from __future__ import annotations

import itertools
from typing import Any

import msgspec

from shared.bus import Bus, Outgoing
from shared.events import ObjectAdded, ObjectDeleted, ObjectModified, encode, raw_object
from shared.models import ConfigMap, Model, Node, Pod, PodGroup, PriorityClass, Queue
from shared.topics import Topics, record_key

_KINDS: dict[type[Model], tuple[str, str]] = {
    Pod: ("v1", "Pod"),
    Node: ("v1", "Node"),
    PodGroup: ("scheduling.volcano.sh/v1beta1", "PodGroup"),
    Queue: ("scheduling.volcano.sh/v1beta1", "Queue"),
    PriorityClass: ("scheduling.k8s.io/v1", "PriorityClass"),
    ConfigMap: ("v1", "ConfigMap"),
}
_versions = itertools.count(1)


def manifest(obj: Model) -> dict[str, Any]:
    """The API dict of a model, with apiVersion, kind, a uid and a fresh resourceVersion."""
    api_version, kind = _KINDS[type(obj)]
    doc: dict[str, Any] = msgspec.to_builtins(obj)
    meta = doc.setdefault("metadata", {})
    meta.setdefault("uid", f"uid-{meta.get('namespace', '')}-{meta['name']}")
    meta["resourceVersion"] = str(next(_versions))
    return {"apiVersion": api_version, "kind": kind, **doc}


def conf_map(text: str) -> ConfigMap:
    return msgspec.convert(
        {
            "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
            "data": {"volcano-scheduler.conf": text},
        },
        ConfigMap,
    )


async def publish(bus: Bus, topics: Topics, objects: list[Model], *, event: str = "added") -> None:
    """Publish each object on its state topic (added, modified or deleted)."""
    cls = {"added": ObjectAdded, "modified": ObjectModified, "deleted": ObjectDeleted}[event]
    for obj in objects:
        doc = manifest(obj)
        key = record_key(doc)
        record = cls(
            key=key,
            kind=doc["kind"],
            resourceVersion=doc["metadata"]["resourceVersion"],
            object=raw_object(doc),
        )
        await bus.produce_many(
            topics.state(doc["kind"]), [Outgoing(value=encode(record), key=key.encode())]
        )
