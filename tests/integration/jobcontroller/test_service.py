"""The job controller against kubesim over HTTP and the real broker, fed by the real watcher.

kubesim → watcher → state topics → job controller → kubesim: a batch/v1 Job and a Volcano Job
are created through the API, and their pods, PodGroups and status must appear there. No
scheduler runs, so the test admits the Volcano PodGroup itself (phase Inqueue), as the binder
would on the scheduler's decision.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from services.jobcontroller.service import JobController, JobControllerSettings
from services.kubesim.app import KubeSim
from services.kubesim.config import SimConfig
from services.watcher.service import WatcherSettings, run_watcher
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind, KafkaSettings, ServiceSettings
from shared.kube import ApiError, KubeClient, resource_for
from shared.models import Json
from shared.service import KubeSettings, ServiceShell
from tests.conftest import KafkaNames

pytestmark = [pytest.mark.broker, pytest.mark.kubesim, pytest.mark.timeout(90)]

BATCH_JOB = resource_for("batch/v1", "Job")
VOLCANO_JOB = resource_for("batch.volcano.sh/v1alpha1", "Job")
POD = resource_for("v1", "Pod")
PODGROUP = resource_for("scheduling.volcano.sh/v1beta1", "PodGroup")
QUEUE = resource_for("scheduling.volcano.sh/v1beta1", "Queue")
RESOURCES = (
    "v1/Pod",
    "v1/Service",
    "batch/v1/Job",
    "scheduling.volcano.sh/v1beta1/PodGroup",
    "scheduling.volcano.sh/v1beta1/Queue",
    "batch.volcano.sh/v1alpha1/Job",
    "bus.volcano.sh/v1alpha1/Command",
)


def make_shell(service: str, kafka: KafkaSettings) -> ServiceShell:
    return ServiceShell(
        service=service, settings=ServiceSettings(http_port=0), kafka=kafka, kube=KubeSettings()
    )


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.1)


class Stack:
    def __init__(self, kube: KubeClient, controller: JobController) -> None:
        self.kube = kube
        self.controller = controller

    async def pods(self, label: str) -> list[Json]:
        items, _ = await self.kube.list_all(POD, namespace="default", label_selector=label)
        return items

    async def get(self, rt: Any, name: str) -> Json | None:
        try:
            return await self.kube.get(rt, name, None if rt is QUEUE else "default")
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise


@pytest.fixture
async def stack(
    kafka_bootstrap: str, broker_kind: BrokerKind, kafka_names: KafkaNames
) -> AsyncIterator[Stack]:
    kafka = KafkaSettings(
        bootstrap=kafka_bootstrap,
        broker=broker_kind,
        topic_prefix=kafka_names.prefix,
        fetch_max_wait_ms=10,
    )
    stopping = asyncio.Event()
    async with KubeSim(SimConfig(default_queue=False)) as sim, KafkaBus(settings=kafka) as bus:
        kube = await KubeClient.connect(str(sim.kubeconfig_path))
        controller = JobController(
            shell=make_shell("jobcontroller", kafka),
            bus=bus,
            kube=kube,
            settings=JobControllerSettings(backoff_base=0.05),
        )
        watcher = asyncio.create_task(
            run_watcher(
                shell=make_shell("watcher", kafka),
                bus=bus,
                kube=kube,
                settings=WatcherSettings(resources=RESOURCES),
                stopping=stopping,
            )
        )
        running = asyncio.create_task(controller.run(stopping))
        try:
            yield Stack(kube, controller)
        finally:
            stopping.set()
            await asyncio.wait_for(asyncio.gather(watcher, running), 15)
            await kube.close()


def batch_job(name: str, parallelism: int) -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "template": {
                "spec": {
                    "schedulerName": "volcano",
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                }
            },
        },
    }


def volcano_job(name: str) -> Json:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "minAvailable": 3,
            "queue": "default",
            "tasks": [
                {
                    "name": "ps",
                    "replicas": 1,
                    "template": {"spec": {"containers": [{"name": "ps", "image": "busybox"}]}},
                },
                {
                    "name": "worker",
                    "replicas": 2,
                    "template": {"spec": {"containers": [{"name": "w", "image": "busybox"}]}},
                },
            ],
        },
    }


async def test_jobs_get_pods_podgroups_and_status_through_the_whole_loop(stack: Stack) -> None:
    await eventually(lambda: _ready(stack))

    async def default_queue() -> bool:  # architecture §4: it exists from the start
        return await stack.get(QUEUE, "default") is not None

    await eventually(default_queue)

    created = await stack.kube.create(BATCH_JOB, batch_job("etl", parallelism=3))
    vjob = await stack.kube.create(VOLCANO_JOB, volcano_job("train"))

    # batch/v1 Job: pods with the Job's labels, joined to one PodGroup, and an active count.
    async def batch_pods_grouped() -> bool:
        pods = await stack.pods("job-name=etl")
        groups = {
            p["metadata"].get("annotations", {}).get("scheduling.k8s.io/group-name") for p in pods
        }
        return len(pods) == 3 and groups == {f"podgroup-{created['metadata']['uid']}"}

    await eventually(batch_pods_grouped)
    group = await stack.get(PODGROUP, f"podgroup-{created['metadata']['uid']}")
    assert group is not None and group["spec"]["minMember"] == 1

    async def batch_active() -> bool:
        job = await stack.get(BATCH_JOB, "etl")
        return job is not None and (job.get("status") or {}).get("active") == 3

    await eventually(batch_active)

    # Volcano Job: PodGroup <job>-<uid> first; pods <job>-<task>-<index> once it is admitted.
    pg_name = f"train-{vjob['metadata']['uid']}"

    async def podgroup_created() -> bool:
        return await stack.get(PODGROUP, pg_name) is not None

    await eventually(podgroup_created)
    assert await stack.pods("volcano.sh/job-name=train") == []
    await stack.kube.patch(
        PODGROUP,
        pg_name,
        {"status": {"phase": "Inqueue"}},
        namespace="default",
    )

    async def volcano_pods() -> bool:
        return len(await stack.pods("volcano.sh/job-name=train")) == 3

    await eventually(volcano_pods)
    pods = await stack.pods("volcano.sh/job-name=train")
    assert sorted(p["metadata"]["name"] for p in pods) == [
        "train-ps-0",
        "train-worker-0",
        "train-worker-1",
    ]
    assert {p["metadata"]["annotations"]["scheduling.k8s.io/group-name"] for p in pods} == {pg_name}

    async def volcano_status() -> bool:
        job = await stack.get(VOLCANO_JOB, "train")
        status = (job or {}).get("status") or {}
        return status.get("minAvailable") == 3 and status.get("pending") == 3

    await eventually(volcano_status)
    # Each object was created exactly once: expectations held while the cache caught up.
    assert len(await stack.pods("job-name=etl")) == 3
    created_pods = stack.controller.shell.registry.get_sample_value(
        "shoal_jobcontroller_created_total", {"kind": "Pod"}
    )
    assert created_pods == 6


async def _ready(stack: Stack) -> bool:
    return stack.controller.shell.readiness.ready


async def test_queues_are_opened_as_their_records_arrive(stack: Stack) -> None:
    """Volcano's queue controller opens a Queue with no state; the job controller does it when
    the Queue's record reaches it (no polling)."""
    await eventually(lambda: _ready(stack))

    async def state_of(name: str) -> str | None:
        queue = await stack.get(QUEUE, name)
        return None if queue is None else (queue.get("status") or {}).get("state")

    async def opened(name: str) -> bool:
        return await state_of(name) == "Open"

    await eventually(lambda: opened("default"))
    for name in ("team-a", "team-b"):
        await stack.kube.create(QUEUE, {**_queue(name), "status": {}})
    await eventually(lambda: opened("team-a"))
    await eventually(lambda: opened("team-b"))


def _queue(name: str) -> Json:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": {"weight": 1},
    }
