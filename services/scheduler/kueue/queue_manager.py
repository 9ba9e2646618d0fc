"""Workloads kept between admission runs: decoded, placed, and each queue in order.

Kueue's queue manager holds each ClusterQueue's pending workloads in a heap and hears of each
change; a run here sees the whole cache instead. With thousands waiting, decoding, placing
and sorting each of them again every run was most of a run. So whoever runs admission again
and again (the scheduler) keeps a ``QueueManager``: a Workload object that comes back
unchanged — the same instance, as a cache holds an object until a newer version arrives —
keeps what was found for it (its decoded ``WorkloadInfo`` and its *placement*: waiting in a
ClusterQueue, holding quota in one, or waiting in none and why), and each ClusterQueue's
ordered list is updated by what came, changed and went (an identity diff), not sorted again.
A run's walk over an unchanged workload is one look-up.

What a placement depends on besides the object (LocalQueues, ClusterQueues and their resource
groups: the *routing*) is compared each run; when it changes every workload is placed again,
and when PriorityClasses change every one is decoded again. A run that fails (a Workload the
core cannot read) changes nothing kept. Tests and ``shoal simulate`` run once and keep none.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from datetime import datetime
from heapq import merge

from services.scheduler.api.status import Status
from services.scheduler.kueue.model import Snapshot
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    Priorities,
    WorkloadInfo,
    document_of,
    is_finished,
    workload_info,
)
from shared.errors import ManifestError
from shared.models import Workload


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a workload is as a run starts (none set: it holds quota in no known queue)."""

    queue: str | None = None
    """The ClusterQueue it waits in."""
    admitted: AdmittedWorkload | None = None
    """Its quota in the ClusterQueue it is admitted to."""
    unqueued: Status | None = None
    """Why it waits in no ClusterQueue."""


@dataclass(frozen=True, slots=True)
class _Entry:
    info: WorkloadInfo
    placement: Placement
    kept: bool
    """Kept for the next run: an object with no creationTimestamp is ordered by ``now``,
    so it is decoded again each run."""


Place = Callable[[WorkloadInfo], Placement]


@dataclass(frozen=True, slots=True)
class Changes:
    """How a run's Workload objects differ from the last run's, by identity: the objects
    that are new (``came``) and those no longer there (``went``; a changed workload is
    both). The caller's promise; ``run`` checks that the count adds up."""

    came: Sequence[Workload]
    went: Sequence[Workload]


def _queue_order(info: WorkloadInfo) -> tuple[int, datetime, str]:
    return info.queue_order


class QueueManager:
    def __init__(self, *, window: int | None = None) -> None:
        self.window = window
        """At most this many workloads of one equivalence class per queue go into a run (see
        ``visible``); None: all."""
        self._classes: dict[str, dict[object, list[WorkloadInfo]]] = {}
        self._visible: dict[str, list[WorkloadInfo]] = {}  # queue → its visible part, kept
        self.truncated: set[str] = set()
        """The queues whose last run saw only part of their waiting workloads."""
        self._fixed: dict[int, _Entry] = {}  # the entries in no queue's waiting list
        self._entries: dict[int, _Entry] = {}  # id(object) → its entry, as the last run left it
        self._keys: set[str] = set()  # the Workload keys of those entries
        # Those that may be admitted (no quota held, active) per LocalQueue, as the queue
        # counters count them: kept by the diff, not counted again over all.
        self._admissible: dict[tuple[str, str], int] = {}
        self._queues: dict[str, list[WorkloadInfo]] = {}  # ClusterQueue → waiting, in order
        self._priorities: Priorities | None = None
        self._unkept = False  # an entry is decoded again each run (no creation time)
        self._routing: object = None
        # Finished Workload objects of the last run, by id: they pile up (Kueue keeps them
        # until their job is deleted), and each is looked at once, not every run.
        self._finished: dict[int, Workload] = {}
        self.gone: set[str] = set()
        """The Workload keys the last run had and this one has not (deleted, finished, or
        left out): what the caller forgets of them, without a walk over all."""

    def admissible(self) -> dict[tuple[str, str], int]:
        """Workloads that may be admitted (no quota held, active; Kueue's IsAdmissible) per
        LocalQueue after the last run: a copy the caller may change."""
        return dict(self._admissible)

    def known(self, wl: Workload) -> bool:
        """Whether the last run decoded this very object (so it is not finished: finished
        ones are not decoded)."""
        entry = self._entries.get(id(wl))
        return entry is not None and entry.info.obj is wl

    def run(
        self,
        workloads: Iterable[Workload],
        *,
        priorities: Priorities,
        routing: object,
        place: Place,
        now: datetime,
        source: str,
        snapshot: Snapshot,
        unqueued: dict[str, Status],
        changes: Changes | None = None,
    ) -> tuple[list[WorkloadInfo], dict[str, list[WorkloadInfo]]]:
        """This run's unfinished Workloads, decoded, in input order, and the ordered queues
        of those that wait in a ClusterQueue (kept: callers must not change them). Quota
        held is added to ``snapshot``, the workloads in no queue go to ``unqueued``.

        ``changes``: the caller's word of how ``workloads`` differs from the last run's
        (see ``Changes``); with a window, only those are looked at, not every workload.
        Without a window, or when anything else moved (priorities, routing, an object
        without a creation time, a count that does not add up), every workload is."""
        if changes is not None and self._can_take(workloads, changes, priorities, routing):
            return self._run_changes(
                changes,
                now=now,
                source=source,
                place=place,
                priorities=priorities,
                snapshot=snapshot,
                unqueued=unqueued,
            )
        last = self._entries
        if self._priorities is None or not self._priorities.same(priorities):
            last = {}  # a workload's priority may come from a PriorityClass
        replace = routing != self._routing
        seen: dict[int, _Entry] = {}
        came: list[_Entry] = []
        infos: list[WorkloadInfo] = []
        finished, self._finished = self._finished, {}
        windowed = self.window is not None
        for wl in workloads:
            entry = last.get(id(wl))
            if entry is None or not entry.kept or replace:
                if entry is not None and entry.kept:
                    info = entry.info  # the routing changed: placed again, not decoded
                elif finished.get(id(wl)) is wl or is_finished(wl):
                    self._finished[id(wl)] = wl
                    continue
                else:
                    info = workload_info(wl, priorities=priorities, now=now, source=source)
                entry = _Entry(info, place(info), bool(wl.metadata.creationTimestamp))
                came.append(entry)
            seen[id(wl)] = entry
            if entry.placement.queue is None:
                _hold(entry, snapshot, unqueued)
            elif windowed:
                continue  # its queue's visible part is added below
            infos.append(entry.info)
        self._commit(seen, came, source)
        self._priorities, self._routing = priorities, routing
        if windowed:
            self._unkept = any(not e.kept for e in seen.values())
            return infos, self._windowed(infos)
        return infos, {name: queue for name, queue in self._queues.items() if queue}

    def _can_take(
        self,
        workloads: Iterable[Workload],
        changes: Changes,
        priorities: Priorities,
        routing: object,
    ) -> bool:
        if self.window is None or self._priorities is None or routing != self._routing:
            return False
        if not self._priorities.same(priorities) or self._unkept:
            return False
        if not isinstance(workloads, Sized):
            return False
        went = sum(1 for wl in changes.went if id(wl) in self._entries)
        return len(workloads) == len(self._entries) - went + len(changes.came)

    def _run_changes(
        self,
        changes: Changes,
        *,
        now: datetime,
        source: str,
        place: Place,
        priorities: Priorities,
        snapshot: Snapshot,
        unqueued: dict[str, Status],
    ) -> tuple[list[WorkloadInfo], dict[str, list[WorkloadInfo]]]:
        """``run`` from the changes alone (a window is set): what came is decoded and
        placed, what went leaves; quota held and the workloads in no queue come from the
        entries kept for them."""
        came: list[_Entry] = []
        for wl in changes.came:
            if is_finished(wl):
                continue
            info = workload_info(wl, priorities=priorities, now=now, source=source)
            came.append(_Entry(info, place(info), bool(wl.metadata.creationTimestamp)))
        entries = self._entries
        went = [e for wl in changes.went if (e := entries.get(id(wl))) is not None]
        self._apply(went, came, source)
        self._unkept = any(not e.kept for e in came)
        for entry in went:
            del entries[id(entry.info.obj)]
        for entry in came:
            entries[id(entry.info.obj)] = entry
        infos: list[WorkloadInfo] = []
        for entry in self._fixed.values():
            infos.append(entry.info)
            _hold(entry, snapshot, unqueued)
        return infos, self._windowed(infos)

    def _windowed(self, infos: list[WorkloadInfo]) -> dict[str, list[WorkloadInfo]]:
        """Each queue's visible part (added to ``infos``); ``truncated`` says which were cut."""
        whole = {name: queue for name, queue in self._queues.items() if queue}
        queues = {name: self.visible(name) for name in whole}
        self.truncated = {n for n, q in queues.items() if len(q) < len(whole[n])}
        for queue in queues.values():
            infos.extend(queue)
        return queues

    def visible(self, name: str) -> list[WorkloadInfo]:
        """The part of ClusterQueue ``name``'s waiting workloads a run looks at: in queue
        order, the first ``window`` of each equivalence class (namespace, priority, pod
        sets). Equivalent workloads get one verdict, so those further back are refused
        when the first are, and admitted only after them: Kueue too looks at a queue's
        head, and leaves the explanation of those behind it as it was. A run that admits
        from a truncated queue is followed by another (``truncated``)."""
        found = self._visible.get(name)
        if found is not None:
            return found
        classes = self._classes.get(name, {})
        window = self.window
        if window is None or all(len(c) <= window for c in classes.values()):
            found = self._queues.get(name, [])
        elif len(classes) == 1:
            found = next(iter(classes.values()))[:window]
        else:
            found = list(merge(*(c[:window] for c in classes.values()), key=_queue_order))
        self._visible[name] = found
        return found

    def _commit(self, seen: dict[int, _Entry], came: list[_Entry], source: str) -> None:
        """Keep this run's entries: the queues lose what went (or changed) and gain what
        came; a second Workload of one key is refused before anything changes."""
        entries = self._entries
        went = [entries[i] for i in entries.keys() - seen.keys()]
        went += [old for e in came if (old := entries.get(id(e.info.obj))) is not None]
        self._apply(went, came, source)
        self._entries = seen

    def _apply(self, went: list[_Entry], came: list[_Entry], source: str) -> None:
        leaving = {e.info.key for e in went}
        fresh: set[str] = set()
        for entry in came:
            key = entry.info.key
            if key in fresh or (key in self._keys and key not in leaving):
                raise ManifestError(
                    "duplicate Workload", document=document_of(entry.info.obj, source)
                )
            fresh.add(key)
        self.gone = leaving - fresh
        for entry in went:
            self._fixed.pop(id(entry.info.obj), None)
            self._keys.discard(entry.info.key)
            if _admissible(entry.info):
                self._admissible[entry.info.local_queue] -= 1
            if entry.placement.queue is not None:
                name = entry.placement.queue
                _remove(self._queues[name], entry.info)
                self._visible.pop(name, None)
                alike = self._classes[name][entry.info.equivalence]
                _remove(alike, entry.info)
                if not alike:
                    del self._classes[name][entry.info.equivalence]
        for entry in came:
            if entry.placement.queue is None:
                self._fixed[id(entry.info.obj)] = entry
            self._keys.add(entry.info.key)
            if _admissible(entry.info):
                local = entry.info.local_queue
                self._admissible[local] = self._admissible.get(local, 0) + 1
            if entry.placement.queue is not None:
                name = entry.placement.queue
                insort(self._queues.setdefault(name, []), entry.info, key=_queue_order)
                self._visible.pop(name, None)
                classes = self._classes.setdefault(name, {})
                insort(classes.setdefault(entry.info.equivalence, []), entry.info, key=_queue_order)


def _hold(entry: _Entry, snapshot: Snapshot, unqueued: dict[str, Status]) -> None:
    """A workload in no queue's waiting list: its quota held in ``snapshot``, or why it
    waits in no queue in ``unqueued``."""
    placement = entry.placement
    if placement.admitted is not None:
        snapshot.add_workload(placement.admitted)
    elif placement.unqueued is not None:
        unqueued[entry.info.key] = placement.unqueued


def _admissible(info: WorkloadInfo) -> bool:
    return not info.has_quota_reservation and info.obj.spec.active is not False


def _remove(queue: list[WorkloadInfo], info: WorkloadInfo) -> None:
    """Take ``info`` out of its ordered queue (orders are unique: they end with the key)."""
    at = bisect_left(queue, info.queue_order, key=_queue_order)
    if at < len(queue) and queue[at] is info:
        del queue[at]
    else:
        queue.remove(info)
