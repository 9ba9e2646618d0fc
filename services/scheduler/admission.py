"""Kueue admission in the running scheduler: the pure core over the cache, decisions out.

Each cycle the scheduler runs Kueue's admission (``services.scheduler.kueue``) over the Kueue
objects in its cache, as Kueue's scheduler does over its queue manager and cache, and publishes
the status every Workload, ClusterQueue and LocalQueue should now have as
``KueueStatusDecided`` records; the binder writes them (a merge patch of the status subresource
guarded by the resourceVersion the decision was computed from). Until the cache shows an object
at a newer resourceVersion, the decided status is *assumed* on it, so a Workload admitted in one
cycle holds its quota in the next and is not decided twice; an assumption the cache never
confirms expires after ``assume_ttl`` and the object is decided again. No I/O here.

A Workload or ClusterQueue the core cannot read is left out (and reported once), so one bad
object never stops admission for the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog

from services.scheduler.kueue import AdmissionResult, FairSharing, admit
from services.scheduler.kueue.queue_manager import Changes, QueueManager
from services.scheduler.kueue.status import (
    KueueObjects,
    StatusUpdate,
    statuses,
    workload_status,
)
from services.scheduler.kueue.workloads import WorkloadInfo, is_finished
from services.scheduler.kueue_writes import StatusPacing
from shared.cache import ObjectCache
from shared.errors import ManifestError
from shared.events import KueueStatusDecided
from shared.kube.timefmt import format_rfc3339
from shared.models import ClusterQueue, Cohort, Model, Workload

_log = structlog.get_logger()

KUEUE = "kueue.x-k8s.io/v1beta2"
WORKLOAD, CLUSTER_QUEUE = f"{KUEUE}/Workload", f"{KUEUE}/ClusterQueue"
LOCAL_QUEUE, RESOURCE_FLAVOR = f"{KUEUE}/LocalQueue", f"{KUEUE}/ResourceFlavor"
COHORT = f"{KUEUE}/Cohort"
PRIORITY_CLASS = "scheduling.k8s.io/v1/PriorityClass"
_DOCUMENT = re.compile(r"\((\w+) ([^)]+)\)")
_MAX_EXCLUDED = 1000


@dataclass
class _Assumed:
    resource_version: str
    status: dict[str, Any]
    since: float
    seen: Any = None
    """The cached object this status was last applied to, and the result: the same object
    next cycle gets the same instance back (so decoded workloads are reused)."""
    applied: Any = None


class AdmissionState:
    """Kueue decisions between cycles: what was decided and not yet seen in the cache."""

    def __init__(
        self,
        *,
        assume_ttl: float = 60.0,
        pacing: StatusPacing | None = None,
        fair_sharing: FairSharing | None = None,
        window: int | None = None,
    ) -> None:
        """``window``: at most this many equivalent waiting workloads per ClusterQueue go
        into a run (``QueueManager.visible``); None: all of them."""
        self.assume_ttl = assume_ttl
        self.pacing = pacing or StatusPacing()
        self.fair_sharing = fair_sharing
        """Kueue's Configuration ``fairSharing`` (None: off)."""
        self.assumed: dict[tuple[str, str], _Assumed] = {}
        # "Kind key" of objects the core cannot read → the resourceVersion it could not read;
        # a newer version (a fix) is tried again.
        self.excluded: dict[str, str] = {}
        self.kept = QueueManager(window=window)
        self._live: dict[str, Workload] = {}  # unfinished Workloads by key, as last seen
        self._journal: set[str] = set()
        self._journal_of: ObjectCache | None = None
        self._assumed_keys: set[str] = set()  # Workloads seen with an assumed status
        self._synced = False  # the queue manager took the last run's workloads
        self.changes: Changes | None = None
        """How this run's Workloads differ from the last run's (None: unknown)."""
        self.more = False
        """The last run admitted from a queue it saw only part of: run again soon."""

    def has_work(self, cache: ObjectCache) -> bool:
        """Anything for Kueue to do: ClusterQueues or Workloads in the cache."""
        return cache.count(CLUSTER_QUEUE) > 0 or cache.count(WORKLOAD) > 0

    def objects(self, cache: ObjectCache, now: float) -> KueueObjects:
        """The Kueue objects of the cache with unconfirmed decided statuses applied; the
        unfinished Workloads only, kept between runs from the cache's journal of changes
        (``changes`` then says how they differ from the last run's)."""
        found = KueueObjects(
            workloads=self._workloads(cache, now),
            cluster_queues=[
                self._assume("ClusterQueue", key, o, now) for key, o in cache.items(CLUSTER_QUEUE)
            ],
            local_queues=[
                self._assume("LocalQueue", key, o, now) for key, o in cache.items(LOCAL_QUEUE)
            ],
            flavors=list(cache.objects(RESOURCE_FLAVOR)),
            cohorts=[self._assume("Cohort", key, o, now) for key, o in cache.items(COHORT)],
        )
        if self.excluded:
            self.changes = None  # what is left out is not the last run's: look at all
            found.workloads = [w for w in found.workloads if not self._is_excluded("Workload", w)]
            found.cluster_queues = [
                q for q in found.cluster_queues if not self._is_excluded("ClusterQueue", q)
            ]
            found.cohorts = [c for c in found.cohorts if not self._is_excluded("Cohort", c)]
        return found

    def _workloads(self, cache: ObjectCache, now: float) -> list[Workload]:
        """The unfinished Workloads as this run sees them (assumed statuses applied), in
        the cache's order, and ``changes``: which objects came and went since the last."""
        live = self._live
        if cache is not self._journal_of:
            self._journal_of, self._journal = cache, cache.journal(WORKLOAD)
            live.clear()
            keys: Iterable[str] = [key for key, _ in cache.items(WORKLOAD)]
            self.changes = None
        else:
            keys = self._journal
            self.changes = Changes(came=[], went=[]) if self._synced else None
        assumed = {key for kind, key in self.assumed if kind == "Workload"}
        came: list[Workload] = []
        went: list[Workload] = []
        for key in {*keys, *assumed, *self._assumed_keys}:
            obj = cache.get(WORKLOAD, key)
            if obj is not None and key in assumed:
                obj = self._assume("Workload", key, obj, now)
            old = live.get(key)
            if obj is old:
                continue
            if old is not None:
                went.append(old)
            if obj is None or is_finished(obj):
                live.pop(key, None)
            else:
                live[key] = obj  # (a changed one keeps its place, as in the cache)
                came.append(obj)
        self._journal.clear()
        self._assumed_keys = {key for kind, key in self.assumed if kind == "Workload"}
        if self.changes is not None:
            self.changes = Changes(came=came, went=went)
        return list(live.values())

    def _is_excluded(self, kind: str, obj: Workload | ClusterQueue | Cohort) -> bool:
        if not self.excluded:
            return False
        name = f"{kind} {_key(obj)}"
        version = self.excluded.get(name)
        if version is None:
            return False
        if version == obj.metadata.resourceVersion:
            return True
        del self.excluded[name]
        return False

    def _assume(self, kind: str, key: str, obj: Any, now: float) -> Any:
        assumed = self.assumed.get((kind, key))
        if assumed is None:
            return obj
        if obj.metadata.resourceVersion != assumed.resource_version or (
            now - assumed.since > self.assume_ttl
        ):
            del self.assumed[(kind, key)]  # observed (or given up): the cache speaks again
            return obj
        if assumed.seen is obj:
            return assumed.applied
        assumed.seen, assumed.applied = obj, self._applied(kind, obj, assumed)
        return assumed.applied

    @staticmethod
    def _applied(kind: str, obj: Any, assumed: _Assumed) -> Any:
        if kind == "Workload":
            status = msgspec.convert(
                {**msgspec.to_builtins(obj.status), **assumed.status}, type(obj.status)
            )
        else:
            status = {**obj.status, **assumed.status}
        return msgspec.structs.replace(obj, status=status)

    def decide(self, cache: ObjectCache, now: float) -> tuple[AdmissionResult, list[StatusUpdate]]:
        """One admission run over the cache and the statuses it implies."""
        objects = self.objects(cache, now)
        priorities: list[Model] = list(cache.objects(PRIORITY_CLASS))
        result = self._admit(objects, priorities, datetime.fromtimestamp(now, UTC))
        truncated = self.kept.truncated
        self.more = bool(truncated) and any(
            a.cluster_queue in truncated for a in result.admitted.values()
        )
        fair = self.fair_sharing is not None
        stamp = format_rfc3339(now)
        # Under a cap, waiting workloads' explanations are built only if chosen.
        deferred: list[WorkloadInfo] | None = None
        if self.pacing.max_waiting is not None:
            deferred = []
        updates = statuses(
            objects,
            result,
            stamp,
            fair_sharing=fair,
            deferred=deferred,
        )
        decided = result.admitted.keys() | result.preempted.keys()
        chosen = self.pacing.select(
            updates,
            objects,
            _ByKey(result.workloads),
            decided,
            now,
            deferred=deferred or (),
            build=lambda info: workload_status(info, objects, result, stamp),
            gone=self.kept.gone,
        )
        return result, chosen

    def _admit(
        self, objects: KueueObjects, priorities: Sequence[Model], now: datetime
    ) -> AdmissionResult:
        while True:
            inputs: list[Model] = [
                *objects.flavors,
                *objects.cohorts,
                *objects.cluster_queues,
                *objects.local_queues,
                *objects.workloads,
                *priorities,
            ]
            self._synced = False
            try:
                result = admit(
                    inputs,
                    now,
                    source="cluster",
                    kept=self.kept,
                    fair_sharing=self.fair_sharing,
                    changes=self.changes,
                )
            except ManifestError as exc:
                self.changes = None  # the next try leaves an object out: look at all
                if not self._exclude(objects, exc) or len(self.excluded) > _MAX_EXCLUDED:
                    raise
                continue
            self._synced = True
            return result

    def _exclude(self, objects: KueueObjects, exc: ManifestError) -> bool:
        """Leave out the object ``exc`` names; False if it names none that is still in."""
        match = _DOCUMENT.search(exc.document)
        if match is None:
            return False
        name = "{} {}".format(*match.groups())
        found: list[Workload | ClusterQueue | Cohort] = [
            *(w for w in objects.workloads if f"Workload {_key(w)}" == name),
            *(q for q in objects.cluster_queues if f"ClusterQueue {_key(q)}" == name),
            *(c for c in objects.cohorts if f"Cohort {_key(c)}" == name),
        ]
        if not found:
            return False
        self.excluded[name] = found[0].metadata.resourceVersion
        _log.warning("kueue object left out of admission", object=name, error=str(exc))
        objects.workloads = [w for w in objects.workloads if f"Workload {_key(w)}" != name]
        objects.cluster_queues = [
            q for q in objects.cluster_queues if f"ClusterQueue {_key(q)}" != name
        ]
        objects.cohorts = [c for c in objects.cohorts if f"Cohort {_key(c)}" != name]
        return True

    def envelopes(
        self,
        updates: Sequence[StatusUpdate],
        *,
        epoch: int,
        cycle: int,
        now: float,
        producer: str,
    ) -> list[KueueStatusDecided]:
        """Decision records for ``updates``; each becomes an assumption until observed."""
        out: list[KueueStatusDecided] = []
        for update in updates:
            self.assumed[(update.kind, update.key)] = _Assumed(
                update.resource_version, update.status, now
            )
            out.append(
                KueueStatusDecided(
                    key=update.key,
                    kind=update.kind,
                    uid=update.uid,
                    resource_version=update.resource_version,
                    status=update.status,
                    cycle=cycle,
                    epoch=epoch,
                    producer=producer,
                    occurred_at=now,
                )
            )
        return out


class _ByKey(Mapping[str, Workload]):
    """The run's Workloads by key, gathered only if looked up (pacing seldom needs one)."""

    def __init__(self, infos: Sequence[WorkloadInfo]) -> None:
        self._infos = infos
        self._found: dict[str, Workload] | None = None

    def _all(self) -> dict[str, Workload]:
        if self._found is None:
            self._found = {info.key: info.obj for info in self._infos}
        return self._found

    def __getitem__(self, key: str) -> Workload:
        return self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _key(obj: Workload | ClusterQueue | Cohort) -> str:
    meta = obj.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name
