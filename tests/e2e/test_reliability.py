"""Crashes, API faults and poison records: every job still completes, nothing happens twice.

One Stack (4 nodes with 8 CPUs each). Each test submits a batch of Volcano Jobs and an Indexed
batch/v1 Job into its own namespace, disturbs the system while the batch runs, and then checks
from the Observer's record that

- every job completed (no decision or creation was lost),
- no pod was ever seen on two nodes (no pod bound twice),
- no job got more pods than it asked for (no duplicate creations).

The counts are printed at the end of the module (``-s``) and kept in ``TALLY``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from services.cli.progress import job_phase
from services.cli.stack import SERVICES, Stack, StackConfig
from shared.bus.delivery import HEADER_TOPIC
from shared.bus.kafka import KafkaBus
from shared.config import KafkaSettings
from shared.kube import KubeClient
from shared.topics import Topics
from tests.e2e.e2e_cluster import (
    BATCHJOB,
    VCJOB,
    Observer,
    eventually,
    index_duplicates,
    indexed_job,
    vcjob,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

Json = dict[str, Any]
VC_JOBS, VC_PODS, INDEXED_COMPLETIONS = 6, 3, 4
FAULT_WINDOW = 6.0  # seconds the API server misbehaves while a batch runs
POISON = b"\xff\xfe not an event \x00"
TALLY = {"jobs": 0, "pods": 0, "faults": 0, "duplicates": 0, "rebound": 0, "lost": 0}


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(workdir=tmp_path_factory.mktemp("reliability"), nodes=4, node_cpu="8")


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    print(
        f"\nreliability: {TALLY['jobs']} jobs ({TALLY['pods']} pods) run, "
        f"{TALLY['faults']} faults injected, {TALLY['duplicates']} duplicate pods, "
        f"{TALLY['rebound']} pods bound twice, {TALLY['lost']} jobs lost"
    )


async def submit_batch(kube: KubeClient, ns: str, tag: str) -> None:
    for i in range(VC_JOBS):
        await kube.create(VCJOB, vcjob(f"{tag}-{i}", ns, replicas=VC_PODS, duration="1500ms"))
    job = indexed_job(f"{tag}-indexed", ns, completions=INDEXED_COMPLETIONS, parallelism=2)
    await kube.create(BATCHJOB, job)


async def check_batch(kube: KubeClient, observer: Observer, ns: str, tag: str) -> None:
    """Wait for every job of the batch to finish, then count lost, duplicate, rebound pods."""
    names = [f"{tag}-{i}" for i in range(VC_JOBS)]
    phases: dict[str, str] = {}

    async def finished() -> bool:
        for name in names:
            phases[name] = job_phase(await kube.get(VCJOB, name, ns))
        phases[f"{tag}-indexed"] = job_phase(await kube.get(BATCHJOB, f"{tag}-indexed", ns))
        return all(p in ("Completed", "Complete", "Failed", "Aborted") for p in phases.values())

    try:
        await eventually(finished, timeout=120, what=f"batch {tag} to finish")
    except AssertionError:
        stuck = {n: p for n, p in phases.items() if p not in ("Completed", "Complete")}
        seen = {
            n: [(p.name, p.nodes, p.phases, p.deleted) for p in observer.pods_of(ns, n)]
            for n in stuck
        }
        groups = {
            k: (g.phases, g.conditions[-1:]) for k, g in observer.podgroups.items() if ns in k
        }
        raise AssertionError(
            f"batch {tag} stuck: {stuck}; pods {seen}; podgroups {groups}"
        ) from None
    finally:
        lost = [n for n, p in phases.items() if p not in ("Completed", "Complete")]
        TALLY["lost"] += len(lost) if phases else VC_JOBS + 1
    TALLY["jobs"] += len(phases)
    duplicates = []
    for name in names:
        pods = observer.pods_of(ns, name)
        TALLY["pods"] += len(pods)
        if len(pods) != VC_PODS:
            duplicates.append(f"{name}: {sorted(p.name for p in pods)}")
    indexed = observer.pods_of(ns, f"{tag}-indexed")
    TALLY["pods"] += len(indexed)
    twice = index_duplicates(indexed)
    TALLY["duplicates"] += len(duplicates) + sum(len(v) - 1 for v in twice.values())
    rebound = [f"{p.name}: {p.nodes}" for p in observer.rebound() if p.namespace == ns]
    TALLY["rebound"] += len(rebound)
    assert not lost, f"jobs that did not complete: {lost} ({phases})"
    assert not duplicates, f"jobs with more pods than asked for: {duplicates}"
    assert not rebound, f"pods bound to more than one node: {rebound}"
    assert not twice, f"{tag}-indexed: an index got a second pod: {twice}"
    assert len(indexed) == INDEXED_COMPLETIONS


@pytest.mark.parametrize("service", SERVICES, ids=SERVICES)
async def test_killed_service_restarts_and_loses_nothing(
    stack: Stack, kube: KubeClient, observer: Observer, namespace: str, service: str
) -> None:
    await submit_batch(kube, namespace, "kill")
    await asyncio.sleep(0.8)  # mid-run: pods are being created and bound
    stack.kill(service)
    TALLY["faults"] += 1
    await asyncio.sleep(1.0)
    await stack.restart(service)
    await check_batch(kube, observer, namespace, "kill")


async def sim_admin(stack: Stack, method: str, path: str, body: Json | None = None) -> None:
    """kubesim's admin endpoints (not part of the Kubernetes API)."""
    url = f"{stack.kubesim_url}{path}"
    async with aiohttp.ClientSession() as session, session.request(method, url, json=body) as r:
        assert r.status < 300, await r.text()


def injected_faults(stack: Stack) -> int:
    """Injected failures the services met (each is logged with kubesim's message)."""
    logs = Path(stack.workdir) / "logs"
    return sum(
        (logs / f"{name}.log").read_text(errors="replace").count("injected fault")
        for name in SERVICES
    )


@pytest.mark.control_plane("kubesim", reason="faults are injected by kubesim's /_sim/faults")
async def test_api_faults_are_survived(
    stack: Stack, kube: KubeClient, observer: Observer, namespace: str
) -> None:
    faults = {
        "rules": [
            {"resource": "pods/binding", "verb": "create", "rate": 0.3, "code": 500},
            {"resource": "pods", "verb": "create", "rate": 0.2, "code": 500, "latency": 0.05},
            {"resource": "podgroups", "verb": "*", "rate": 0.1, "code": 503},
        ],
        "watch": {"dropAfter": 3.0, "goneRate": 0.3},
        "seed": 11,
    }
    before = await asyncio.to_thread(injected_faults, stack)
    await sim_admin(stack, "POST", "/_sim/faults", faults)
    try:
        await submit_batch(kube, namespace, "faulty")
        await asyncio.sleep(1.0)
        await sim_admin(stack, "POST", "/_sim/compact?resource=pods")  # forced 410s
        await asyncio.sleep(FAULT_WINDOW - 1.0)
    finally:
        await sim_admin(stack, "DELETE", "/_sim/faults")
    # Recovery: once the API server is healthy again everything completes. (Under faults that
    # never stop, the binder retries a whole batch until every call of it succeeds at once.)
    await check_batch(kube, observer, namespace, "faulty")
    seen = await asyncio.to_thread(injected_faults, stack) - before
    TALLY["faults"] += seen + 1  # + the forced compaction
    print(f"API faults met by the services: {seen}")
    assert seen > 0, "the faults were injected and met"


def consumed_topics(topics: Topics) -> list[str]:
    """Every topic some service consumes (Kueue objects have no consumer in this stack)."""
    state = [t for t in topics.all_state() if t != topics.state("Workload")]
    return [*state, *topics.decisions(), topics.results]


async def test_poison_records_are_dead_lettered_and_processing_continues(
    stack: Stack, kube: KubeClient, observer: Observer, namespace: str
) -> None:
    topics = Topics(prefix=stack.config.topic_prefix)
    settings = KafkaSettings(
        bootstrap=stack.bootstrap, broker=stack.broker_kind, topic_prefix=topics.prefix
    )
    poisoned = consumed_topics(topics)
    async with KafkaBus(settings=settings) as bus:
        for topic in poisoned:
            await bus.produce(topic, POISON, key=f"{namespace}/poison".encode())
        TALLY["faults"] += len(poisoned)
        await submit_batch(kube, namespace, "after-poison")
        await check_batch(kube, observer, namespace, "after-poison")
        lettered: dict[str, int] = {}

        async def all_dead_lettered() -> bool:
            snapshot = await bus.rebuild(topics=[topics.deadletter], decode=bytes)
            lettered.clear()
            for record in snapshot.records:
                headers = dict(record.headers)
                if record.value == POISON and HEADER_TOPIC in headers:
                    topic = headers[HEADER_TOPIC].decode()
                    lettered[topic] = lettered.get(topic, 0) + 1
            return set(poisoned) <= set(lettered)

        with contextlib.suppress(AssertionError):
            await eventually(all_dead_lettered, timeout=20, what="dead letters")
    missing = sorted(set(poisoned) - set(lettered))
    print(f"dead-lettered poison records per topic: {lettered}")
    assert not missing, f"poison records not dead-lettered from: {missing}"
    assert all(s.alive() for s in stack.services.values()), "no service died of the poison"
