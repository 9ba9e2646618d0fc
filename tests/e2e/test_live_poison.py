"""One record must not halt a service (issue 15, defect 11, the services' part).

Records the API server would refuse can still reach the services (published on Kafka by
something else, or admitted before a limit existed). Each test puts one such record in, then an
ordinary Volcano Job must still complete:

- a Node with ``cpu: 1e30`` / ``memory: 16Ei`` on ``state.nodes``: the scheduler leaves the node
  out with a Warning Event on it, instead of failing every cycle with OverflowError;
- a pod record with a null name on ``state.pods``: dead-lettered by live consumption and by the
  rebuild after a scheduler restart, instead of crash-looping the rebuild;
- a Volcano Job with ``replicas: 1000000000``: refused by the job controller with a condition
  and an Event, without blocking the syncs of other jobs.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from services.cli.progress import job_phase
from services.cli.stack import Stack
from shared.bus.kafka import KafkaBus
from shared.config import KafkaSettings
from shared.events import ObjectAdded, encode, raw_object
from shared.kube import KubeClient
from shared.kube.resources import EVENT
from shared.topics import Topics
from tests.e2e.e2e_cluster import VCJOB, Observer, eventually, vcjob

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]


async def publish(stack: Stack, kind: str, key: str, obj: Json) -> None:
    topics = Topics(prefix=stack.config.topic_prefix)
    settings = KafkaSettings(
        bootstrap=stack.bootstrap,
        broker=stack.broker_kind,
        topic_prefix=stack.config.topic_prefix,
    )
    event = ObjectAdded(key=key, kind=kind, resourceVersion="1", object=raw_object(obj))
    async with KafkaBus(settings=settings) as bus:
        await bus.produce(topics.state(kind), encode(event), key=key.encode())


async def completes(kube: KubeClient, observer: Observer, ns: str, name: str) -> None:
    await kube.create(VCJOB, vcjob(name, ns, replicas=2, duration="300ms"))

    async def completed() -> bool:
        return job_phase(await kube.get(VCJOB, name, ns)) == "Completed"

    await eventually(completed, timeout=60, what=f"{ns}/{name} to complete")
    assert len(observer.pods_of(ns, name)) == 2


@pytest.mark.parametrize(
    ("cpu", "memory"), [("1e30", "16Gi"), ("8", "16Ei")], ids=["cpu-1e30", "memory-16Ei"]
)
async def test_node_beyond_range_is_left_out_with_an_event(
    stack: Stack, kube: KubeClient, observer: Observer, namespace: str, cpu: str, memory: str
) -> None:
    name = f"huge-{cpu}-{memory}".lower().replace(".", "")
    capacity = {"cpu": cpu, "memory": memory, "pods": "110"}
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "1"},
        "status": {"capacity": capacity, "allocatable": capacity},
    }
    await publish(stack, "Node", name, node)
    await completes(kube, observer, namespace, "after-node")

    async def warned() -> bool:
        events, _ = await kube.list_all(EVENT)
        return any(
            e["involvedObject"].get("name") == name and e["reason"] == "InvalidNodeAllocatable"
            for e in events
        )

    await eventually(warned, timeout=30, what=f"a Warning Event on node {name}")


async def test_pod_record_without_name_survives_a_scheduler_restart(
    stack: Stack, kube: KubeClient, observer: Observer, namespace: str
) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": None, "namespace": namespace, "uid": "uid-nameless"},
        "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "x"}]},
    }
    await publish(stack, "Pod", f"{namespace}/nameless", pod)
    await completes(kube, observer, namespace, "before-restart")
    started = time.monotonic()
    await stack.restart("scheduler", timeout=60)
    await completes(kube, observer, namespace, "after-restart")
    print(f"scheduler back after {time.monotonic() - started:.1f}s")


async def test_billion_replicas_are_refused_without_blocking_others(
    stack: Stack, kube: KubeClient, observer: Observer, namespace: str
) -> None:
    huge = vcjob("billion", namespace, replicas=1_000_000_000, duration=None)
    huge["spec"]["minAvailable"] = 1
    # The API server takes it (upstream's CRD and webhook set no bound): the job controller
    # refuses it on its own, with an Event, and goes on with the others.
    await kube.create(VCJOB, huge)
    started = time.monotonic()
    await completes(kube, observer, namespace, "small")
    assert time.monotonic() - started < 30, "another job waited behind the huge one"

    async def warned() -> bool:
        events, _ = await kube.list_all(EVENT, namespace=namespace)
        return any(
            e["involvedObject"].get("name") == "billion"
            and e["reason"] == "InvalidJobSpec"
            and "replicas" in e["message"]
            for e in events
        )

    await eventually(warned, timeout=30, what="a Warning Event refusing the huge job")
