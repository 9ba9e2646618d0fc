"""A small in-memory API server for the job-controller shell tests (a fake, not a mock).

It stores objects by (apiVersion/kind, namespace/name), assigns uids and resourceVersions,
answers 409 AlreadyExists / 404 NotFound like the real one, applies merge patches, and records
every call. ``fail`` queues errors for the next matching calls. ``on_change`` (e.g. publishing
to a MemoryBus, as the watcher would) sees every ADDED/MODIFIED/DELETED.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from typing import Any

from shared.events import ObjectAdded, ObjectDeleted, ObjectEvent, ObjectModified, raw_object
from shared.kube import ApiError, ResourceType
from shared.kube.keys import object_key
from shared.kube.patch import merge_patch
from shared.models import Json
from shared.topics import record_key

Call = tuple[str, str, str]  # (verb, kind, namespace/name)


class FakeKube:
    def __init__(self, on_change: Callable[[ObjectEvent], None] | None = None) -> None:
        self.objects: dict[tuple[str, str], Json] = {}
        self.calls: list[tuple[str, str, str, Any]] = []  # (verb, kind, key, body/options)
        self.failures: dict[Call, list[ApiError]] = {}
        self.on_change = on_change
        self._rv = itertools.count(1)
        self._uid = itertools.count(1)
        self._names = itertools.count(1)

    def fail(self, verb: str, kind: str, key: str, *errors: ApiError) -> None:
        """The next calls of ``verb`` on ``kind`` ``key`` ('*' matches any key) raise these."""
        self.failures.setdefault((verb, kind, key), []).extend(errors)

    def stored(self, rt: ResourceType | str, key: str) -> Json | None:
        type_key = rt if isinstance(rt, str) else f"{rt.api_version}/{rt.kind}"
        return self.objects.get((type_key, key))

    def of_kind(self, kind: str) -> list[Json]:
        return [obj for (type_key, _), obj in self.objects.items() if type_key.endswith(f"/{kind}")]

    def verbs(self, verb: str, kind: str | None = None) -> list[str]:
        return [key for v, k, key, _ in self.calls if v == verb and kind in (None, k)]

    def put(self, obj: Json) -> Json:
        """Store ``obj`` as if created by someone else (no call recorded)."""
        return self._store(obj, ObjectAdded)

    def _check(self, verb: str, kind: str, key: str) -> None:
        for wanted in ((verb, kind, key), (verb, kind, "*")):
            queued = self.failures.get(wanted)
            if queued:
                raise queued.pop(0)

    def _store(self, obj: Json, event: type[ObjectEvent]) -> Json:
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", f"uid-{next(self._uid)}")
        meta["resourceVersion"] = str(next(self._rv))
        key = _key(obj)
        self.objects[(f"{obj['apiVersion']}/{obj['kind']}", key)] = obj
        self._emit(event, obj)
        return obj

    def _emit(self, event: type[ObjectEvent], obj: Json) -> None:
        if self.on_change is not None:
            self.on_change(
                event(
                    key=record_key(obj),
                    kind=obj["kind"],
                    resourceVersion=obj["metadata"]["resourceVersion"],
                    object=raw_object(obj),
                )
            )

    async def create(self, rt: ResourceType, obj: Json, namespace: str | None = None) -> Json:
        obj = merge_patch({}, obj)  # a deep copy
        meta = obj.setdefault("metadata", {})
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = f"{meta['generateName']}{next(self._names):05d}"
        key = _key(obj)
        self.calls.append(("create", rt.kind, key, obj))
        self._check("create", rt.kind, key)
        if (f"{rt.api_version}/{rt.kind}", key) in self.objects:
            raise ApiError(409, "AlreadyExists", f"{rt.plural} {meta['name']} already exists")
        obj.setdefault("apiVersion", rt.api_version)
        obj.setdefault("kind", rt.kind)
        return self._store(obj, ObjectAdded)

    async def create_unread(
        self, rt: ResourceType, obj: Json, namespace: str | None = None
    ) -> None:
        await self.create(rt, obj, namespace)

    async def patch(
        self,
        rt: ResourceType,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> Json:
        key = object_key(namespace, name)
        verb = f"patch/{subresource}" if subresource else "patch"
        self.calls.append((verb, rt.kind, key, patch))
        self._check(verb, rt.kind, key)
        current = self.stored(rt, key)
        if current is None:
            raise ApiError(404, "NotFound", f"{rt.plural} {name} not found")
        updated: Json = merge_patch(current, patch)
        return self._store(updated, ObjectModified)

    async def get(self, rt: ResourceType, name: str, namespace: str | None = None) -> Json:
        key = object_key(namespace, name)
        self.calls.append(("get", rt.kind, key, None))
        self._check("get", rt.kind, key)
        current = self.objects.get((f"{rt.api_version}/{rt.kind}", key))
        if current is None:
            raise ApiError(404, "NotFound", f"{rt.plural} {name} not found")
        return copy.deepcopy(current)

    async def delete(
        self,
        rt: ResourceType,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: str | None = None,
        uid: str | None = None,
    ) -> Json:
        key = object_key(namespace, name)
        self.calls.append(("delete", rt.kind, key, {"propagation": propagation_policy, "uid": uid}))
        self._check("delete", rt.kind, key)
        stored = self.objects.get((f"{rt.api_version}/{rt.kind}", key))
        if stored is None:
            raise ApiError(404, "NotFound", f"{rt.plural} {name} not found")
        if uid and stored["metadata"].get("uid") != uid:
            raise ApiError(409, "Conflict", f"Precondition failed: UID in precondition: {uid}")
        current = self.objects.pop((f"{rt.api_version}/{rt.kind}", key))
        self._emit(ObjectDeleted, current)
        return current


def _key(obj: Json) -> str:
    meta = obj["metadata"]
    return object_key(meta.get("namespace"), str(meta["name"]))
