"""The job-controller service over a MemoryBus and a fake API server that publishes what changes.

The fake publishes every ADDED/MODIFIED/DELETED to the state topics as the watcher would, so
these tests run the whole loop: rebuild → ready → sync → API calls → records → cache → sync.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from services.jobcontroller.service import JobController, JobControllerSettings
from shared.bus.memory import MemoryBus
from shared.config import KafkaSettings, ServiceSettings
from shared.events import ObjectEvent, encode
from shared.hops import HOP_QUEUE_DEPTH, HOP_SECONDS, JOBCONTROLLER_SYNC, POD_CREATION
from shared.kube import resource_for
from shared.models import Json
from shared.service import KubeSettings, ServiceShell
from shared.topics import STATE_TOPIC_OF_KIND
from tests.unit.jobcontroller.fakekube import FakeKube

PODGROUP_RT = resource_for("scheduling.volcano.sh/v1beta1", "PodGroup")


def make_shell() -> ServiceShell:
    return ServiceShell(
        service="jobcontroller",
        settings=ServiceSettings(),
        kafka=KafkaSettings(),
        kube=KubeSettings(),
    )


class Cluster:
    """A MemoryBus fed by a FakeKube, like the watcher feeds Kafka from the API server."""

    def __init__(self) -> None:
        self.bus = MemoryBus(partitions=4)
        self.topics = make_shell().topics
        self.kube = FakeKube(on_change=self._publish)

    def _publish(self, event: ObjectEvent) -> None:
        if event.kind not in STATE_TOPIC_OF_KIND:
            return  # e.g. Events: the watcher does not mirror them
        topic = self.topics.state(event.kind)
        asyncio.get_running_loop().create_task(
            self.bus.produce(topic, encode(event), key=event.key.encode())
        )

    async def start(self) -> None:
        await self.bus.create_topics(self.topics.all_state())


@asynccontextmanager
async def running(cluster: Cluster, **settings: Any) -> AsyncIterator[JobController]:
    config = JobControllerSettings(**{"workers": 4, "backoff_base": 0.01, **settings})
    controller = JobController(
        shell=make_shell(), bus=cluster.bus, kube=cluster.kube, settings=config
    )
    stopping = asyncio.Event()
    task = asyncio.create_task(controller.run(stopping))
    try:
        await eventually(lambda: controller.shell.readiness.ready or task.done())
        yield controller
    finally:
        stopping.set()
        await asyncio.wait_for(task, 5)


async def eventually(check: Callable[[], object], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def batch_job(name: str, *, parallelism: int = 2, scheduler: str = "volcano") -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "template": {
                "spec": {
                    "schedulerName": scheduler,
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                }
            },
        },
    }


def volcano_job(name: str, **spec: Any) -> Json:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {
            "minAvailable": 2,
            "tasks": [
                {
                    "name": "worker",
                    "replicas": 2,
                    "template": {"spec": {"containers": [{"name": "w", "image": "busybox"}]}},
                }
            ],
            **spec,
        },
    }


def status_of(kube: FakeKube, type_key: str, key: str) -> Json:
    obj = kube.stored(type_key, key)
    assert obj is not None
    status: Json = obj.get("status") or {}
    return status


def pods_of(kube: FakeKube, owner: str) -> list[Json]:
    return [
        p
        for p in kube.of_kind("Pod")
        if any(r["name"] == owner for r in p["metadata"].get("ownerReferences", []))
    ]


async def test_batch_job_pods_get_a_podgroup_and_the_job_a_status() -> None:
    cluster = Cluster()
    await cluster.start()
    job = cluster.kube.put(batch_job("etl"))
    async with running(cluster) as controller:
        await eventually(lambda: len(pods_of(cluster.kube, "etl")) == 2)
        group = f"podgroup-{job['metadata']['uid']}"
        await eventually(
            lambda: all(
                p["metadata"].get("annotations", {}).get("scheduling.k8s.io/group-name") == group
                for p in pods_of(cluster.kube, "etl")
            )
        )
        await eventually(
            lambda: status_of(cluster.kube, "batch/v1/Job", "ns/etl").get("active") == 2
        )
        podgroup = cluster.kube.stored(PODGROUP_RT, f"ns/{group}")
        assert podgroup is not None and podgroup["spec"]["minMember"] == 1
        await asyncio.sleep(0.2)  # settle: no further creations once expectations are met
        assert len(cluster.kube.verbs("create", "Pod")) == 2
        assert len(cluster.kube.verbs("create", "PodGroup")) == 1
        assert controller.cache.expectations.keys() != []  # raised and since satisfied


async def test_volcano_job_gets_its_podgroup_then_its_pods_once_admitted() -> None:
    cluster = Cluster()
    await cluster.start()
    job = cluster.kube.put(volcano_job("train"))
    async with running(cluster):
        group = f"train-{job['metadata']['uid']}"
        await eventually(lambda: cluster.kube.stored(PODGROUP_RT, f"ns/{group}") is not None)
        assert pods_of(cluster.kube, "train") == []  # the gang is not admitted yet
        await cluster.kube.patch(
            PODGROUP_RT,
            group,
            {"status": {"phase": "Inqueue"}},
            namespace="ns",
        )
        await eventually(lambda: len(pods_of(cluster.kube, "train")) == 2)
        names = sorted(p["metadata"]["name"] for p in pods_of(cluster.kube, "train"))
        assert names == ["train-worker-0", "train-worker-1"]
        status = status_of(cluster.kube, "batch.volcano.sh/v1alpha1/Job", "ns/train")
        assert status["state"]["phase"] == "Pending" and status["minAvailable"] == 2


@pytest.mark.parametrize(("present", "created"), [(False, 1), (True, 0)], ids=["absent", "present"])
async def test_default_queue_is_created_only_when_missing(present: bool, created: int) -> None:
    cluster = Cluster()
    await cluster.start()
    if present:
        cluster.kube.put(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "Queue",
                "metadata": {"name": "default"},
                "spec": {"weight": 3},
            }
        )
        await asyncio.sleep(0.01)  # let the record be published before the rebuild
    async with running(cluster):
        await eventually(
            lambda: cluster.kube.stored("scheduling.volcano.sh/v1beta1/Queue", "default")
        )
        await asyncio.sleep(0.05)
        queue = cluster.kube.stored("scheduling.volcano.sh/v1beta1/Queue", "default")
        assert queue is not None
        assert len(cluster.kube.verbs("create", "Queue")) == created
        if not present:
            assert queue["spec"] == {"weight": 1, "reclaimable": True}


async def test_shards_split_the_jobs_and_each_job_is_synced_by_one() -> None:
    cluster = Cluster()
    await cluster.start()
    for i in range(12):
        cluster.kube.put(batch_job(f"job-{i}", parallelism=1, scheduler="default-scheduler"))
    async with (
        running(cluster, shard=0, shards=2) as first,
        running(cluster, shard=1, shards=2) as second,
    ):
        await eventually(lambda: len(cluster.kube.of_kind("Pod")) == 12)
        await asyncio.sleep(0.2)
    assert len(cluster.kube.verbs("create", "Pod")) == 12  # no job had two controllers
    mine = [{k.key for k in c.cache.jobs()} for c in (first, second)]
    assert mine[0] and mine[1] and not mine[0] & mine[1]
    assert len(mine[0] | mine[1]) == 12


async def test_invalid_jobs_get_a_warning_and_the_loop_goes_on() -> None:
    cluster = Cluster()
    await cluster.start()
    cluster.kube.put(volcano_job("bad", tasks="not-a-list"))
    cluster.kube.put(batch_job("good", parallelism=1, scheduler="default-scheduler"))
    async with running(cluster):
        await eventually(lambda: len(pods_of(cluster.kube, "good")) == 1)
        await eventually(lambda: cluster.kube.of_kind("Event"))
        event = cluster.kube.of_kind("Event")[0]
        assert (event["type"], event["reason"]) == ("Warning", "InvalidJobSpec")
        assert event["involvedObject"]["name"] == "bad"
        state = status_of(cluster.kube, "batch.volcano.sh/v1alpha1/Job", "ns/bad")["state"]
        assert state["reason"] == "InvalidJobSpec" and "tasks" in state["message"]
        await asyncio.sleep(0.1)
        assert len(cluster.kube.of_kind("Event")) == 1  # one Event per distinct message


async def test_restart_rebuilds_and_does_not_recreate() -> None:
    cluster = Cluster()
    await cluster.start()
    cluster.kube.put(batch_job("etl", parallelism=3, scheduler="default-scheduler"))
    async with running(cluster):
        await eventually(lambda: len(pods_of(cluster.kube, "etl")) == 3)
        await asyncio.sleep(0.1)
    creates = len(cluster.kube.calls)
    async with running(cluster) as restarted:
        assert len(restarted.cache.owned(next(iter(restarted.cache.jobs())), "v1/Pod")) == 3
        await asyncio.sleep(0.2)
    assert [c for c in cluster.kube.calls[creates:] if c[0] == "create" and c[1] == "Pod"] == []


async def test_transient_api_errors_are_retried_with_backoff() -> None:
    from shared.kube import ApiError

    cluster = Cluster()
    await cluster.start()
    cluster.kube.fail("create", "Pod", "*", *[ApiError(503, "ServiceUnavailable", "busy")] * 3)
    cluster.kube.put(batch_job("etl", parallelism=1, scheduler="default-scheduler"))
    async with running(cluster) as controller:
        await eventually(lambda: len(pods_of(cluster.kube, "etl")) == 1)
    assert len(cluster.kube.verbs("create", "Pod")) == 4
    errors = controller.shell.registry.get_sample_value(
        "shoal_jobcontroller_errors_total", {"reason": "transient"}
    )
    assert errors == 3


async def test_syncs_are_timed_from_the_watchers_observation() -> None:
    cluster = Cluster()
    await cluster.start()
    job = cluster.kube.put(volcano_job("timed"))
    async with running(cluster) as controller:
        registry = controller.shell.registry
        group = f"timed-{job['metadata']['uid']}"
        await eventually(lambda: cluster.kube.stored(PODGROUP_RT, f"ns/{group}") is not None)
        # The job was in the log before the start: rebuilt, not timed.
        assert registry.get_sample_value(f"{HOP_SECONDS}_count", {"hop": POD_CREATION}) is None
        await cluster.kube.patch(
            PODGROUP_RT,
            group,
            {"status": {"phase": "Inqueue"}},
            namespace="ns",
        )
        await eventually(lambda: len(pods_of(cluster.kube, "timed")) == 2)
        await eventually(
            lambda: registry.get_sample_value(f"{HOP_SECONDS}_count", {"hop": POD_CREATION}) == 1
        )
        depth = registry.get_sample_value(HOP_QUEUE_DEPTH, {"hop": JOBCONTROLLER_SYNC})
        assert depth is not None
