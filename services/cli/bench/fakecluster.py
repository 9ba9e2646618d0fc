"""An in-memory cluster for driving job reconciles without an API server.

It applies ``Actions`` the way the service shell would against the API (create with the given
names, delete, finalizer/adoption patches, status writes) and plays a trivial kubelet that
moves pods Pending → Running → Succeeded. Used by ``shoal bench jobcontroller``; anything
that offers the same methods (e.g. a kubesim-backed client) can stand in for it.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from services.jobcontroller.batchjob.keys import TRACKING_FINALIZER
from services.jobcontroller.core import Actions, Observed
from shared.kube.keys import namespaced_key
from shared.kube.timefmt import format_rfc3339
from shared.models import Condition, Job, Json, Pod, convert
from shared.models.batch import JobStatus
from shared.models.core import ContainerState, ContainerStatus, PodCondition, PodStatus


class Cluster(Protocol):
    """What the benchmark loop needs from a cluster."""

    def pending_jobs(self) -> list[Job]: ...
    def observe(self, job: Job) -> Observed: ...
    def apply(self, job: Job, actions: Actions, now: float) -> None: ...
    def run_kubelet(self, now: float) -> None: ...


class FakeCluster:
    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}
        self.pods: dict[str, Pod] = {}
        self._pods_by_owner: dict[str, set[str]] = {}
        self._uid = 0

    def add_job(self, job: Job) -> None:
        self.jobs[namespaced_key(job.metadata.namespace, job.metadata.name)] = job

    def pending_jobs(self) -> list[Job]:
        return [j for j in self.jobs.values() if not _finished(j)]

    def observe(self, job: Job) -> Observed:
        keys = self._pods_by_owner.get(job.metadata.uid, set())
        return Observed(pods=[self.pods[k] for k in sorted(keys)])

    def apply(self, job: Job, actions: Actions, now: float) -> None:
        for patch in actions.patch:
            self._patch(patch.key, patch.patch)
        for key in actions.delete:
            self._delete(key)
        for manifest in actions.create:
            self._create(manifest, now)
        if isinstance(actions.status, JobStatus):
            updated = msgspec.structs.replace(job, status=actions.status)
            self.jobs[namespaced_key(job.metadata.namespace, job.metadata.name)] = updated

    def run_kubelet(self, now: float) -> None:
        """Pending pods start running (ready); running pods succeed."""
        stamp = format_rfc3339(now)
        for key, pod in self.pods.items():
            phase = pod.status.phase
            if pod.metadata.deletionTimestamp is not None or phase in ("Succeeded", "Failed"):
                continue
            if phase == "Running":
                state = ContainerState(terminated={"exitCode": 0, "finishedAt": stamp})
                status = PodStatus(phase="Succeeded", containerStatuses=[_container(state)])
            else:
                ready = PodCondition(type="Ready", status="True", lastTransitionTime=stamp)
                state = ContainerState(running={"startedAt": stamp})
                status = PodStatus(
                    phase="Running", conditions=[ready], containerStatuses=[_container(state)]
                )
            self.pods[key] = msgspec.structs.replace(pod, status=status)

    def _create(self, manifest: Json, now: float) -> None:
        self._uid += 1
        pod = convert(manifest, Pod)
        meta = msgspec.structs.replace(
            pod.metadata, uid=f"pod-uid-{self._uid}", creationTimestamp=format_rfc3339(now)
        )
        pod = msgspec.structs.replace(pod, metadata=meta, status=PodStatus(phase="Pending"))
        key = namespaced_key(meta.namespace, meta.name)
        if key in self.pods:
            raise ValueError(f"pod {key} already exists")
        self.pods[key] = pod
        owner = meta.controller_ref()
        if owner is not None:
            self._pods_by_owner.setdefault(owner.uid, set()).add(key)

    def _delete(self, key: str) -> None:
        pod = self.pods.pop(key, None)
        owner = pod.metadata.controller_ref() if pod is not None else None
        if owner is not None:
            self._pods_by_owner.get(owner.uid, set()).discard(key)

    def _patch(self, key: str, patch: Json) -> None:
        pod = self.pods.get(key)
        if pod is None:
            return
        metadata: Json = patch.get("metadata", {})
        removed: list[Any] = metadata.get("$deleteFromPrimitiveList/finalizers", [])
        if TRACKING_FINALIZER in removed:
            finalizers = [f for f in pod.metadata.finalizers if f != TRACKING_FINALIZER]
            meta = msgspec.structs.replace(pod.metadata, finalizers=finalizers)
            self.pods[key] = msgspec.structs.replace(pod, metadata=meta)


def _container(state: ContainerState) -> ContainerStatus:
    return ContainerStatus(name="main", ready=state.running is not None, state=state)


def _finished(job: Job) -> bool:
    conditions: list[Condition] = job.status.conditions
    return any(c.type in ("Complete", "Failed") and c.status == "True" for c in conditions)
