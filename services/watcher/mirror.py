"""What the watcher knows of one resource, and the state events each observation produces.

Pure: LIST results and WATCH events go in, state events come out. The mirror keeps, per object,
only what a DELETED record needs (kind, name, namespace, uid, owner references,
resourceVersion), so a re-list after 410 Gone can publish DELETED for objects that vanished
meanwhile without holding whole objects in memory. A watched object arrives as its JSON
(``watched_raw``): only its head (kind, metadata, a Command's target) is decoded, and the
record carries the bytes as they came, instead of decoding and re-encoding every object.
"""

from __future__ import annotations

from typing import Any

import msgspec

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


_HEAD_META = ("name", "namespace", "uid", "resourceVersion", "ownerReferences")


class _HeadMeta(msgspec.Struct):
    name: Any = msgspec.UNSET
    namespace: Any = msgspec.UNSET
    uid: Any = msgspec.UNSET
    resourceVersion: Any = msgspec.UNSET
    ownerReferences: Any = msgspec.UNSET


class _Head(msgspec.Struct):
    """What the mirror reads of an object: its record key, and its stub."""

    apiVersion: Any = msgspec.UNSET
    kind: Any = msgspec.UNSET
    metadata: _HeadMeta | None = None
    target: Any = msgspec.UNSET

    def as_dict(self) -> Json:
        meta = self.metadata
        kept: Json = {}
        if meta is not None:
            for name in _HEAD_META:
                value = getattr(meta, name)
                if value is not msgspec.UNSET:
                    kept[name] = value
        head: Json = {"apiVersion": self.apiVersion, "kind": self.kind, "metadata": kept}
        if self.target is not msgspec.UNSET:
            head["target"] = self.target
        return head


_head_decoder = msgspec.json.Decoder(_Head)


def _named(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


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

    def _event(
        self, cls: type[ObjectEvent], obj: Json, raw: msgspec.Raw | None = None
    ) -> ObjectEvent:
        """The record of ``obj``; ``raw``, when given, is its JSON (``obj`` its head)."""
        obj.setdefault("apiVersion", self.api_version)
        obj.setdefault("kind", self.kind)
        meta = obj.get("metadata") or {}
        return cls(
            key=record_key(obj),
            kind=self.kind,
            resourceVersion=str(meta.get("resourceVersion", "")),
            object=raw if raw is not None else raw_object(obj),
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

    def watched_raw(self, event_type: str, raw: msgspec.Raw) -> ObjectEvent | None:
        """``watched`` for an object as JSON, published as it came when it names its
        apiVersion and kind (as the API server's watch events do)."""
        try:
            head: _Head | None = _head_decoder.decode(raw)
        except msgspec.ValidationError:
            head = None
        if head is not None and _named(head.apiVersion) and _named(head.kind):
            return self.watched(event_type, head.as_dict(), raw)
        whole = msgspec.json.decode(raw)
        return self.watched(event_type, whole if isinstance(whole, dict) else {})

    def watched(
        self, event_type: str, obj: Json, raw: msgspec.Raw | None = None
    ) -> ObjectEvent | None:
        """One WATCH event; bookmarks only advance the resourceVersion. ``raw``, when given,
        is the object's JSON and ``obj`` its head (``watched_raw``)."""
        meta = obj.get("metadata") or {}
        rv = str(meta.get("resourceVersion", ""))
        if rv:
            self.resource_version = rv
        if event_type == "BOOKMARK":
            return None
        key = object_key(obj)
        if event_type == "DELETED":
            self._known.pop(key, None)
            return self._event(ObjectDeleted, obj, raw)
        if event_type in ("ADDED", "MODIFIED"):
            previous = self._known.get(key)
            self._known[key] = _stub(obj)
            cls = ObjectAdded if previous is None else ObjectModified
            return self._event(cls, obj, raw)
        return None
