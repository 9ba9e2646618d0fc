"""``--data-dir``: kubesim's objects survive a restart, kill -9 included.

An append-only journal, ``<data-dir>/journal.jsonl``: one JSON line per committed change
(the object as stored, or its key for a deletion, with its resourceVersion), written with one
``write`` before the change is acknowledged, so a killed process loses nothing the OS has. On
start the journal is replayed (a torn last line from a kill is ignored) and rewritten as a
snapshot of the live objects; it is rewritten again whenever it holds many more lines than
objects. resourceVersions go on from the highest one recorded, so they stay monotonic, and
every watch history starts at that version: a watcher resuming from before the restart gets
410 Gone and re-lists, as after an API server restart.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from services.kubesim.registry import ResourceType
from services.kubesim.store import Store, object_key
from services.kubesim.watch import Event

Obj = dict[str, Any]
JOURNAL = "journal.jsonl"
# Rewrite the journal once it has this many lines per live object (and at least MIN_LINES).
COMPACT_RATIO = 4
MIN_LINES = 10_000


class Record(msgspec.Struct, omit_defaults=True):
    rv: int
    resource: str = ""
    deleted: bool = False
    obj: Obj = {}
    namespace: str = ""
    name: str = ""


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Record).decode


def _records(path: Path) -> Iterator[Record]:
    if not path.exists():
        return
    with path.open("rb") as lines:
        for line in lines:
            try:
                yield _decode(line)
            except msgspec.DecodeError:
                continue  # a line torn by a kill; everything before it is intact


class Journal:
    """The store's changes on disk; a store listener once ``open``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / JOURNAL
        self._fd = -1
        self._lines = 0

    def restore(self, store: Store) -> list[tuple[ResourceType, Obj]]:
        """Load the journal into an empty store; returns what it restored, in commit order."""
        self.directory.mkdir(parents=True, exist_ok=True)
        live: dict[tuple[str, str, str], tuple[int, Obj]] = {}
        rv = 0
        for record in _records(self.path):
            rv = max(rv, record.rv)
            if not record.resource:
                continue
            key = (record.resource, record.namespace, record.name)
            if record.deleted:
                live.pop(key, None)
            else:
                live[key] = (record.rv, record.obj)
        restored: list[tuple[ResourceType, Obj]] = []
        for (resource, _, _), (_, obj) in sorted(live.items(), key=lambda item: item[1][0]):
            table = store.tables.get(resource)
            if table is None:
                continue  # a resource this kubesim no longer serves
            meta = obj["metadata"]
            stored = object_key(table.rtype, meta.get("namespace", ""), meta["name"])
            table.objects[stored] = obj
            table.index(stored, None, obj)
            restored.append((table.rtype, obj))
        store.rv = rv
        for table in store.tables.values():
            table.hub.compacted_rv = rv
        return restored

    def open(self, store: Store) -> None:
        """Rewrite the journal as a snapshot of ``store`` and append from now on."""
        self.close()
        self._snapshot(store)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)

    def _snapshot(self, store: Store) -> None:
        tmp = self.path.with_suffix(".tmp")
        count = 0
        with tmp.open("wb") as out:
            out.write(_encode(Record(rv=store.rv)) + b"\n")
            for table in store.tables.values():
                for obj in table.objects.values():
                    out.write(_encode(self._record(table.rtype, obj, False)) + b"\n")
                    count += 1
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)
        self._lines = count

    @staticmethod
    def _record(rtype: ResourceType, obj: Obj, deleted: bool) -> Record:
        meta = obj["metadata"]
        return Record(
            rv=int(meta.get("resourceVersion") or 0),
            resource=rtype.key,
            deleted=deleted,
            obj={} if deleted else obj,
            namespace=meta.get("namespace", "") if rtype.namespaced else "",
            name=meta["name"],
        )

    def __call__(self, rtype: ResourceType, event: Event) -> None:
        if self._fd < 0:
            return
        record = self._record(rtype, event.obj, event.type == "DELETED")
        os.write(self._fd, _encode(record) + b"\n")
        self._lines += 1

    def needs_compaction(self, live_objects: int) -> bool:
        return self._lines > max(MIN_LINES, COMPACT_RATIO * live_objects)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
