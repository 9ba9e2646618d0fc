"""The shell: a plane per side, started once, and the scenarios run on it one after another.

A side is a ``RealControlPlane`` with no node of its own: the peer's runs Volcano's
vc-scheduler and vc-controller-manager (no Kafka, no Shoal webhook, no kube-scheduler), Shoal's
is a ``Stack`` on the real control plane (its four services and webhook, no kube-scheduler).
Each scenario brings its own kwok nodes, queues and namespace and takes them away after it, so
the next one sees none of them. Volcano is cluster-global: scenarios on one plane never overlap
in time.

A scenario: set the conf (vc-scheduler reloads the file it watches; Shoal's scheduler reads the
``volcano-scheduler-configmap`` ConfigMap), make the namespace, queues and nodes, wait until the
nodes are Ready and the queues Open (each side's queue controller opens them), give the
scheduler ``SETTLE_S`` to see them, start recording, create each arrival at its time, and stop
when no decision has moved for ``QUIET_S`` after the last arrival and no pod that is to end is
still running (at most ``DEADLINE_S``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.cli.decisions import kueue, volcano
from services.cli.decisions.generating import ALLOCATE_CONF
from services.cli.decisions.kueue import KueueScenario
from services.cli.decisions.outcome import Outcome
from services.cli.decisions.recording import POD, PODGROUP, Recorder
from services.cli.decisions.scenario import Scenario
from services.cli.decisions.workloads import WorkloadRecorder
from shared.kube import ApiError, KubeClient, resource_for

Json = dict[str, Any]
SETTLE_S = 1.0
QUIET_S = 3.0
DEADLINE_S = 40.0
CONF_RELOAD_S = 2.0
NODE = resource_for("v1", "Node")
QUEUE = resource_for("scheduling.volcano.sh/v1beta1", "Queue")
NAMESPACE = resource_for("v1", "Namespace")
CONFIGMAP = resource_for("v1", "ConfigMap")
SHOAL_NAMESPACE = "shoal-system"


@dataclass
class Side:
    """A running plane: its name (``volcano`` or ``shoal``), an admin client, how to set the
    volcano-scheduler.conf, and the processes to check are still alive."""

    name: str
    kube: KubeClient
    set_conf: Callable[[str], Awaitable[None]]
    alive: Callable[[], dict[str, bool]]


async def _wait(check: Callable[[], Awaitable[bool]], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} after {timeout:.0f}s")
        await asyncio.sleep(0.1)


@asynccontextmanager
async def volcano_side(workdir: Path, *, preexec: Callable[[], None] | None) -> AsyncIterator[Side]:
    from services.cli.controlplane.peers import Peers
    from services.cli.controlplane.real import RealConfig, RealControlPlane

    real = RealControlPlane(
        RealConfig(
            workdir=workdir,
            nodes=0,
            node_gpus=0,
            etcd_fsync=False,
            kube_scheduler=False,
            kafka=False,
            shoal_admission=False,
            preexec=preexec,
        )
    )
    folder = workdir / "conf"  # its own folder: vc-scheduler reloads on any write in it
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "volcano-scheduler.conf"
    conf.write_text(ALLOCATE_CONF)  # the conf of Volcano's Helm chart, until a scenario's
    current = [ALLOCATE_CONF]
    peers = Peers(real)
    try:
        await real.start(timeout=300)
        kube = await KubeClient.connect(str(real.kubeconfig))
        try:

            async def set_conf(text: str) -> None:
                if text == current[0]:
                    return
                staged = workdir / "volcano-scheduler.conf.new"
                staged.write_text(text)
                staged.replace(conf)  # whole, never a half-written file
                current[0] = text
                await asyncio.sleep(CONF_RELOAD_S)

            await peers.start_volcano(conf=conf, timeout=120)
            await real.apply(volcano.priority_classes())
            yield Side("volcano", kube, set_conf, real.alive)
        finally:
            await kube.close()
    finally:
        peers.stop(grace=5)
        real.stop(grace=5)


@asynccontextmanager
async def kueue_side(workdir: Path, *, preexec: Callable[[], None] | None) -> AsyncIterator[Side]:
    """Kueue's manager with Kubernetes' own Job controller, and kube-scheduler to run the pods
    of admitted Jobs (so a Job ends and gives its quota back)."""
    from services.cli.controlplane.peers import Peers
    from services.cli.controlplane.real import RealConfig, RealControlPlane

    real = RealControlPlane(
        RealConfig(
            workdir=workdir,
            nodes=0,
            node_gpus=0,
            etcd_fsync=False,
            builtin_job_controller=True,
            kafka=False,
            shoal_admission=False,
            preexec=preexec,
        )
    )
    peers = Peers(real)
    try:
        await real.start(timeout=300)
        kube = await KubeClient.connect(str(real.kubeconfig))
        try:
            await peers.start_kueue(timeout=120)
            await real.apply(volcano.priority_classes())
            yield Side("kueue", kube, _no_conf, real.alive)
        finally:
            await kube.close()
    finally:
        peers.stop(grace=5)
        real.stop(grace=5)


async def _no_conf(text: str) -> None:
    """Kueue's scenarios carry no scheduler conf."""


@asynccontextmanager
async def shoal_side(
    workdir: Path, *, preexec: Callable[[], None] | None, kube_scheduler: bool = False
) -> AsyncIterator[Side]:
    """Shoal's stack on the real control plane; ``kube_scheduler`` for Kueue's scenarios,
    whose Jobs' pods name the default scheduler, as on the peer's plane."""
    from services.cli.stack import Stack, StackConfig

    stack = Stack(
        StackConfig(
            workdir=workdir,
            control_plane="real",
            nodes=0,
            node_gpus=0,
            kube_scheduler=kube_scheduler,
            etcd_fsync=False,
            preexec=preexec,
        )
    )
    current = [""]  # Shoal's default conf until the first scenario's is applied
    try:
        await stack.start(timeout=300)
        assert stack.real is not None
        real = stack.real
        kube = await KubeClient.connect(str(stack.kubeconfig))
        try:

            async def set_conf(text: str) -> None:
                if text == current[0]:
                    return
                await real.apply([_conf_configmap(text)])
                current[0] = text
                await asyncio.sleep(CONF_RELOAD_S)

            await real.apply(volcano.priority_classes())

            def alive() -> dict[str, bool]:
                return {name: alive for name, alive, _ in stack.children()}

            yield Side("shoal", kube, set_conf, alive)
        finally:
            await kube.close()
    finally:
        stack.stop(grace=5)


def _conf_configmap(text: str) -> Json:
    from services.scheduler.conf import CONFIGMAP_KEY, CONFIGMAP_NAME

    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": CONFIGMAP_NAME, "namespace": SHOAL_NAMESPACE},
        "data": {CONFIGMAP_KEY: text},
    }


async def run_scenario(side: Side, scenario: Scenario | KueueScenario) -> Outcome:
    """Replay ``scenario`` on ``side`` and record what it decided; the scenario's objects are
    gone again afterwards, whatever happened."""
    started = time.monotonic()
    try:
        if isinstance(scenario, KueueScenario):
            return await _replay_kueue(side, scenario, started)
        return await _replay(side, scenario, started)
    except (TimeoutError, ApiError, OSError) as exc:
        return Outcome(
            scenario=scenario.name,
            side=side.name,
            gangs={},
            seconds=round(time.monotonic() - started, 2),
            error=f"{type(exc).__name__}: {exc}",
        )
    finally:
        if isinstance(scenario, KueueScenario):
            await _clean_kueue(side.kube, scenario)
        else:
            await _clean(side.kube, scenario)


async def _replay(side: Side, scenario: Scenario, started: float) -> Outcome:
    kube = side.kube
    await side.set_conf(scenario.conf)
    namespace = volcano.namespace(scenario)
    await kube.create(NAMESPACE, volcano.namespace_manifest(scenario))
    for spec in scenario.queues:
        await kube.create(QUEUE, volcano.queue(scenario, spec))
    for node in volcano.nodes(scenario):
        await kube.create(NODE, node)
    await _wait(
        lambda: _nodes_ready(kube, scenario.name, len(scenario.nodes)), 30, "nodes not Ready"
    )
    await _wait(lambda: _queues_open(kube, scenario), 30, "queues not Open")
    await asyncio.sleep(SETTLE_S)
    recorder = Recorder(kube, namespace)
    await recorder.start()
    try:
        begin = time.monotonic()
        for at, objects in volcano.arrivals(scenario):
            await asyncio.sleep(max(0.0, begin + at - time.monotonic()))
            for obj in objects:
                rt = PODGROUP if obj["kind"] == "PodGroup" else POD
                await kube.create(rt, obj)
        finite = {g.name for g in scenario.gangs if g.duration is not None}
        end = begin + scenario.last_arrival
        deadline = end + DEADLINE_S

        def settled() -> bool:
            now = time.monotonic()
            busy = any(
                recorder.gang_of.get(pod) in finite
                and pod not in recorder.gone
                and recorder.phase.get(pod) not in ("Succeeded", "Failed")
                for pod in recorder.nodes
            )
            return now - max(end, recorder.changed) >= QUIET_S and not busy

        while not settled() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        return recorder.outcome(scenario, side.name, time.monotonic() - started)
    finally:
        await recorder.stop()


async def _nodes_ready(kube: KubeClient, scenario: str, count: int) -> bool:
    """Whether the ``count`` kwok nodes of ``scenario`` are all Ready."""
    items, _ = await kube.list_all(NODE, label_selector=f"{volcano.SCENARIO_LABEL}={scenario}")
    ready = [
        n
        for n in items
        if any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in (n.get("status") or {}).get("conditions") or []
        )
    ]
    return len(ready) == count


async def _queues_open(kube: KubeClient, scenario: Scenario) -> bool:
    for spec in scenario.queues:
        queue = await kube.get(QUEUE, volcano.queue_name(scenario, spec.name))
        if (queue.get("status") or {}).get("state") != "Open":
            return False
    return True


async def _clean(kube: KubeClient, scenario: Scenario) -> None:
    """Pods first (at once), then PodGroups, nodes and queues; the namespace goes last, and
    nothing of the scenario may be left for the next: the wait for its pods is bounded."""
    namespace = volcano.namespace(scenario)
    with contextlib.suppress(ApiError):
        pods, _ = await kube.list_all(POD, namespace=namespace)
        for pod in pods:
            with contextlib.suppress(ApiError):
                await kube.delete(POD, pod["metadata"]["name"], namespace, grace_period_seconds=0)
        groups, _ = await kube.list_all(PODGROUP, namespace=namespace)
        for group in groups:
            with contextlib.suppress(ApiError):
                await kube.delete(PODGROUP, group["metadata"]["name"], namespace)

    async def no_pods() -> bool:
        with contextlib.suppress(ApiError):
            items, _ = await kube.list_all(POD, namespace=namespace)
            return not items
        return True

    with contextlib.suppress(TimeoutError):
        await _wait(no_pods, 30, "pods left")
    for node in scenario.nodes:
        with contextlib.suppress(ApiError):
            await kube.delete(NODE, volcano.node_name(scenario, node.name))
    for spec in scenario.queues:
        with contextlib.suppress(ApiError):
            await kube.delete(QUEUE, volcano.queue_name(scenario, spec.name))
    with contextlib.suppress(ApiError):
        await kube.delete(NAMESPACE, namespace)


# --- Kueue ----------------------------------------------------------------------------------

BATCHJOB = resource_for("batch/v1", "Job")
CLUSTER_QUEUE = resource_for(kueue.KUEUE, "ClusterQueue")
LOCAL_QUEUE = resource_for(kueue.KUEUE, "LocalQueue")
FLAVOR = resource_for(kueue.KUEUE, "ResourceFlavor")


async def _replay_kueue(side: Side, scenario: KueueScenario, started: float) -> Outcome:
    kube = side.kube
    for obj in kueue.setup(scenario):
        rt = resource_for(obj["apiVersion"], obj["kind"])
        await kube.create(rt, obj, namespace=obj["metadata"].get("namespace"))
    await _wait(
        lambda: _nodes_ready(kube, scenario.name, len(scenario.flavors)), 30, "nodes not Ready"
    )
    await _wait(lambda: _cluster_queues_active(kube, scenario), 30, "ClusterQueues not Active")
    await asyncio.sleep(SETTLE_S)
    recorder = WorkloadRecorder(kube, scenario)
    await recorder.start()
    try:
        begin = time.monotonic()
        for at, jobs in kueue.arrivals(scenario):
            await asyncio.sleep(max(0.0, begin + at - time.monotonic()))
            for job in jobs:
                await kube.create(BATCHJOB, job, namespace=scenario.name)
        end = begin + scenario.last_arrival
        deadline = end + DEADLINE_S

        def settled() -> bool:
            quiet = time.monotonic() - max(end, recorder.changed) >= QUIET_S
            return quiet and not recorder.busy()

        while not settled() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        return recorder.outcome(side.name, time.monotonic() - started)
    finally:
        await recorder.stop()


async def _cluster_queues_active(kube: KubeClient, scenario: KueueScenario) -> bool:
    for queue in scenario.queues:
        found = await kube.get(CLUSTER_QUEUE, kueue.prefixed(scenario, queue.name))
        conditions = (found.get("status") or {}).get("conditions") or []
        if not any(c.get("type") == "Active" and c.get("status") == "True" for c in conditions):
            return False
    return True


async def _clean_kueue(kube: KubeClient, scenario: KueueScenario) -> None:
    """Jobs with their pods and Workloads, then the queues, flavors and nodes; a ClusterQueue
    that still holds a finalizer goes when its controller lets it."""
    namespace = scenario.name
    with contextlib.suppress(ApiError):
        jobs, _ = await kube.list_all(BATCHJOB, namespace=namespace)
        for job in jobs:
            with contextlib.suppress(ApiError):
                await kube.delete(
                    BATCHJOB,
                    job["metadata"]["name"],
                    namespace,
                    grace_period_seconds=0,
                    propagation_policy="Background",
                )
        pods, _ = await kube.list_all(POD, namespace=namespace)
        for pod in pods:
            with contextlib.suppress(ApiError):
                await kube.delete(POD, pod["metadata"]["name"], namespace, grace_period_seconds=0)

    async def no_pods() -> bool:
        with contextlib.suppress(ApiError):
            items, _ = await kube.list_all(POD, namespace=namespace)
            return not items
        return True

    with contextlib.suppress(TimeoutError):
        await _wait(no_pods, 30, "pods left")
    for queue in scenario.queues:
        with contextlib.suppress(ApiError):
            await kube.delete(LOCAL_QUEUE, queue.name, namespace)
        with contextlib.suppress(ApiError):
            await kube.delete(CLUSTER_QUEUE, kueue.prefixed(scenario, queue.name))
    for flavor in scenario.flavors:
        name = kueue.prefixed(scenario, flavor)
        with contextlib.suppress(ApiError):
            await kube.delete(FLAVOR, name)
        with contextlib.suppress(ApiError):
            await kube.delete(NODE, name)
    with contextlib.suppress(ApiError):
        await kube.delete(NAMESPACE, namespace)
