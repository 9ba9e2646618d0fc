"""Watcher and binder against kubesim over HTTP and the real broker over TCP."""

from __future__ import annotations

import asyncio
from typing import Any

from services.binder.service import BinderSettings, run_binder
from services.kubesim.app import KubeSim
from services.kubesim.config import SimConfig, pool
from services.watcher.service import WatcherSettings, run_watcher
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind
from shared.events import (
    DecisionDropped,
    ListSynced,
    ObjectAdded,
    ObjectDeleted,
    ObjectEvent,
    PodBindDecided,
    PodBindFailed,
    PodBound,
    encode,
    object_of,
    result_decoder,
    state_decoder,
)
from shared.kube import KubeClient
from shared.kube.resources import POD
from tests.integration.services.conftest import make_shell


def pod(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "schedulerName": "shoal",
            "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
            ],
        },
    }


async def wait_for(predicate: Any, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.1)


async def test_watcher_mirrors_list_watch_and_deletes(
    kube: KubeClient, bus: KafkaBus, kafka_bootstrap: str, broker_kind: BrokerKind, kafka_names: Any
) -> None:
    shell = make_shell("watcher", kafka_bootstrap, broker_kind, kafka_names.prefix)
    await kube.create(POD, pod("before"))
    stopping = asyncio.Event()
    settings = WatcherSettings(resources=("v1/Pod", "v1/Node"))
    task = asyncio.create_task(
        run_watcher(shell=shell, bus=bus, kube=kube, settings=settings, stopping=stopping)
    )
    topic = shell.topics.state("Pod")

    async def events() -> list[Any]:
        snap = await bus.rebuild(topics=[topic], decode=state_decoder.decode)
        return [r.value for r in snap.records]

    async def listed() -> bool:
        return shell.readiness.ready

    await wait_for(listed)
    await kube.create(POD, pod("after"))
    await kube.delete(POD, "before", "default", grace_period_seconds=0)

    async def seen_all() -> bool:
        names = {
            (type(e).__name__, object_of(e)["metadata"]["name"])
            for e in await events()
            if isinstance(e, ObjectEvent)
        }
        return {
            ("ObjectAdded", "before"),
            ("ObjectAdded", "after"),
            ("ObjectDeleted", "before"),
        } <= names

    await wait_for(seen_all)
    seen = await events()
    assert any(isinstance(e, ListSynced) and e.count == 1 for e in seen)
    added = [e for e in seen if isinstance(e, ObjectAdded)]
    assert all(e.key == f"default/{object_of(e)['metadata']['name']}" for e in added)
    assert any(isinstance(e, ObjectDeleted) for e in seen)
    stopping.set()
    await asyncio.wait_for(task, 10)


async def test_binder_binds_idempotently_and_fences_stale_epochs(
    kube: KubeClient, bus: KafkaBus, kafka_bootstrap: str, broker_kind: BrokerKind, kafka_names: Any
) -> None:
    shell = make_shell("binder", kafka_bootstrap, broker_kind, kafka_names.prefix)
    created = await kube.create(POD, pod("p1"))
    uid = created["metadata"]["uid"]
    stopping = asyncio.Event()
    settings = BinderSettings(group=kafka_names.group("binder"))
    task = asyncio.create_task(
        run_binder(shell=shell, bus=bus, kube=kube, settings=settings, stopping=stopping)
    )
    t = shell.topics
    await bus.create_topics([*t.decisions(), t.results])
    await bus.create_topics([t.leader], partitions=1)
    for election in ("first", "second"):  # two leadership records: epochs 1 and 2
        await bus.produce(t.leader, election.encode(), key=b"leader")
    decisions = [
        PodBindDecided(key="default/p1", pod_uid=uid, node="node-0", epoch=2),
        PodBindDecided(key="default/p1", pod_uid=uid, node="node-0", epoch=2),  # duplicate
        PodBindDecided(key="default/p1", pod_uid=uid, node="node-1", epoch=2),  # conflicting
        PodBindDecided(key="default/p1", pod_uid=uid, node="node-1", epoch=1),  # stale leader
        PodBindDecided(key="default/p1", pod_uid=uid, node="node-1", epoch=10**12),  # forged
    ]
    for decision in decisions:
        await bus.produce(t.binds, encode(decision), key=decision.key.encode())

    async def results() -> list[Any]:
        snap = await bus.rebuild(topics=[t.results], decode=result_decoder.decode)
        return [r.value for r in snap.records]

    async def five() -> bool:
        return len(await results()) >= 5

    await wait_for(five, timeout=30)
    outcome = await results()
    assert [type(r) for r in outcome] == [
        PodBound,
        PodBound,
        PodBindFailed,
        DecisionDropped,
        DecisionDropped,
    ]
    assert [r.reason for r in outcome[3:]] == ["StaleEpoch", "UnknownEpoch"]
    failed = outcome[2]
    assert isinstance(failed, PodBindFailed)
    assert failed.reason == "AlreadyBound" and failed.bound_to == "node-0"
    bound = await kube.get(POD, "p1", "default")
    assert bound["spec"]["nodeName"] == "node-0"
    stopping.set()
    await asyncio.wait_for(task, 15)


async def test_watcher_relists_after_a_kubesim_restart(
    kubesim: KubeSim,
    kube: KubeClient,
    bus: KafkaBus,
    kafka_bootstrap: str,
    broker_kind: BrokerKind,
    kafka_names: Any,
) -> None:
    # The restarted server starts its resourceVersions again from the bottom: the watcher's
    # resume version is then "too large" (504), and it must re-list, not watch blind.
    shell = make_shell("watcher", kafka_bootstrap, broker_kind, kafka_names.prefix)
    for i in range(20):  # move the first server's version well past a fresh one's
        await kube.create(POD, pod(f"old-{i}"))
    stopping = asyncio.Event()
    settings = WatcherSettings(resources=("v1/Pod",), retry_backoff_max=0.5)
    task = asyncio.create_task(
        run_watcher(shell=shell, bus=bus, kube=kube, settings=settings, stopping=stopping)
    )
    topic = shell.topics.state("Pod")

    async def listed() -> bool:
        return shell.readiness.ready

    await wait_for(listed)
    port = int(kubesim.url.rsplit(":", 1)[1])
    await kubesim.stop()
    restarted = KubeSim(SimConfig(node_pools=(pool(1, cpu="4", memory="8Gi"),), port=port))
    await restarted.start()
    try:
        await kube.create(POD, pod("fresh"))

        async def names() -> set[tuple[str, str]]:
            snap = await bus.rebuild(topics=[topic], decode=state_decoder.decode)
            return {
                (type(r.value).__name__, object_of(r.value)["metadata"]["name"])
                for r in snap.records
                if isinstance(r.value, ObjectEvent)
            }

        async def caught_up() -> bool:
            seen = await names()
            return ("ObjectAdded", "fresh") in seen and ("ObjectDeleted", "old-0") in seen

        await wait_for(caught_up, timeout=30)
    finally:
        stopping.set()
        await asyncio.wait_for(task, 10)
        await restarted.stop()
