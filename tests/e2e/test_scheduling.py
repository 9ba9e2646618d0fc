"""Gang waiting, preemption, weighted fair share and HyperNodes through the whole system.

One Stack of 4 nodes with 4 CPUs each (16 CPUs). Its scheduler conf comes from the
``volcano-scheduler-configmap`` ConfigMap (the watcher mirrors ConfigMaps; the scheduler reads the
conf from the state topics) with the preempt and reclaim actions. Each test runs in a namespace
of its own and deletes it at the end, which frees the cluster for the next test.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.stack import Stack, StackConfig
from services.cli.submit import apply
from shared.kube import KubeClient
from shared.kube.resources import resource_for
from tests.e2e.e2e_cluster import (
    CONFIGMAP,
    NAMESPACE,
    POD,
    PRIORITYCLASS,
    QUEUE,
    VCJOB,
    Observer,
    eventually,
    queue_open,
    vcjob,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

Json = dict[str, Any]
CONF = """\
actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
  - name: pdb
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
  - name: network-topology-aware
"""


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(workdir=tmp_path_factory.mktemp("sched"), nodes=4, node_cpu="4")


@pytest.fixture(scope="module", autouse=True)
async def preempting_conf(stack: Stack, kube: KubeClient) -> None:
    """The conf as a user sets it: the ConfigMap, read by the scheduler within a cycle."""
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": "default"},
        "data": {"volcano-scheduler.conf": CONF},
    }
    await apply(kube, configmap)
    log = Path(stack.services["scheduler"].log_path)

    def conf_lines() -> str:
        return "".join(line for line in log.read_text().splitlines() if "conf loaded" in line)

    async def loaded() -> bool:
        return "preempt" in await asyncio.to_thread(conf_lines)

    await eventually(loaded, timeout=30, what="the scheduler to load the ConfigMap conf")
    assert CONFIGMAP.plural == "configmaps"


@pytest.fixture
async def cleanup(kube: KubeClient, namespace: str) -> AsyncIterator[str]:
    yield namespace
    await kube.delete(NAMESPACE, namespace)
    await eventually(lambda: _no_pods(kube, namespace), timeout=30, what="namespace cleanup")


async def _no_pods(kube: KubeClient, namespace: str) -> bool:
    pods, _ = await kube.list_all(POD, namespace=namespace)
    return not pods


async def running_pods(kube: KubeClient, namespace: str, job: str) -> list[Json]:
    """Pods of ``job`` (a job name or a prefix) that hold a node now (bound, not finished)."""
    pods, _ = await kube.list_all(POD, namespace=namespace)
    return [
        p
        for p in pods
        if p["metadata"].get("labels", {}).get("volcano.sh/job-name", "").startswith(job)
        and p["spec"].get("nodeName")
        and p.get("status", {}).get("phase") not in ("Succeeded", "Failed")
        and not p["metadata"].get("deletionTimestamp")
    ]


async def wait_bound(kube: KubeClient, namespace: str, job: str, count: int) -> None:
    async def bound() -> bool:
        return len(await running_pods(kube, namespace, job)) >= count

    await eventually(bound, timeout=60, what=f"{count} pods of {job} bound")


async def test_gang_larger_than_free_capacity_waits_then_runs_whole(
    kube: KubeClient, observer: Observer, cleanup: str
) -> None:
    ns = cleanup
    await kube.create(VCJOB, vcjob("filler", ns, replicas=12, duration="8s"))
    await wait_bound(kube, ns, "filler", 12)
    await kube.create(VCJOB, vcjob("gang", ns, replicas=6, duration="2s"))
    filler = await kube.get(VCJOB, "filler", ns)
    gang = await kube.get(VCJOB, "gang", ns)
    group = f"{ns}/gang-{gang['metadata']['uid']}"
    # While every filler pod still runs only 4 CPUs are free: no pod of the 6-pod gang may bind.
    checks = 0
    while all(p.phases[-1:] != ["Succeeded"] for p in observer.pods_of(ns, "filler") if p.phases):
        assert not [p.name for p in observer.pods_of(ns, "gang") if p.nodes], "bound too early"
        checks += 1
        await asyncio.sleep(0.2)
    assert checks >= 10, "the gang was observed waiting for at least 2 s"
    record = observer.podgroups[group]
    assert set(record.phases) <= {"Pending", "Inqueue", "Running", "Completed"}
    assert record.phases[0] in ("Pending", "Inqueue")
    reasons = [c for c in record.conditions if c.get("type") == "Unschedulable"]
    assert reasons, f"an Unschedulable condition on {group}: {record.conditions}"
    message = " ".join(str(c.get("message", "")) for c in reasons)
    assert "tasks in gang unschedulable" in message
    assert "cpu" in message.lower(), f"the condition names the short resource: {message}"

    async def whole_gang_bound() -> bool:
        return sum(1 for p in observer.pods_of(ns, "gang") if p.nodes) == 6

    await eventually(whole_gang_bound, timeout=60, what="the gang to be bound whole")
    times = [p.bound_at for p in observer.pods_of(ns, "gang") if p.bound_at is not None]
    assert max(times) - min(times) < 1.5, "the gang was placed at once, not piecemeal"

    async def group_running() -> bool:  # its status is written after the binds
        return "Running" in observer.podgroups[group].phases

    await eventually(group_running, timeout=30, what="the gang's PodGroup Running")
    assert filler["metadata"]["uid"] != gang["metadata"]["uid"]


async def _low_and_high_priority(kube: KubeClient) -> None:
    for name, value in (("e2e-low", 10), ("e2e-high", 1000)):
        priority_class = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        await apply(kube, priority_class)


async def test_higher_priority_job_preempts_lower_priority_pods(
    kube: KubeClient, observer: Observer, cleanup: str
) -> None:
    ns = cleanup
    await _low_and_high_priority(kube)
    assert PRIORITYCLASS.namespaced is False
    low = vcjob("low", ns, replicas=16, min_available=1, duration=None, priority_class="e2e-low")
    await kube.create(VCJOB, low)
    await wait_bound(kube, ns, "low", 16)
    low_uids = {p.uid for p in observer.pods_of(ns, "low")}
    high = vcjob("high", ns, replicas=4, duration=None, priority_class="e2e-high")
    started = time.monotonic()
    await kube.create(VCJOB, high)
    await wait_bound(kube, ns, "high", 4)
    evicted = [p for p in observer.pods_of(ns, "low") if p.uid in low_uids and p.deleted]
    print(
        f"preemption: {len(evicted)} low-priority pods evicted, high job bound after "
        f"{time.monotonic() - started:.1f}s"
    )
    assert len(evicted) >= 4, "the high-priority gang needed 4 CPUs taken from low pods"
    assert len(await running_pods(kube, ns, "low")) <= 12
    assert not observer.rebound()


@pytest.mark.control_plane(
    "kubesim",
    reason="open: on the real plane the victims' replacements take the freed room before the "
    "gang and are preempted in turn (a ping-pong); docs/compatibility.md",
)
async def test_a_disruption_budget_limits_preemption(
    kube: KubeClient, observer: Observer, cleanup: str
) -> None:
    """The pdb plugin with the budget kubesim's disruption controller keeps: a budget that
    allows no disruption stops the preemption; once it allows some, the gang preempts. (As
    upstream, each victim search reads the budget's status afresh: evictions decided earlier in
    the same session are not yet in it, so a budget is a per-node limit within one session.)"""
    ns = cleanup
    await _low_and_high_priority(kube)
    budget: Json = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "low", "namespace": ns},
        "spec": {"minAvailable": 16, "selector": {"matchLabels": {"volcano.sh/job-name": "low"}}},
    }
    await apply(kube, budget)
    low = vcjob("low", ns, replicas=16, min_available=1, duration=None, priority_class="e2e-low")
    await kube.create(VCJOB, low)
    await wait_bound(kube, ns, "low", 16)
    pdb = resource_for("policy/v1", "PodDisruptionBudget")

    async def allows(count: int) -> bool:
        status = (await kube.get(pdb, "low", ns)).get("status") or {}
        return status.get("disruptionsAllowed") == count

    await eventually(lambda: allows(0), timeout=20, what="the budget to allow no disruption")
    low_uids = {p.uid for p in observer.pods_of(ns, "low")}
    await kube.create(
        VCJOB, vcjob("high", ns, replicas=4, duration=None, priority_class="e2e-high")
    )
    await asyncio.sleep(5)  # several cycles with preempt
    evicted = [p for p in observer.pods_of(ns, "low") if p.uid in low_uids and p.deleted]
    assert not evicted, f"no disruption allowed: none evicted, got {len(evicted)}"
    assert not await running_pods(kube, ns, "high")
    await apply(
        kube, {**budget, "spec": {"minAvailable": 12, "selector": budget["spec"]["selector"]}}
    )
    await wait_bound(kube, ns, "high", 4)
    evicted = [p for p in observer.pods_of(ns, "low") if p.uid in low_uids and p.deleted]
    assert len(evicted) == 4, f"the budget allows 4 evictions: {len(evicted)}"
    assert not observer.rebound()


async def test_two_queues_share_the_cluster_by_weight(
    kube: KubeClient, observer: Observer, cleanup: str
) -> None:
    ns = cleanup
    for name, weight in (("e2e-heavy", 3), ("e2e-light", 1)):
        queue = {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": {"name": name},
            "spec": {"weight": weight, "reclaimable": True},
        }
        await apply(kube, queue)
        await queue_open(kube, name)
    assert QUEUE.namespaced is False
    # The light queue first takes the whole cluster; reclaim must give the heavy queue its share.
    # As in Volcano, gang protects a job at its minAvailable from reclaim and reclaim serves only
    # starving jobs: so one elastic light job (minAvailable 1) and sixteen one-pod heavy jobs.
    light = vcjob("light-0", ns, replicas=16, min_available=1, duration=None, queue="e2e-light")
    await kube.create(VCJOB, light)
    await wait_bound(kube, ns, "light-", 16)
    for i in range(16):
        heavy = vcjob(f"heavy-{i}", ns, replicas=1, duration=None, queue="e2e-heavy")
        await kube.create(VCJOB, heavy)
    shares: dict[str, int] = {}

    async def settled() -> bool:
        for job in ("heavy", "light"):
            shares[job] = len(await running_pods(kube, ns, f"{job}-"))
        return shares["heavy"] + shares["light"] >= 15 and shares["heavy"] >= 11

    try:
        await eventually(settled, timeout=60, what="the heavy queue to reclaim its share")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: running pods {shares}") from None
    await asyncio.sleep(2)  # a settled share stays put
    for job in ("heavy", "light"):
        shares[job] = len(await running_pods(kube, ns, f"{job}-"))
    ratio = shares["heavy"] / max(shares["light"], 1)
    print(f"weighted queues 3:1 → allocated heavy={shares['heavy']} light={shares['light']}")
    assert shares["light"] >= 3, "the light queue keeps its deserved share"
    assert 2.5 <= ratio <= 4.5, shares


async def test_a_hard_network_topology_keeps_a_job_in_one_hyper_node(
    kube: KubeClient, cleanup: str
) -> None:
    """Two racks of two nodes (HyperNodes of tier 1 under a spine of tier 2): a Volcano Job
    with ``networkTopology`` hard at tier 1 runs within one rack; one that no rack holds waits,
    although the cluster has room for it."""
    ns = cleanup
    nodes, _ = await kube.list_all(resource_for("v1", "Node"))
    names = sorted(n["metadata"]["name"] for n in nodes)
    racks = {"e2e-rack-a": names[:2], "e2e-rack-b": names[2:4]}
    hyper_nodes: list[Json] = [
        {
            "apiVersion": "topology.volcano.sh/v1alpha1",
            "kind": "HyperNode",
            "metadata": {"name": rack},
            "spec": {
                "tier": 1,
                "members": [
                    {"type": "Node", "selector": {"exactMatch": {"name": n}}} for n in members
                ],
            },
        }
        for rack, members in racks.items()
    ]
    spine = [{"type": "HyperNode", "selector": {"exactMatch": {"name": r}}} for r in racks]
    hyper_nodes.append(
        {
            "apiVersion": "topology.volcano.sh/v1alpha1",
            "kind": "HyperNode",
            "metadata": {"name": "e2e-spine"},
            "spec": {"tier": 2, "members": spine},
        }
    )
    hyper_node = resource_for("topology.volcano.sh/v1alpha1", "HyperNode")
    for body in hyper_nodes:
        await apply(kube, body)
    try:
        topology = {"mode": "hard", "highestTierAllowed": 1}
        too_big = vcjob("wide", ns, replicas=3, cpu="3", duration=None)
        too_big["spec"]["networkTopology"] = topology
        await kube.create(VCJOB, too_big)
        await asyncio.sleep(3)  # several cycles: the 3-pod job fits no rack (the cluster: yes)
        assert not await running_pods(kube, ns, "wide")
        pair = vcjob("pair", ns, replicas=2, cpu="3", duration=None)
        pair["spec"]["networkTopology"] = topology
        await kube.create(VCJOB, pair)
        await wait_bound(kube, ns, "pair", 2)
        placed = {p["spec"]["nodeName"] for p in await running_pods(kube, ns, "pair")}
        assert any(placed <= set(members) for members in racks.values()), placed
    finally:
        for body in hyper_nodes:
            await kube.delete(hyper_node, body["metadata"]["name"])
