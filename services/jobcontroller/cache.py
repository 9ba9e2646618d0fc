"""The job controller's cache: its shard of the state topics, indexed by owning job.

It wraps ``shared.cache.ObjectCache`` and adds what a sync needs: the pods, PodGroups, Services
and Commands of each job (by controller ownerReference / Command target), the ownerless pods of
each namespace (adoption candidates), and the plain pods that still need a PodGroup. Every
change names the work keys it affects, and an observed ADDED/DELETED of an owned object lowers
that job's expectations — the other half of the expectations handshake (see ``executor``).

Jobs seen deleted (or replaced by a job of the same name) are remembered by uid for a while:
what such a uid still controls — left by a sync that raced the deletion — is garbage
(``dangling``), as Kubernetes' garbage collector sees dependents of an owner that is gone.

Sharding: an instance keeps the records of partitions ``p % shards == shard``. Jobs, pods,
PodGroups and Services are co-partitioned by job key, so a job and everything it owns fall in
one shard. Commands are keyed by their own name, so they are kept when their *target* job's key
hashes into an owned partition of the jobs topic. Queues are few and cluster-wide: all are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import msgspec
from aiokafka.partitioner import murmur2

from services.jobcontroller import kueue_pod_workloads, podgroups
from services.jobcontroller.batchjob import is_finished, orphans
from services.jobcontroller.batchjob.keys import TRACKING_FINALIZER
from services.jobcontroller.core import BATCH_CONTROLLER_NAME
from services.jobcontroller.workkeys import (
    BATCH_JOB,
    COMMAND,
    JOB_TYPES,
    KUEUE_POD_GROUP,
    OWNED_TYPES,
    POD,
    WORKLOAD,
    WorkKey,
    expectation_key,
)
from shared.cache import ObjectCache
from shared.events import ObjectDeleted, ObjectModified, StateEvent, raw_object
from shared.expectations import Expectations, UidExpectations
from shared.kube.keys import object_key
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.models import Command, Job, Model, OwnerReference, Pod, Workload

# How many uids of deleted jobs are remembered: dependents a racing sync created arrive within
# seconds of the deletion, and the collector's work is done once they are gone.
GONE_UIDS_KEPT = 10_000


class Sharding(NamedTuple):
    shard: int = 0
    shards: int = 1

    def owns(self, partition: int) -> bool:
        return partition % self.shards == self.shard

    def owns_key(self, key: str, partitions: int) -> bool:
        """Whether a record keyed ``key`` lands in an owned partition (Kafka's partitioner)."""
        return self.owns((murmur2(key.encode()) & 0x7FFFFFFF) % partitions)


def _owner_job(namespace: str | None, ref: OwnerReference | None) -> WorkKey | None:
    if ref is None or not namespace:
        return None
    type_key = f"{ref.apiVersion}/{ref.kind}"
    return WorkKey(type_key, object_key(namespace, ref.name)) if type_key in JOB_TYPES else None


def owner_of(obj: Any) -> WorkKey | None:
    """The job controlling ``obj`` (Pod, PodGroup, Service) or targeted by a Command."""
    meta = obj.metadata
    if isinstance(obj, Command):
        return _owner_job(meta.namespace, obj.target)
    return _owner_job(meta.namespace, meta.controller_ref())


class BadObject(NamedTuple):
    """A job record that does not decode: enough to report it on the object."""

    error: str
    raw: dict[str, Any]


class ControllerCache:
    """See the module docstring. ``on_work`` receives every key a change affects."""

    def __init__(
        self,
        *,
        expectations: Expectations,
        on_work: Callable[[WorkKey], None],
        scheduler_names: frozenset[str] = frozenset(SHOAL_SCHEDULER_NAMES),
        batch_managed_by: str = BATCH_CONTROLLER_NAME,
    ) -> None:
        self.objects = ObjectCache(on_change=self._changed)
        self.expectations = expectations
        # Per job (``str(WorkKey)``): pods whose tracking-finalizer removal is in flight.
        self.finalizers = UidExpectations()
        self.scheduler_names = scheduler_names
        self.batch_managed_by = batch_managed_by
        self.invalid: dict[WorkKey, BadObject] = {}
        self._on_work = on_work
        self._owned: dict[WorkKey, dict[str, set[str]]] = {}
        self._loose: dict[tuple[str, str], set[str]] = {}  # (type, namespace) → ownerless
        self._gone: OrderedDict[str, None] = OrderedDict()  # uids of deleted jobs, oldest first
        # Kueue pod groups (``namespace/group``) → the keys of their pods.
        self._pod_groups: dict[str, set[str]] = {}

    def apply(self, event: StateEvent) -> None:
        """Apply one record; a job that does not decode is remembered as invalid, not raised."""
        try:
            self.objects.apply(event)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            self._invalid(event, str(exc))

    def _invalid(self, event: StateEvent, error: str) -> None:
        if isinstance(event, ObjectDeleted) or not hasattr(event, "object"):
            return
        raw = msgspec.json.decode(event.object)
        if not isinstance(raw, dict):
            return
        type_key = f"{raw.get('apiVersion', '')}/{raw.get('kind', '')}"
        meta = raw.get("metadata") or {}
        if type_key in JOB_TYPES and isinstance(meta, dict):
            key = WorkKey(type_key, object_key(meta.get("namespace"), str(meta.get("name", ""))))
            self.invalid[key] = BadObject(error, raw)
            self._on_work(key)

    def observe_written(self, obj: dict[str, Any]) -> None:
        """Apply an object the API server returned for our own write (newer than the cache;
        the watcher's later record of the same resourceVersion is then a no-op)."""
        if not isinstance(obj, dict) or not obj.get("metadata"):
            return
        meta = obj["metadata"]
        self.apply(
            ObjectModified(
                key=object_key(meta.get("namespace"), str(meta.get("name", ""))),
                kind=str(obj.get("kind", "")),
                resourceVersion=str(meta.get("resourceVersion", "")),
                object=raw_object(obj),
            )
        )

    def job(self, key: WorkKey) -> Any:
        return self.objects.get(key.type_key, key.key)

    def is_gone(self, uid: str) -> bool:
        """Whether the job of this uid was seen deleted (or replaced under its name)."""
        return uid in self._gone

    def dangling(self, job: WorkKey) -> list[tuple[str, Any]]:
        """``(type_key, object)`` of what the key's job once controlled under a uid that is
        gone: objects a sync created while the job was being deleted."""
        found: list[tuple[str, Any]] = []
        if not self._gone:
            return found  # no job was deleted: nothing can dangle (most syncs, in a burst)
        for type_key in OWNED_TYPES:
            for obj in self.owned(job, type_key):
                ref = obj.metadata.controller_ref()
                if ref is not None and ref.uid in self._gone:
                    found.append((type_key, obj))
        return found

    def _job_gone(self, uid: str) -> None:
        if not uid:
            return
        self._gone[uid] = None
        self._gone.move_to_end(uid)
        while len(self._gone) > GONE_UIDS_KEPT:
            self._gone.popitem(last=False)

    def owned(self, job: WorkKey, type_key: str) -> list[Any]:
        names = self._owned.get(job, {}).get(type_key, ())
        found = (self.objects.get(type_key, name) for name in names)
        return [obj for obj in found if obj is not None]

    def loose(self, type_key: str, namespace: str) -> list[Any]:
        """Objects of ``type_key`` in ``namespace`` that no controller owns."""
        found = (
            self.objects.get(type_key, key) for key in self._loose.get((type_key, namespace), ())
        )
        return [obj for obj in found if obj is not None]

    def cluster_scoped(self, type_key: str) -> list[Any]:
        return list(self.objects.objects(type_key))

    def pod(self, key: str) -> Pod | None:
        pod: Pod | None = self.objects.get(POD, key)
        return pod

    def jobs(self) -> Iterator[WorkKey]:
        for type_key in JOB_TYPES:
            for key, _ in self.objects.items(type_key):
                yield WorkKey(type_key, key)

    def needs_podgroup(self, pod: Pod) -> bool:
        return podgroups.needs_podgroup(pod, self.scheduler_names)

    def _changed(self, key: str, old: Model | None, new: Model | None) -> None:
        obj = new if new is not None else old
        type_key = ObjectCache.type_key(obj)  # type: ignore[arg-type]
        if type_key in JOB_TYPES:
            job = WorkKey(type_key, key)
            if old is not None and (new is None or new.metadata.uid != old.metadata.uid):  # type: ignore[attr-defined]
                self._job_gone(old.metadata.uid)  # type: ignore[attr-defined]
            if new is not None:
                self.invalid.pop(job, None)
            else:
                self.invalid.pop(job, None)
                for kind in OWNED_TYPES:
                    self.expectations.forget(expectation_key(job, kind))
                self.finalizers.forget(str(job))
            self._on_work(job)
            if type_key == BATCH_JOB:
                self._batch_job_changed(job, new)
                # A CronJob's Jobs are indexed under it, and wake it when they change.
                self._owned_changed(type_key, key, old, new)
            return
        if type_key == POD:
            self._pod_changed(key, old, new)
        if type_key == WORKLOAD:
            self._workload_changed(obj)  # type: ignore[arg-type]
        if type_key in OWNED_TYPES or type_key == COMMAND:
            self._owned_changed(type_key, key, old, new)

    def _owned_changed(self, type_key: str, key: str, old: Model | None, new: Model | None) -> None:
        before = owner_of(old) if old is not None else None
        after = owner_of(new) if new is not None else None
        if before is not None and before != after:
            self._unindex(before, type_key, key)
        if after is not None:
            self._owned.setdefault(after, {}).setdefault(type_key, set()).add(key)
        if type_key in OWNED_TYPES:
            self._observe_expectation(type_key, old, new, after or before)
            if type_key == POD and old is not None and (after or before) is not None:
                self._observe_finalizer(after or before, old, new)  # type: ignore[arg-type]
            self._index_loose(type_key, key, old, new)
        for job in {before, after} - {None}:
            self._on_work(job)  # type: ignore[arg-type]

    def _index_loose(self, type_key: str, key: str, old: Model | None, new: Model | None) -> None:
        namespace = key.partition("/")[0]
        loose = self._loose.setdefault((type_key, namespace), set())
        was_loose = key in loose
        if new is not None and new.metadata.controller_ref() is None:  # type: ignore[attr-defined]
            loose.add(key)
            if not was_loose and type_key == POD:
                # A new orphan may be adopted by a Job of its namespace whose selector matches.
                for job in self._jobs_in(namespace):
                    self._on_work(job)
        else:
            loose.discard(key)

    def _observe_expectation(
        self, type_key: str, old: Model | None, new: Model | None, job: WorkKey | None
    ) -> None:
        if job is None:
            return
        exp_key = expectation_key(job, type_key)
        if old is None and new is not None:
            self.expectations.creation_observed(exp_key)
        elif new is None and old is not None:
            self.expectations.deletion_observed(exp_key, old.metadata.uid)  # type: ignore[attr-defined]

    def _observe_finalizer(self, job: WorkKey, old: Model | None, new: Model | None) -> None:
        """The pod lost its tracking finalizer, or is gone: its removal is no longer pending."""
        pod = new if new is not None else old
        if new is None or TRACKING_FINALIZER not in new.metadata.finalizers:  # type: ignore[attr-defined]
            self.finalizers.observed(str(job), pod.metadata.uid)  # type: ignore[union-attr]

    def _unindex(self, job: WorkKey, type_key: str, key: str) -> None:
        names = self._owned.get(job, {}).get(type_key)
        if names is not None:
            names.discard(key)
            if not names:
                del self._owned[job][type_key]
                if not self._owned[job]:
                    del self._owned[job]

    def controller_job(self, pod: Pod) -> Job | None:
        """The cached batch/v1 Job of the pod's controller reference (None: none cached)."""
        key = orphans.controller_job_key(pod)
        job: Job | None = self.objects.get(BATCH_JOB, key) if key is not None else None
        return job

    def needs_release(self, pod: Pod) -> bool:
        """A tracking finalizer that no running Job will remove (``batchjob.orphans``)."""
        return orphans.needs_release(pod, self.controller_job(pod), self.batch_managed_by)

    def _pod_changed(self, key: str, old: Model | None, new: Model | None) -> None:
        if isinstance(new, Pod) and (self.needs_podgroup(new) or self.needs_release(new)):
            self._on_work(WorkKey(POD, key))
        for pod in (old, new):
            if isinstance(pod, Pod) and kueue_pod_workloads.is_kueue_pod(pod):
                self._kueue_pod_changed(key, pod, gone=pod is old and new is None)

    def _kueue_pod_changed(self, key: str, pod: Pod, *, gone: bool) -> None:
        """A pod of Kueue's pod integration wakes its own sync, or its group's."""
        group = kueue_pod_workloads.group_name(pod)
        if not group:
            self._on_work(WorkKey(POD, key))
            return
        group_key = object_key(pod.metadata.namespace, group)
        members = self._pod_groups.setdefault(group_key, set())
        if gone:
            members.discard(key)
            if not members:
                del self._pod_groups[group_key]
        else:
            members.add(key)
        self._on_work(WorkKey(KUEUE_POD_GROUP, group_key))

    def _workload_changed(self, wl: Workload) -> None:
        """A Workload of Kueue's pod integration wakes its pod, or its pod group."""
        meta = wl.metadata
        if meta.annotations.get(kueue_pod_workloads.IS_GROUP_WORKLOAD_ANNOTATION) == "true":
            self._on_work(WorkKey(KUEUE_POD_GROUP, object_key(meta.namespace, meta.name)))
            return
        ref = meta.controller_ref()
        if ref is not None and ref.apiVersion == "v1" and ref.kind == "Pod":
            self._on_work(WorkKey(POD, object_key(meta.namespace, ref.name)))

    def pod_group(self, key: str) -> list[Pod]:
        """The cached pods of a Kueue pod group (``namespace/group``), by name."""
        found = (self.pod(name) for name in sorted(self._pod_groups.get(key, ())))
        return [pod for pod in found if pod is not None]

    def _batch_job_changed(self, job: WorkKey, new: Model | None) -> None:
        """A Job that is gone or finished leaves its pods' finalizers to the orphan path."""
        if new is not None and not is_finished(new):  # type: ignore[arg-type]
            return
        for pod in self.owned(job, POD):
            if self.needs_release(pod):
                self._on_work(WorkKey(POD, object_key(pod.metadata.namespace, pod.metadata.name)))

    def _jobs_in(self, namespace: str) -> Iterator[WorkKey]:
        prefix = f"{namespace}/"
        for key, _ in self.objects.items(BATCH_JOB):
            if key.startswith(prefix):
                yield WorkKey(BATCH_JOB, key)
