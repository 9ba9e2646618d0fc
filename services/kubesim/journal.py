"""``--data-dir``: kubesim's objects survive a restart, kill -9 included, and damage is never
dropped quietly.

An append-only journal, ``<data-dir>/journal.wal``: one frame per committed change (the object
as stored, or its key for a deletion, with its resourceVersion and a sequence number), each
checked by a length and a CRC32C (``journal_frames``). Every change is written with one
``write`` before it is acknowledged, so a killed process loses nothing the OS has; the file is
fsynced at most ``fsync_interval`` seconds after a write (1 s by default, Redis's
``appendfsync everysec``; 0 fsyncs every write), which bounds what a power loss can take.

On start the journal is replayed. A torn last frame (a kill in the middle of a write) is
dropped, as before. Anything else that does not check (a flipped byte, garbage, a wrong
length, a repeated sequence number, records missing) stops the start with one line naming the
file, the record and its byte offset (``JournalDamaged``, exit 2), unless ``repair`` is set:
then every valid record is kept, the damaged bytes are moved to
``journal.damaged-<time>`` beside the journal, and the objects whose changes were lost are
reported. An old-format ``journal.jsonl`` (one JSON line per change, no checksum) is read the
same way and migrated. The journal is then rewritten as a snapshot of the live objects, and
again whenever it holds many more records than objects. resourceVersions go on from the
highest one recorded, so every watch history starts there: a watcher resuming from before the
restart gets 410 Gone and re-lists, as after an API server restart.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from services.kubesim.journal_frames import (
    FILE_HEADER,
    MAGIC,
    Damage,
    Scan,
    frame,
    scan_frames,
    scan_lines,
)
from services.kubesim.registry import ResourceType
from services.kubesim.store import Store, object_key
from services.kubesim.watch import Event
from shared.errors import UserError

Obj = dict[str, Any]
JOURNAL = "journal.wal"
LEGACY_JOURNAL = "journal.jsonl"
# Rewrite the journal once it has this many records per live object (and at least MIN_RECORDS).
COMPACT_RATIO = 4
MIN_RECORDS = 10_000
DEFAULT_FSYNC_INTERVAL = 1.0


class Record(msgspec.Struct, omit_defaults=True):
    # The key fields come before ``obj`` so that damaged bytes still name their object.
    seq: int = 0
    rv: int = 0
    resource: str = ""
    namespace: str = ""
    name: str = ""
    deleted: bool = False
    obj: Obj = {}


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Record).decode
_KEY = re.compile(rb'"resource":"([^"\\]+)"(?:,"namespace":"([^"\\]*)")?,"name":"([^"\\]+)"')
_LEGACY_KEY = re.compile(
    rb'"resource":"([^"\\]+)".*?(?:"namespace":"([^"\\]*)",)?"name":"([^"\\]+)"\}$', re.DOTALL
)


class JournalDamaged(UserError):
    """The journal holds bytes that are no valid record; start with ``--repair`` to go on."""


@dataclass(frozen=True, slots=True)
class Loss:
    """Damaged bytes of the journal and what they held, as far as can be told."""

    record: int
    damage: Damage
    objects: tuple[str, ...]
    unidentified: int

    def describe(self) -> str:
        held = [*self.objects]
        if self.unidentified:
            held.append(f"{self.unidentified} unidentified record(s)")
        what = ", ".join(held) if held else "no record"
        where = f"record {self.record} at byte {self.damage.offset}"
        return (
            f"{where} ({self.damage.end - self.damage.offset} bytes, {self.damage.reason}): {what}"
        )


@dataclass(slots=True)
class _Replay:
    records: list[Record]
    losses: list[Loss]


def _identify(raw: bytes, legacy: bool) -> tuple[str, ...]:
    if legacy:
        found = _LEGACY_KEY.search(raw.rstrip(b"\n"))
        matches = [found] if found else []
    else:
        matches = list(_KEY.finditer(raw))
    keys = []
    for match in matches:
        resource, namespace, name = (part.decode("utf-8", "replace") for part in match.groups(b""))
        keys.append(f"{resource} {namespace}/{name}" if namespace else f"{resource} {name}")
    return tuple(keys)


def _lost_in(damaged: bytes, legacy: bool) -> int:
    """How many records a damaged range held, when no later record tells by its number."""
    if legacy:
        return 1  # one line, one record
    return max(len(_identify(damaged, legacy)), int(MAGIC in damaged))


def _replay(data: bytes, scan: Scan, legacy: bool) -> _Replay:
    """The valid records in order, and a Loss for each damaged range. Sequence numbers (new
    format) tell exactly how many records a damaged range held."""
    replay = _Replay([], [])
    last_seq = 0
    pending: list[tuple[int, Damage]] = []

    def settle(next_seq: int | None) -> None:
        spans = [data[damage.offset : damage.end] for _, damage in pending]
        if next_seq is not None and not legacy:
            left = next_seq - last_seq - 1
        else:
            left = sum(_lost_in(span, legacy) for span in spans)
        for index, ((ordinal, damage), span) in enumerate(zip(pending, spans, strict=True)):
            objects = _identify(span, legacy)[:left]
            left -= len(objects)
            unidentified = left if index == len(pending) - 1 else 0
            replay.losses.append(Loss(ordinal, damage, objects, unidentified))
        pending.clear()

    for ordinal, item in enumerate(scan.items, start=1):
        if isinstance(item, Damage):
            pending.append((ordinal, item))
            continue
        try:
            record = _decode(item.payload)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # msgspec raises both
            pending.append((ordinal, Damage(item.offset, item.end, f"undecodable: {exc}")))
            continue
        if not legacy and record.seq <= last_seq:
            reason = f"repeats sequence number {record.seq} (a duplicated record)"
            replay.losses.append(Loss(ordinal, Damage(item.offset, item.end, reason), (), 0))
            continue
        if not legacy and record.seq > last_seq + 1 and not pending:
            missing = f"records {last_seq + 1}-{record.seq - 1} missing before this one"
            gap = Damage(item.offset, item.offset, missing)
            replay.losses.append(Loss(ordinal, gap, (), record.seq - last_seq - 1))
        settle(record.seq)
        last_seq = record.seq
        replay.records.append(record)
    settle(None)
    replay.losses.sort(key=lambda loss: loss.record)
    return replay


class Journal:
    """The store's changes on disk; a store listener once ``open``."""

    def __init__(
        self,
        directory: Path,
        *,
        fsync_interval: float = DEFAULT_FSYNC_INTERVAL,
        repair: bool = False,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.directory = directory
        self.path = directory / JOURNAL
        self.legacy_path = directory / LEGACY_JOURNAL
        self.fsync_interval = fsync_interval
        self.repair = repair
        self._report = report or (lambda line: print(f"kubesim: {line}", file=sys.stderr))
        self.losses: list[Loss] = []
        self._fd = -1
        self._records = 0
        self._seq = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sync_due: asyncio.TimerHandle | None = None

    def restore(self, store: Store) -> list[tuple[ResourceType, Obj]]:
        """Load the journal into an empty store; returns what it restored, in commit order.
        Raises ``JournalDamaged`` for damage unless ``repair``."""
        self.directory.mkdir(parents=True, exist_ok=True)
        records = self._read()
        live: dict[tuple[str, str, str], tuple[int, Obj]] = {}
        rv = 0
        for record in records:
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

    def _read(self) -> list[Record]:
        legacy = not self.path.exists() and self.legacy_path.exists()
        path = self.legacy_path if legacy else self.path
        if not path.exists():
            return []
        data = path.read_bytes()
        if not data:
            return []
        scan = scan_lines(data) if legacy else scan_frames(data)
        replay = _replay(data, scan, legacy)
        self.losses = replay.losses
        if replay.losses and not self.repair:
            first = replay.losses[0]
            more = len(replay.losses) - 1
            also = f"; {more} more damaged range(s)" if more else ""
            raise JournalDamaged(
                f"journal {path} is damaged at record {first.record}, byte offset "
                f"{first.damage.offset}: {first.damage.reason}{also}; `shoal run kubesim "
                f"--data-dir {self.directory} --repair` keeps every valid record and moves "
                "the damaged bytes aside"
            )
        if replay.losses:
            self._set_aside(path, data, replay.losses, kept=len(replay.records))
        return replay.records

    def _set_aside(self, path: Path, data: bytes, losses: list[Loss], *, kept: int) -> None:
        aside = path.with_name(f"journal.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        with aside.open("wb") as out:
            for loss in losses:
                out.write(data[loss.damage.offset : loss.damage.end])
            out.flush()
            os.fsync(out.fileno())
        lost = sum(len(loss.objects) + loss.unidentified for loss in losses)
        self._report(
            f"repaired journal {path}: kept {kept} records, moved {len(losses)} damaged "
            f"range(s) to {aside}, lost the last change of {lost} object(s)"
        )
        for loss in losses:
            self._report(f"  {loss.describe()}")

    def open(self, store: Store) -> None:
        """Rewrite the journal as a snapshot of ``store`` and append from now on."""
        self.close()
        self._snapshot(store)
        self.legacy_path.unlink(missing_ok=True)  # migrated: the snapshot holds all of it
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None  # no loop (tools, tests): fsync on close only

    def _snapshot(self, store: Store) -> None:
        tmp = self.path.with_suffix(".tmp")
        self._seq = 0
        with tmp.open("wb") as out:
            out.write(FILE_HEADER)
            out.write(self._frame(Record(rv=store.rv)))
            for table in store.tables.values():
                for obj in table.objects.values():
                    out.write(self._frame(self._record(table.rtype, obj, False)))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)
        self._records = self._seq

    def _frame(self, record: Record) -> bytes:
        self._seq += 1
        record.seq = self._seq
        return frame(_encode(record))

    @staticmethod
    def _record(rtype: ResourceType, obj: Obj, deleted: bool) -> Record:
        meta = obj["metadata"]
        return Record(
            rv=int(meta.get("resourceVersion") or 0),
            resource=rtype.key,
            namespace=meta.get("namespace", "") if rtype.namespaced else "",
            name=meta["name"],
            deleted=deleted,
            obj={} if deleted else obj,
        )

    def __call__(self, rtype: ResourceType, event: Event) -> None:
        if self._fd < 0:
            return
        record = self._record(rtype, event.obj, event.type == "DELETED")
        os.write(self._fd, self._frame(record))
        self._records += 1
        if self.fsync_interval <= 0:
            os.fsync(self._fd)
        elif self._sync_due is None and self._loop is not None:
            self._sync_due = self._loop.call_later(self.fsync_interval, self._sync)

    def _sync(self) -> None:
        self._sync_due = None
        if self._fd >= 0:
            os.fsync(self._fd)

    def needs_compaction(self, live_objects: int) -> bool:
        return self._records > max(MIN_RECORDS, COMPACT_RATIO * live_objects)

    def close(self) -> None:
        if self._sync_due is not None:
            self._sync_due.cancel()
            self._sync_due = None
        if self._fd >= 0:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1
