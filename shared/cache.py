"""A service's cache of API objects, fed by state-topic records.

Records arrive at least once and possibly from several watchers, so applying them is idempotent:
an event whose resourceVersion is not newer than what the cache holds for that object (same uid)
is ignored. Objects are decoded into their typed model once, on apply. ``synced`` tells which
kinds have been fully listed at least once (a ListSynced marker was applied).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from shared.events import ListSynced, ObjectDeleted, ObjectEvent, StateEvent
from shared.models import KINDS, Model, Resource
from shared.models.base import ObjectMeta, object_key

_KIND_MODELS: dict[str, type[Model]] = {}
for (_api_version, _kind), _model in KINDS.items():
    _KIND_MODELS.setdefault(_kind, _model)
# batch/v1 Job and Volcano Job share a kind name; the record's apiVersion tells them apart.
_BY_API_VERSION = {(api_version, kind): model for (api_version, kind), model in KINDS.items()}


class _Head(msgspec.Struct):
    apiVersion: str = ""
    kind: str = ""


_head_decoder = msgspec.json.Decoder(_Head)


_DELETED_KEPT = 100_000


def _rv(value: str) -> int:
    return int(value) if value.isdigit() else -1


# Kinds whose every modelled apiVersion has the same model: the record's ``kind`` names the
# model, and only the decoded apiVersion needs checking (no separate pass over the JSON).
_ONE_MODEL: dict[str, tuple[type[Model], frozenset[str]]] = {}
for _kind in {kind for _, kind in KINDS}:
    _models = {model for (_, kind), model in KINDS.items() if kind == _kind}
    if len(_models) == 1:
        _versions = frozenset(v for (v, kind) in KINDS if kind == _kind)
        _ONE_MODEL[_kind] = (_models.pop(), _versions)
_DECODERS: dict[type[Model], msgspec.json.Decoder[Any]] = {}


def _decoder(model: type[Model]) -> msgspec.json.Decoder[Any]:
    found = _DECODERS.get(model)
    if found is None:
        found = _DECODERS[model] = msgspec.json.Decoder(model, strict=False)
    return found


def decode_object(event: ObjectEvent) -> Model:
    """The typed model of a state record's object (``Resource`` for unmodelled kinds)."""
    known = _ONE_MODEL.get(event.kind)
    if known is not None:
        try:
            obj = _decoder(known[0]).decode(event.object)
        except msgspec.ValidationError:
            obj = None  # decided below, by the object's own apiVersion and kind
        if getattr(obj, "apiVersion", "") in known[1] and getattr(obj, "kind", "") == event.kind:
            return obj  # type: ignore[no-any-return]
    head = _head_decoder.decode(event.object)
    model = _BY_API_VERSION.get((head.apiVersion, head.kind)) or Resource
    return _decoder(model).decode(event.object)  # type: ignore[no-any-return]


class ObjectCache:
    """Typed objects by (apiVersion/kind, namespace/name), with change callbacks."""

    def __init__(
        self, *, on_change: Callable[[str, Model | None, Model | None], None] | None = None
    ) -> None:
        self._objects: dict[str, dict[str, Model]] = {}
        self._on_change = on_change
        self._deleted: dict[str, None] = {}  # uids recently deleted, oldest first
        self._journals: dict[str, set[str]] = {}
        self.synced: set[str] = set()
        self.applied = 0
        self.ignored = 0

    @staticmethod
    def type_key(obj: Model) -> str:
        api_version = getattr(obj, "apiVersion", "")
        return f"{api_version}/{getattr(obj, 'kind', '')}"

    def apply(self, event: StateEvent) -> Model | None:
        """Apply one record; returns the object if it changed the cache, else None."""
        if isinstance(event, ListSynced):
            self.synced.add(event.kind)
            return None
        obj = decode_object(event)
        meta: ObjectMeta = obj.metadata  # type: ignore[attr-defined]
        type_key = self.type_key(obj)
        bucket = self._objects.setdefault(type_key, {})
        key = object_key(meta)
        current = bucket.get(key)
        cur_meta: ObjectMeta | None = current.metadata if current is not None else None  # type: ignore[attr-defined]
        if isinstance(event, ObjectDeleted):
            if cur_meta is None or (meta.uid and cur_meta.uid and meta.uid != cur_meta.uid):
                self.ignored += 1
                return None
            del bucket[key]
            self._remember_deleted(cur_meta.uid)
            self.applied += 1
            if self._journals:
                self._note(type_key, key)
            if self._on_change:
                self._on_change(key, current, None)
            return obj
        if meta.uid and meta.uid in self._deleted:
            self.ignored += 1  # a late duplicate of an object already deleted
            return None
        if (
            cur_meta is not None
            and cur_meta.uid == meta.uid
            and _rv(meta.resourceVersion) <= _rv(cur_meta.resourceVersion)
        ):
            self.ignored += 1  # a duplicate or an older version
            return None
        bucket[key] = obj
        self.applied += 1
        if self._journals:
            self._note(type_key, key)
        if self._on_change:
            self._on_change(key, current, obj)
        return obj

    def journal(self, type_key: str) -> set[str]:
        """The keys of the objects of ``type_key`` changed (added, modified, deleted) from now
        on, for a reader who keeps its own view and clears the set as it reads it."""
        return self._journals.setdefault(type_key, set())

    def _note(self, type_key: str, key: str) -> None:
        journal = self._journals.get(type_key)
        if journal is not None:
            journal.add(key)

    def _remember_deleted(self, uid: str) -> None:
        if not uid:
            return
        self._deleted[uid] = None
        if len(self._deleted) > _DELETED_KEPT:
            del self._deleted[next(iter(self._deleted))]

    def apply_all(self, events: Iterable[StateEvent]) -> None:
        for event in events:
            self.apply(event)

    def get(self, type_key: str, key: str) -> Any:
        return self._objects.get(type_key, {}).get(key)

    def objects(self, type_key: str) -> Iterator[Any]:
        return iter(self._objects.get(type_key, {}).values())

    def items(self, type_key: str) -> Iterator[tuple[str, Any]]:
        return iter(self._objects.get(type_key, {}).items())

    def count(self, type_key: str) -> int:
        return len(self._objects.get(type_key, {}))
