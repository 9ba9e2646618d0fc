"""A cache snapshot from a list of objects: what each job observes when it syncs.

Used by ``shoal simulate reconcile`` and the benchmark. A job observes the pods, PodGroups and
Services it controls, the orphans in its namespace (adoption candidates, including PodGroups
and Services nobody owns) and the bus Commands that target it. Manifests written by hand often
lack uids: a job without one gets a uid derived from its identity, and owner references that
name the job without a uid are completed with it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.jobcontroller.core import Observed
from shared.models import Command, Model, ObjectMeta, Pod, PodGroup, Service


@dataclass(slots=True)
class Snapshot:
    """Objects by kind, with owner references resolved to job uids."""

    jobs: list[Any] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    podgroups: list[PodGroup] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)

    def observe(self, job: Any, *, expectations_satisfied: bool = True) -> Observed:
        meta: ObjectMeta = job.metadata
        namespace = meta.namespace or "default"
        owned_pods, orphans = _split(self.pods, meta.uid, namespace)
        owned_groups, loose_groups = _split(self.podgroups, meta.uid, namespace)
        owned_services, loose_services = _split(self.services, meta.uid, namespace)
        return Observed(
            pods=owned_pods,
            podgroups=owned_groups + loose_groups,
            services=owned_services + loose_services,
            commands=[c for c in self.commands if _targets(c, job)],
            expectations_satisfied=expectations_satisfied,
            orphans=orphans,
        )


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
    for obj in objects:
        if isinstance(obj, Pod | PodGroup | Service):
            obj = _resolve_owners(_with_uid(obj), uids)
        if isinstance(obj, Pod):
            snap.pods.append(obj)
        elif isinstance(obj, PodGroup):
            snap.podgroups.append(obj)
        elif isinstance(obj, Service):
            snap.services.append(obj)
        elif isinstance(obj, Command):
            snap.commands.append(obj)
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


def _split(objects: list[Any], uid: str, namespace: str) -> tuple[list[Any], list[Any]]:
    """(controlled by the job, orphans in its namespace)."""
    owned: list[Any] = []
    orphans: list[Any] = []
    for obj in objects:
        meta: ObjectMeta = obj.metadata
        ref = meta.controller_ref()
        if ref is not None and ref.uid == uid:
            owned.append(obj)
        elif ref is None and (meta.namespace or "default") == namespace:
            orphans.append(obj)
    return owned, orphans


def _targets(command: Command, job: Any) -> bool:
    target = command.target
    meta: ObjectMeta = job.metadata
    if target is None or (command.metadata.namespace or "default") != (meta.namespace or "default"):
        return False
    if target.uid and target.uid != meta.uid:
        return False
    return target.name == meta.name and (not target.kind or target.kind == job.kind)
