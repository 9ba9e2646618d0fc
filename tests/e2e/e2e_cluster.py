"""What the e2e tests see of the cluster: a recording watch on pods and PodGroups, manifests.

The ``Observer`` LISTs then WATCHes pods and PodGroups in every namespace (re-listing after a
410, a dropped stream or an error, as the watcher does) and keeps every (pod uid, nodeName) and
every PodGroup phase it ever saw. Assertions about the past — "no pod was bound twice", "no pod of
the gang was bound while capacity was short", "the PodGroup went through Running" — read this
record, not the current state.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.cli.stack import Stack
from shared.kube import KubeClient, resource_for
from shared.kube.errors import CALL_ERRORS

Json = dict[str, Any]
KUBECTL = shutil.which("kubectl")
POD = resource_for("v1", "Pod")
PODGROUP = resource_for("scheduling.volcano.sh/v1beta1", "PodGroup")
NAMESPACE = resource_for("v1", "Namespace")
QUEUE = resource_for("scheduling.volcano.sh/v1beta1", "Queue")
VCJOB = resource_for("batch.volcano.sh/v1alpha1", "Job")
BATCHJOB = resource_for("batch/v1", "Job")
PYTORCHJOB = resource_for("kubeflow.org/v1", "PyTorchJob")
PRIORITYCLASS = resource_for("scheduling.k8s.io/v1", "PriorityClass")
CONFIGMAP = resource_for("v1", "ConfigMap")
SERVICE = resource_for("v1", "Service")


@dataclass
class PodRecord:
    uid: str
    namespace: str
    name: str
    owner_uid: str
    owner_name: str
    nodes: list[str] = field(default_factory=list)  # every distinct nodeName, in order seen
    bound_at: float | None = None  # monotonic time the first nodeName was seen
    phases: list[str] = field(default_factory=list)
    deleted: bool = False
    last: Json = field(default_factory=dict)


@dataclass
class PodGroupRecord:
    key: str
    phases: list[str] = field(default_factory=list)
    conditions: list[Json] = field(default_factory=list)  # every condition ever seen
    deleted: bool = False
    last: Json = field(default_factory=dict)


def _meta(obj: Json) -> Json:
    meta: Json = obj.get("metadata") or {}
    return meta


def _controller(obj: Json) -> tuple[str, str]:
    for ref in _meta(obj).get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("uid", "")), str(ref.get("name", ""))
    return "", ""


class Observer:
    """Recording watches on pods and PodGroups (all namespaces)."""

    def __init__(self, kube: KubeClient) -> None:
        self.kube = kube
        self.pods: dict[str, PodRecord] = {}
        self.podgroups: dict[str, PodGroupRecord] = {}
        self.relists = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._synced = {POD.plural: asyncio.Event(), PODGROUP.plural: asyncio.Event()}

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._follow(POD, self._on_pod)),
            asyncio.create_task(self._follow(PODGROUP, self._on_podgroup)),
        ]
        for event in self._synced.values():
            await asyncio.wait_for(event.wait(), 30)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(self, rt: Any, on_event: Callable[[str, Json], None]) -> None:
        while True:
            try:
                items, version = await self.kube.list_all(rt)
                for item in items:
                    on_event("ADDED", item)
                self._synced[rt.plural].set()
                async for kind, obj in self.kube.watch(
                    rt, resource_version=version, timeout_seconds=60, inactivity_timeout=15
                ):
                    if kind != "BOOKMARK":
                        on_event(kind, obj)
            except (*CALL_ERRORS, ValueError):  # an API server restart ends a watch mid-body
                await asyncio.sleep(0.2)
            self.relists += 1

    def _on_pod(self, kind: str, obj: Json) -> None:
        meta = _meta(obj)
        uid = str(meta.get("uid", ""))
        record = self.pods.get(uid)
        if record is None:
            owner_uid, owner_name = _controller(obj)
            record = PodRecord(
                uid=uid,
                namespace=str(meta.get("namespace", "")),
                name=str(meta.get("name", "")),
                owner_uid=owner_uid,
                owner_name=owner_name,
            )
            self.pods[uid] = record
        node = (obj.get("spec") or {}).get("nodeName")
        if node and (not record.nodes or record.nodes[-1] != node):
            record.nodes.append(str(node))
            if record.bound_at is None:
                record.bound_at = time.monotonic()
        phase = str((obj.get("status") or {}).get("phase", ""))
        if phase and (not record.phases or record.phases[-1] != phase):
            record.phases.append(phase)
        record.deleted = record.deleted or kind == "DELETED"
        record.last = obj

    def _on_podgroup(self, kind: str, obj: Json) -> None:
        meta = _meta(obj)
        key = f"{meta.get('namespace')}/{meta.get('name')}"
        record = self.podgroups.setdefault(key, PodGroupRecord(key=key))
        status = obj.get("status") or {}
        phase = str(status.get("phase") or "")
        if phase and (not record.phases or record.phases[-1] != phase):
            record.phases.append(phase)
        for condition in status.get("conditions") or []:
            if condition not in record.conditions:
                record.conditions.append(condition)
        record.deleted = record.deleted or kind == "DELETED"
        record.last = obj

    # --- questions the tests ask ------------------------------------------------------------

    def pods_of(self, namespace: str, owner_name: str | None = None) -> list[PodRecord]:
        return [
            p
            for p in self.pods.values()
            if p.namespace == namespace and (owner_name is None or p.owner_name == owner_name)
        ]

    def rebound(self) -> list[PodRecord]:
        """Pods seen on more than one node: a pod bound twice."""
        return [p for p in self.pods.values() if len(p.nodes) > 1]


async def eventually(
    check: Callable[[], Awaitable[bool]], *, timeout: float, what: str, every: float = 0.25
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


async def create_namespace(kube: KubeClient, name: str) -> None:
    await kube.create(
        NAMESPACE, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )


def container(name: str, cpu: str = "1", memory: str = "1Gi") -> Json:
    return {
        "name": name,
        "image": "busybox:1.36",
        "resources": {"requests": {"cpu": cpu, "memory": memory}},
    }


def vcjob(
    name: str,
    namespace: str,
    *,
    replicas: int,
    min_available: int | None = None,
    cpu: str = "1",
    duration: str | None = "2s",
    queue: str = "default",
    priority_class: str | None = None,
    task: str = "worker",
) -> Json:
    """A one-task Volcano Job; ``duration=None`` runs until deleted."""
    annotations = {"sim.shoal.io/start-delay": "50ms"}
    if duration is not None:
        annotations["sim.shoal.io/duration"] = duration
    pod_spec: Json = {"restartPolicy": "OnFailure", "containers": [container(task, cpu)]}
    if priority_class:
        pod_spec["priorityClassName"] = priority_class
    spec: Json = {
        "minAvailable": replicas if min_available is None else min_available,
        "schedulerName": "volcano",
        "queue": queue,
        "tasks": [
            {
                "name": task,
                "replicas": replicas,
                "template": {"metadata": {"annotations": annotations}, "spec": pod_spec},
            }
        ],
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def indexed_job(name: str, namespace: str, *, completions: int, parallelism: int) -> Json:
    """A batch/v1 Indexed Job scheduled by Shoal (plain-pod PodGroup)."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "completions": completions,
            "parallelism": parallelism,
            "completionMode": "Indexed",
            "backoffLimit": 2,
            "template": {
                "metadata": {
                    "annotations": {
                        "sim.shoal.io/start-delay": "50ms",
                        "sim.shoal.io/duration": "1s",
                    }
                },
                "spec": {
                    "schedulerName": "shoal",
                    "restartPolicy": "Never",
                    "containers": [container("work", "500m", "512Mi")],
                },
            },
        },
    }


INDEX_KEY = "batch.kubernetes.io/job-completion-index"


def index_duplicates(pods: list[PodRecord]) -> dict[str, list[str]]:
    """Indexes of an Indexed Job with more than one pod: index → 'name uid created phases'."""
    by_index: dict[str, list[str]] = {}
    for pod in pods:
        meta = pod.last.get("metadata") or {}
        index = str((meta.get("annotations") or {}).get(INDEX_KEY))
        seen = f"{pod.name} uid={pod.uid[:8]} created={meta.get('creationTimestamp')} {pod.phases}"
        by_index.setdefault(index, []).append(seen)
    return {index: seen for index, seen in by_index.items() if len(seen) > 1}


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie awaiting its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def queue_open(kube: KubeClient, name: str, timeout: float = 30) -> None:
    """Until the Volcano Queue ``name`` is Open: Volcano's job webhook refuses a job to a queue
    its queue controller has not opened yet (kubesim opens one at creation; on a real cluster
    Shoal's job controller does, moments later), and Volcano's own e2e waits for it too."""

    async def opened() -> bool:
        queue = await kube.get(QUEUE, name)
        return bool((queue.get("status") or {}).get("state") == "Open")

    await eventually(opened, timeout=timeout, what=f"Queue {name} Open")


async def kubectl(stack: Stack, *args: str, stdin: str | None = None) -> str:
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL,
        *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else None,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(stack.kubeconfig)},
    )
    out, err = await asyncio.wait_for(
        proc.communicate(stdin.encode() if stdin is not None else None), 30
    )
    assert proc.returncode == 0, f"kubectl {' '.join(args)}: {err.decode()}"
    return out.decode()
