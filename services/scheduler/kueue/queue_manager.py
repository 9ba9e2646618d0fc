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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

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


def _queue_order(info: WorkloadInfo) -> tuple[int, datetime, str]:
    return info.queue_order


class QueueManager:
    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}  # id(object) → its entry, as the last run left it
        self._keys: set[str] = set()  # the Workload keys of those entries
        # Those that may be admitted (no quota held, active) per LocalQueue, as the queue
        # counters count them: kept by the diff, not counted again over all.
        self._admissible: dict[tuple[str, str], int] = {}
        self._queues: dict[str, list[WorkloadInfo]] = {}  # ClusterQueue → waiting, in order
        self._priorities: Priorities | None = None
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
    ) -> tuple[list[WorkloadInfo], dict[str, list[WorkloadInfo]]]:
        """This run's unfinished Workloads, decoded, in input order, and the ordered queues
        of those that wait in a ClusterQueue (kept: callers must not change them). Quota
        held is added to ``snapshot``, the workloads in no queue go to ``unqueued``."""
        last = self._entries
        if self._priorities is None or not self._priorities.same(priorities):
            last = {}  # a workload's priority may come from a PriorityClass
        replace = routing != self._routing
        seen: dict[int, _Entry] = {}
        came: list[_Entry] = []
        infos: list[WorkloadInfo] = []
        finished, self._finished = self._finished, {}
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
            info = entry.info
            infos.append(info)
            placement = entry.placement
            if placement.admitted is not None:
                snapshot.add_workload(placement.admitted)
            elif placement.unqueued is not None:
                unqueued[info.key] = placement.unqueued
        self._commit(seen, came, source)
        self._priorities, self._routing = priorities, routing
        return infos, {name: queue for name, queue in self._queues.items() if queue}

    def _commit(self, seen: dict[int, _Entry], came: list[_Entry], source: str) -> None:
        """Keep this run's entries: the queues lose what went (or changed) and gain what
        came; a second Workload of one key is refused before anything changes."""
        entries = self._entries
        went = [entries[i] for i in entries.keys() - seen.keys()]
        went += [old for e in came if (old := entries.get(id(e.info.obj))) is not None]
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
            self._keys.discard(entry.info.key)
            if _admissible(entry.info):
                self._admissible[entry.info.local_queue] -= 1
            if entry.placement.queue is not None:
                _remove(self._queues[entry.placement.queue], entry.info)
        for entry in came:
            self._keys.add(entry.info.key)
            if _admissible(entry.info):
                local = entry.info.local_queue
                self._admissible[local] = self._admissible.get(local, 0) + 1
            if entry.placement.queue is not None:
                queue = self._queues.setdefault(entry.placement.queue, [])
                insort(queue, entry.info, key=_queue_order)
        self._entries = seen


def _admissible(info: WorkloadInfo) -> bool:
    return not info.has_quota_reservation and info.obj.spec.active is not False


def _remove(queue: list[WorkloadInfo], info: WorkloadInfo) -> None:
    """Take ``info`` out of its ordered queue (orders are unique: they end with the key)."""
    at = bisect_left(queue, info.queue_order, key=_queue_order)
    if at < len(queue) and queue[at] is info:
        del queue[at]
    else:
        queue.remove(info)
