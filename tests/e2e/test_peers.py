"""The peers on the real control plane, with none of Shoal's services running: Volcano
(vc-controller-manager and vc-scheduler) and Kueue's manager each do their own work on kwok's
nodes, with their own admission (services.cli.controlplane.peers, docs/peers.md). This is the
baseline Shoal is compared with; kube-scheduler binding plain pods is shown by
test_real_control_plane.py.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.cli.controlplane.peers import KUEUE_PART, VOLCANO_PARTS, Peers
from services.cli.controlplane.real import RealConfig, RealControlPlane
from services.cli.processes import die_with_parent
from shared.kube import KubeClient, resource_for
from tests.e2e.conftest import require_real
from tests.e2e.e2e_cluster import (
    BATCHJOB,
    VCJOB,
    Observer,
    container,
    eventually,
    process_alive,
    vcjob,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

Json = dict[str, Any]
# Stored as v1beta2: every read and write of these goes through Kueue's conversion webhook.
KUEUE = "kueue.x-k8s.io/v1beta1"
WORKLOAD = resource_for(KUEUE, "Workload")
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


@pytest.fixture(scope="module")
async def peers(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Peers]:
    require_real()
    main = threading.current_thread() is threading.main_thread()
    plane = RealControlPlane(
        RealConfig(
            workdir=tmp_path_factory.mktemp("peers"),
            nodes=4,
            node_cpu="8",
            etcd_fsync=False,
            builtin_job_controller=True,  # Kueue's batch/job integration suspends; it runs Jobs
            kafka=False,
            shoal_admission=False,
            preexec=die_with_parent() if main else None,
        )
    )
    running = Peers(plane)
    try:
        await plane.start(timeout=120)
        await running.start_volcano()
        await running.start_kueue()
        yield running
    finally:
        codes = running.stop(grace=10) | plane.stop(grace=10)
        print(f"peers stopped: {codes}; logs in {Path(plane.config.workdir) / 'logs'}")


# conftest's ``observer`` and ``namespace`` use this client, on the peers' plane.
@pytest.fixture(scope="module")
async def kube(peers: Peers) -> AsyncIterator[KubeClient]:
    client = await KubeClient.connect(str(peers.plane.kubeconfig))
    try:
        yield client
    finally:
        await client.close()


async def test_volcano_runs_a_volcano_job_on_kwok_nodes(
    kube: KubeClient, observer: Observer, namespace: str
) -> None:
    """vc-controller-manager makes the PodGroup and the pods, vc-scheduler binds the gang (the
    pods name ``volcano``: kube-scheduler leaves them), kwok runs them, the Job completes (and
    Volcano deletes its PodGroup: the observer's record shows what it was)."""
    job = await kube.create(VCJOB, vcjob("gang", namespace, replicas=3, duration="2s"))
    status: Json = {}

    async def completed() -> bool:
        nonlocal status
        status = (await kube.get(VCJOB, "gang", namespace)).get("status") or {}
        return bool((status.get("state") or {}).get("phase") == "Completed")

    await eventually(completed, timeout=45, what="Volcano Job gang Completed")
    went = [c.get("status") for c in status.get("conditions") or []]
    assert "Running" in went, went
    podgroups = [r for k, r in observer.podgroups.items() if k.startswith(f"{namespace}/")]
    assert [r.key for r in podgroups] == [f"{namespace}/gang-{job['metadata']['uid']}"]
    podgroup = podgroups[0]
    assert "Running" in podgroup.phases, podgroup.phases
    assert podgroup.last["spec"]["minMember"] == 3
    assert podgroup.last["spec"]["queue"] == "default"
    assert podgroup.last["metadata"]["ownerReferences"][0]["uid"] == job["metadata"]["uid"]
    pods = observer.pods_of(namespace, "gang")
    assert sorted(p.name for p in pods) == [f"gang-worker-{i}" for i in range(3)]
    for pod in pods:
        assert pod.last["spec"]["schedulerName"] == "volcano"
        assert pod.nodes and pod.nodes[0].startswith("node-"), pod.nodes
        assert "Succeeded" in pod.phases, pod.phases
    assert not observer.rebound()


def _kueue_objects(namespace: str, cpu: int) -> list[Json]:
    """A ResourceFlavor, a ClusterQueue of ``cpu`` CPUs for every namespace, and a
    LocalQueue in ``namespace``."""
    quota = [{"name": "cpu", "nominalQuota": cpu}, {"name": "memory", "nominalQuota": "64Gi"}]
    return [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": namespace}},
        {
            "apiVersion": KUEUE,
            "kind": "ClusterQueue",
            "metadata": {"name": namespace},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [{"name": namespace, "resources": quota}],
                    }
                ],
            },
        },
        {
            "apiVersion": KUEUE,
            "kind": "LocalQueue",
            "metadata": {"name": "lq", "namespace": namespace},
            "spec": {"clusterQueue": namespace},
        },
    ]


def _queued_job(name: str, namespace: str, *, parallelism: int, duration: str) -> Json:
    """A batch/v1 Job for LocalQueue ``lq``, created without ``suspend``: Kueue's webhook
    sets it."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": {QUEUE_LABEL: "lq"}},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "template": {
                "metadata": {
                    "annotations": {
                        "sim.shoal.io/start-delay": "50ms",
                        "sim.shoal.io/duration": duration,
                    }
                },
                "spec": {"restartPolicy": "Never", "containers": [container("work", "1")]},
            },
        },
    }


def _condition(obj: Json, kind: str) -> Json:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return {}


async def _workload_of(kube: KubeClient, job: Json) -> Json:
    """The Workload Kueue's job reconciler made for ``job`` (owned by it), once it exists."""
    found: Json = {}
    namespace, uid = job["metadata"]["namespace"], job["metadata"]["uid"]

    async def made() -> bool:
        nonlocal found
        items, _ = await kube.list_all(WORKLOAD, namespace=namespace)
        owned = [w for w in items if uid in {r["uid"] for r in w["metadata"]["ownerReferences"]}]
        found = owned[0] if owned else {}
        return bool(owned)

    await eventually(made, timeout=20, what=f"the Workload of Job {job['metadata']['name']}")
    return found


async def test_kueue_suspends_admits_by_quota_and_holds_the_job_over_it(
    peers: Peers, kube: KubeClient, observer: Observer, namespace: str
) -> None:
    """Kueue's webhook stores a queued Job suspended; its manager admits the Workload within
    the ClusterQueue's 4 CPUs and unsuspends the Job, whose pods kube-controller-manager makes
    and kube-scheduler binds; a second Job needing 3 more CPUs waits, suspended, until the
    first finishes and frees its quota."""
    await peers.plane.apply(_kueue_objects(namespace, cpu=4))
    first = await kube.create(
        BATCHJOB, _queued_job("first", namespace, parallelism=2, duration="4s")
    )
    assert first["spec"]["suspend"] is True, "Kueue's webhook did not suspend the queued Job"
    first_workload = await _workload_of(kube, first)

    async def admitted(workload: Json) -> bool:
        name = workload["metadata"]["name"]
        current = await kube.get(WORKLOAD, name, namespace)
        return _condition(current, "Admitted").get("status") == "True"

    await eventually(lambda: admitted(first_workload), timeout=20, what="first's Workload Admitted")
    second = await kube.create(
        BATCHJOB, _queued_job("second", namespace, parallelism=3, duration="1s")
    )
    second_workload = await _workload_of(kube, second)

    async def pending() -> bool:
        current = await kube.get(WORKLOAD, second_workload["metadata"]["name"], namespace)
        reserved = _condition(current, "QuotaReserved")
        return reserved.get("status") == "False" and reserved.get("reason") == "Pending"

    await eventually(pending, timeout=20, what="second's Workload Pending for quota")
    held = await kube.get(BATCHJOB, "second", namespace)
    assert held["spec"]["suspend"] is True
    assert not observer.pods_of(namespace, "second")
    running = (await kube.get(BATCHJOB, "first", namespace))["spec"]
    assert running["suspend"] is False

    await eventually(lambda: admitted(second_workload), timeout=30, what="second admitted")
    # Its quota came back when the first finished: both pods ran on kwok's nodes.
    done = await kube.get(WORKLOAD, first_workload["metadata"]["name"], namespace)
    assert _condition(done, "Finished").get("status") == "True", done.get("status")
    first_pods = observer.pods_of(namespace, "first")
    assert len(first_pods) == 2
    assert all(p.nodes and "Succeeded" in p.phases for p in first_pods), first_pods


async def test_stopping_the_peers_leaves_none_running(peers: Peers) -> None:
    """Last in the module: it stops the peers the tests above used."""
    pids = {name: peers.plane.processes[name].pid for name in (*VOLCANO_PARTS, KUEUE_PART)}
    assert all(pid is not None and process_alive(pid) for pid in pids.values()), pids
    codes = peers.stop(grace=10)
    assert set(codes) == set(pids)
    assert not [name for name, pid in pids.items() if pid is not None and process_alive(pid)]
    assert not set(pids) & set(peers.plane.processes)
