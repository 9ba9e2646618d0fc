"""What the watcher knows of one resource, and the state events each observation produces.

Pure: LIST results and WATCH events go in, state events come out. The mirror keeps, per object,
only what a DELETED record needs (kind, name, namespace, uid, owner references,
resourceVersion), so a re-list after 410 Gone can publish DELETED for objects that vanished
meanwhile without holding whole objects in memory.
"""

from __future__ import annotations

from typing import Any

from shared.events import (
    ListSynced,
    ObjectAdded,
    ObjectDeleted,
    ObjectEvent,
    ObjectModified,
    raw_object,
)
from shared.topics import object_key, record_key

Json = dict[str, Any]


def _stub(obj: Json) -> Json:
    meta = obj.get("metadata") or {}
    kept = {k: meta[k] for k in ("name", "namespace", "uid", "ownerReferences") if k in meta}
    kept["resourceVersion"] = meta.get("resourceVersion", "")
    return {"apiVersion": obj.get("apiVersion", ""), "kind": obj.get("kind", ""), "metadata": kept}


class ResourceMirror:
    """The watcher's view of one resource type (e.g. all pods)."""

    def __init__(self, *, kind: str, api_version: str, producer: str) -> None:
        self.kind = kind
        self.api_version = api_version
        self.producer = producer
        self.resource_version = ""
        self._known: dict[str, Json] = {}

    def __len__(self) -> int:
        return len(self._known)

    def _event(self, cls: type[ObjectEvent], obj: Json) -> ObjectEvent:
        obj.setdefault("apiVersion", self.api_version)
        obj.setdefault("kind", self.kind)
        meta = obj.get("metadata") or {}
        return cls(
            key=record_key(obj),
            kind=self.kind,
            resourceVersion=str(meta.get("resourceVersion", "")),
            object=raw_object(obj),
            producer=self.producer,
        )

    def listed(self, items: list[Json], resource_version: str) -> list[ObjectEvent | ListSynced]:
        """A full LIST: new or changed objects, DELETED for vanished ones, then a sync marker."""
        events: list[ObjectEvent | ListSynced] = []
        seen: dict[str, Json] = {}
        for obj in items:
            obj.setdefault("apiVersion", self.api_version)
            obj.setdefault("kind", self.kind)
            key = object_key(obj)
            previous = self._known.get(key)
            stub = _stub(obj)
            seen[key] = stub
            if previous is None:
                events.append(self._event(ObjectAdded, obj))
            elif previous["metadata"]["resourceVersion"] != stub["metadata"]["resourceVersion"]:
                events.append(self._event(ObjectModified, obj))
        for key, stub in self._known.items():
            if key not in seen:
                events.append(self._event(ObjectDeleted, dict(stub)))
        self._known = seen
        self.resource_version = resource_version
        events.append(
            ListSynced(
                key=self.kind,
                kind=self.kind,
                resourceVersion=resource_version,
                count=len(seen),
                producer=self.producer,
            )
        )
        return events

    def watched(self, event_type: str, obj: Json) -> ObjectEvent | None:
        """One WATCH event; bookmarks only advance the resourceVersion."""
        meta = obj.get("metadata") or {}
        rv = str(meta.get("resourceVersion", ""))
        if rv:
            self.resource_version = rv
        if event_type == "BOOKMARK":
            return None
        key = object_key(obj)
        if event_type == "DELETED":
            self._known.pop(key, None)
            return self._event(ObjectDeleted, obj)
        if event_type in ("ADDED", "MODIFIED"):
            previous = self._known.get(key)
            self._known[key] = _stub(obj)
            cls = ObjectAdded if previous is None else ObjectModified
            return self._event(cls, obj)
        return None
