"""A cache snapshot from a list of objects, indexed as the controller's cache is.

Used by ``shoal simulate reconcile``: ``observing.observe`` asks it, as it asks the cache, for
the pods, PodGroups and Services a job controls (by uid; a CronJob's Jobs likewise), the
ownerless ones of a namespace, and the bus Commands that target the job. Manifests written by
hand often lack uids: a job without one gets a uid derived from its identity, and owner
references that name the job without a uid are completed with it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.jobcontroller.workkeys import (
    BATCH_JOB,
    COMMAND,
    POD,
    PODGROUP,
    PRIORITY_CLASS,
    RESOURCE_FLAVOR,
    SERVICE,
    WORKLOAD,
    WorkKey,
    work_key,
)
from shared.models import (
    Command,
    Job,
    Model,
    ObjectMeta,
    Pod,
    PodGroup,
    PriorityClass,
    ResourceFlavor,
    Service,
    Workload,
)


@dataclass(slots=True)
class Snapshot:
    """Objects by kind, with owner references resolved to job uids."""

    jobs: list[Any] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    podgroups: list[PodGroup] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    flavors: list[ResourceFlavor] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)

    def cluster_scoped(self, type_key: str) -> list[Any]:
        if type_key == PRIORITY_CLASS:
            return list(self.priority_classes)
        return list(self.flavors) if type_key == RESOURCE_FLAVOR else []

    def owned(self, job: WorkKey, type_key: str) -> list[Any]:
        """The objects of ``type_key`` the job controls (Commands: that target it)."""
        found = next((j for j in self.jobs if work_key(j) == job), None)
        if found is None:
            return []
        if type_key == COMMAND:
            return [c for c in self.commands if _targets(c, found)]
        uid = found.metadata.uid
        return [o for o in self._of_type(type_key) if _controller_uid(o) == uid]

    def loose(self, type_key: str, namespace: str) -> list[Any]:
        """The objects of ``type_key`` in ``namespace`` that no controller owns."""
        return [
            o
            for o in self._of_type(type_key)
            if o.metadata.controller_ref() is None
            and (o.metadata.namespace or "default") == namespace
        ]

    def _of_type(self, type_key: str) -> list[Any]:
        by_type: dict[str, list[Any]] = {
            POD: self.pods,
            PODGROUP: self.podgroups,
            SERVICE: self.services,
            WORKLOAD: self.workloads,
            BATCH_JOB: [j for j in self.jobs if isinstance(j, Job)],  # a CronJob's
        }
        return by_type.get(type_key, [])


def build(objects: list[Model], is_job: Any) -> Snapshot:
    """Sort ``objects`` into a snapshot; ``is_job(obj)`` says which objects are jobs."""
    snap = Snapshot()
    for obj in objects:
        if is_job(obj):
            snap.jobs.append(_with_uid(obj))
    uids = {
        (j.apiVersion, j.kind, j.metadata.namespace or "default", j.metadata.name): j.metadata.uid
        for j in snap.jobs
    }
    snap.jobs = [_resolve_owners(j, uids) if isinstance(j, Job) else j for j in snap.jobs]
    for obj in objects:
        if isinstance(obj, Pod | PodGroup | Service | Workload):
            obj = _resolve_owners(_with_uid(obj), uids)
        if isinstance(obj, Pod):
            snap.pods.append(obj)
        elif isinstance(obj, PodGroup):
            snap.podgroups.append(obj)
        elif isinstance(obj, Service):
            snap.services.append(obj)
        elif isinstance(obj, Command):
            snap.commands.append(obj)
        elif isinstance(obj, Workload):
            snap.workloads.append(obj)
        elif isinstance(obj, ResourceFlavor):
            snap.flavors.append(obj)
        elif isinstance(obj, PriorityClass):
            snap.priority_classes.append(obj)
    return snap


def _with_uid(obj: Any) -> Any:
    meta: ObjectMeta = obj.metadata
    if meta.uid:
        return obj
    seed = f"{obj.apiVersion}/{obj.kind}/{meta.namespace or 'default'}/{meta.name}"
    new_meta = msgspec.structs.replace(meta, uid=str(uuid.uuid5(uuid.NAMESPACE_URL, seed)))
    return msgspec.structs.replace(obj, metadata=new_meta)


def _resolve_owners(obj: Any, uids: dict[tuple[str, str, str, str], str]) -> Any:
    meta: ObjectMeta = obj.metadata
    if all(ref.uid for ref in meta.ownerReferences):
        return obj
    namespace = meta.namespace or "default"
    refs = [
        ref
        if ref.uid
        else msgspec.structs.replace(
            ref, uid=uids.get((ref.apiVersion, ref.kind, namespace, ref.name), "")
        )
        for ref in meta.ownerReferences
    ]
    new_meta = msgspec.structs.replace(meta, ownerReferences=refs)
    return msgspec.structs.replace(obj, metadata=new_meta)


def _controller_uid(obj: Any) -> str | None:
    ref = obj.metadata.controller_ref()
    return ref.uid if ref is not None else None


def _targets(command: Command, job: Any) -> bool:
    target = command.target
    meta: ObjectMeta = job.metadata
    if target is None or (command.metadata.namespace or "default") != (meta.namespace or "default"):
        return False
    if target.uid and target.uid != meta.uid:
        return False
    return target.name == meta.name and (not target.kind or target.kind == job.kind)
