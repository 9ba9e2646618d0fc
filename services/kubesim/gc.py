"""Garbage collection by ownerReferences, as the kube-controller-manager's GC does.

The collector keeps an index owner uid → dependents from the store's change stream and acts
on it after the change that triggered it (deferred with ``defer``, never nested in a commit):

- Background: after an owner is gone, its dependents are deleted (or, when they have other
  live owners, the dangling reference is removed).
- Orphan: the owner carries the ``orphan`` finalizer; dependents lose their reference to it,
  then the finalizer is removed and the owner goes.
- Foreground: the owner carries ``foregroundDeletion``; its dependents are deleted, and the
  finalizer is removed once the last of them is gone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from services.kubesim.apierrors import ApiError
from services.kubesim.registry import ResourceType
from services.kubesim.store import Key, Store, object_key
from services.kubesim.watch import Event

Obj = dict[str, Any]
Location = tuple[str, Key]  # (table key, object key)
Defer = Callable[[Callable[[], None]], object]


def _owner_uids(obj: Obj | None) -> tuple[str, ...]:
    if obj is None:
        return ()
    refs = obj["metadata"].get("ownerReferences")
    if not refs:
        return ()
    return tuple(r.get("uid", "") for r in refs)


class GarbageCollector:
    """A store listener that deletes or orphans dependents of deleted owners."""

    def __init__(self, store: Store, *, defer: Defer) -> None:
        self.store = store
        self.defer = defer
        self.dependents: dict[str, set[Location]] = {}
        self.locations: dict[str, Location] = {}
        self._started: set[str] = set()

    def __call__(self, rtype: ResourceType, event: Event) -> None:
        obj, old = event.obj, event.old
        meta = obj["metadata"]
        uid = meta["uid"]
        location = (rtype.key, object_key(rtype, meta.get("namespace", ""), meta["name"]))
        old_refs = old["metadata"].get("ownerReferences") if old is not None else None
        if event.type == "DELETED":
            self.locations.pop(uid, None)
            self._started.discard(uid)
            for owner in _owner_uids(obj):
                self._unlink(owner, location)
                self.defer(functools.partial(self._finish_foreground, owner))
            if uid in self.dependents:
                self.defer(lambda: self._collect(uid))
            return
        self.locations[uid] = location
        if old is None or old_refs is not meta.get("ownerReferences"):
            for owner in _owner_uids(old):
                self._unlink(owner, location)
            for owner in _owner_uids(obj):
                self.dependents.setdefault(owner, set()).add(location)
        finalizers = meta.get("finalizers")
        if finalizers and meta.get("deletionTimestamp") and uid not in self._started:
            if "orphan" in finalizers:
                self._started.add(uid)
                self.defer(lambda: self._orphan(uid))
            elif "foregroundDeletion" in finalizers:
                self._started.add(uid)
                self.defer(lambda: self._foreground(uid))

    def _unlink(self, owner: str, location: Location) -> None:
        deps = self.dependents.get(owner)
        if deps is not None:
            deps.discard(location)
            if not deps:
                del self.dependents[owner]

    def _lookup(self, location: Location) -> tuple[ResourceType, Obj] | None:
        table = self.store.tables[location[0]]
        obj = table.objects.get(location[1])
        return (table.rtype, obj) if obj is not None else None

    def _drop_reference(self, rtype: ResourceType, obj: Obj, owner: str) -> None:
        refs = [r for r in obj["metadata"].get("ownerReferences") or [] if r.get("uid") != owner]
        meta = {**obj["metadata"], "ownerReferences": refs}
        if not refs:
            del meta["ownerReferences"]
        self.store.replace(rtype, obj, {**obj, "metadata": meta})

    def _collect(self, owner: str) -> None:
        for location in list(self.dependents.pop(owner, ())):
            found = self._lookup(location)
            if found is None:
                continue
            rtype, obj = found
            live = [u for u in _owner_uids(obj) if u != owner and u in self.locations]
            try:
                if live:
                    self._drop_reference(rtype, obj, owner)
                else:
                    meta = obj["metadata"]
                    self.store.delete(rtype, meta.get("namespace", ""), meta["name"])
            except ApiError:
                continue  # already gone or changed meanwhile; nothing left to collect

    def _orphan(self, owner: str) -> None:
        for location in list(self.dependents.get(owner, ())):
            found = self._lookup(location)
            if found is not None:
                self._drop_reference(found[0], found[1], owner)
        self._remove_finalizer(owner, "orphan")

    def _foreground(self, owner: str) -> None:
        for location in list(self.dependents.get(owner, ())):
            found = self._lookup(location)
            if found is None:
                continue
            meta = found[1]["metadata"]
            try:
                self.store.delete(found[0], meta.get("namespace", ""), meta["name"])
            except ApiError:
                continue
        self._finish_foreground(owner)

    def _finish_foreground(self, owner: str) -> None:
        if owner not in self.dependents and owner in self._started:
            self._remove_finalizer(owner, "foregroundDeletion")

    def _remove_finalizer(self, owner: str, finalizer: str) -> None:
        location = self.locations.get(owner)
        found = self._lookup(location) if location is not None else None
        if found is None:
            return
        rtype, obj = found
        current = obj["metadata"].get("finalizers") or []
        if finalizer not in current:
            return
        finalizers = [f for f in current if f != finalizer]
        meta = {**obj["metadata"], "finalizers": finalizers}
        if not finalizers:
            del meta["finalizers"]
        self.store.replace(rtype, obj, {**obj, "metadata": meta})
