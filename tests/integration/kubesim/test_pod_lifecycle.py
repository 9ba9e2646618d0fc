"""The simulated kubelet: runs per annotations and restart policy, capacity, graceful delete,
finalizers, eviction and garbage collection of owned pods."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from tests.integration.kubesim.kubesim_helpers import binding, eventually, pod

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
NS = "lifecycle"


@pytest.fixture(scope="module", autouse=True)
async def namespace(api: client.ApiClient) -> None:
    await client.CoreV1Api(api).create_namespace({"metadata": {"name": NS}})


async def _run(core: client.CoreV1Api, body: dict[str, Any], node: str = "node-0") -> Any:
    name = body["metadata"]["name"]
    await core.create_namespaced_pod(NS, body)
    await core.create_namespaced_pod_binding(name, NS, binding(name, node), _preload_content=False)
    return await eventually(
        lambda: core.read_namespaced_pod(name, NS),
        lambda p: p.status.phase in ("Succeeded", "Failed"),
    )


@pytest.mark.parametrize(
    ("annotations", "policy", "phase", "exit_code", "restarts"),
    [
        ({}, "Never", "Succeeded", 0, 0),
        ({"sim.shoal.io/exit-code": "3"}, "Never", "Failed", 3, 0),
        ({"sim.shoal.io/fail-attempts": "2"}, "OnFailure", "Succeeded", 0, 2),
        ({"sim.shoal.io/fail-attempts": "1"}, "Never", "Failed", 1, 0),
    ],
    ids=["succeeds", "fails-with-code", "onfailure-restarts-then-succeeds", "never-no-restart"],
)
async def test_pod_runs_per_annotations(
    core: client.CoreV1Api,
    annotations: dict[str, str],
    policy: str,
    phase: str,
    exit_code: int,
    restarts: int,
) -> None:
    name = f"run-{len(annotations)}-{policy.lower()}-{phase.lower()}-{exit_code}"
    notes = {"sim.shoal.io/duration": "50ms", "sim.shoal.io/start-delay": "10ms", **annotations}
    done = await _run(core, pod(name, annotations=notes, restart_policy=policy))
    assert done.status.phase == phase
    status = done.status.container_statuses[0]
    assert status.state.terminated.exit_code == exit_code
    assert status.state.terminated.reason == ("Completed" if exit_code == 0 else "Error")
    assert status.restart_count == restarts
    assert done.status.pod_ip and done.status.host_ip and done.status.start_time
    assert {c.type for c in done.status.conditions} >= {
        "PodScheduled",
        "Initialized",
        "ContainersReady",
        "Ready",
    }


async def test_running_pod_reports_running_and_always_restarts(core: client.CoreV1Api) -> None:
    notes = {"sim.shoal.io/duration": "30ms", "sim.shoal.io/start-delay": "5ms"}
    await core.create_namespaced_pod(NS, pod("always", annotations=notes, restart_policy="Always"))
    await core.create_namespaced_pod_binding(
        "always", NS, binding("always", "node-1"), _preload_content=False
    )
    seen = await eventually(
        lambda: core.read_namespaced_pod("always", NS),
        lambda p: (
            bool(p.status.container_statuses) and p.status.container_statuses[0].restart_count >= 2
        ),
    )
    assert seen.status.phase == "Running"  # Always never completes
    assert seen.status.container_statuses[0].restart_count >= 2
    await core.delete_namespaced_pod("always", NS, grace_period_seconds=0)


@pytest.mark.parametrize(
    ("cpu", "extra_pods", "reason"),
    [("5", 0, "OutOfcpu"), ("100m", 5, "OutOfpods")],
    ids=["cpu", "pod-count"],
)
async def test_node_capacity_is_enforced(
    core: client.CoreV1Api, cpu: str, extra_pods: int, reason: str
) -> None:
    node = "node-2"
    fillers = [f"fill-{reason.lower()}-{i}" for i in range(extra_pods)]
    for name in fillers:  # nodes hold 5 pods in this suite
        await core.create_namespaced_pod(NS, pod(name, node=node))
    name = f"too-big-{reason.lower()}"
    rejected = await _run(core, pod(name, cpu=cpu), node=node)
    assert rejected.status.phase == "Failed"
    assert rejected.status.reason == reason
    assert "Node didn't have enough resource" in rejected.status.message
    for filler in fillers:
        await core.delete_namespaced_pod(filler, NS, grace_period_seconds=0)


async def test_graceful_delete_then_removal(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("graceful"))
    await core.create_namespaced_pod_binding(
        "graceful", NS, binding("graceful", "node-0"), _preload_content=False
    )
    await eventually(
        lambda: core.read_namespaced_pod("graceful", NS), lambda p: p.status.phase == "Running"
    )
    deleting = await core.delete_namespaced_pod("graceful", NS)
    assert deleting.metadata.deletion_timestamp is not None
    assert deleting.metadata.deletion_grace_period_seconds == 30
    names = await eventually(
        lambda: core.list_namespaced_pod(NS, field_selector="metadata.name=graceful"),
        lambda pods: not pods.items,
    )
    assert names.items == []  # the kubelet stopped it well before 30 s


async def test_unbound_pod_is_deleted_at_once(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("unbound"))
    await core.delete_namespaced_pod("unbound", NS)
    with pytest.raises(ApiException) as err:
        await core.read_namespaced_pod("unbound", NS)
    assert err.value.status == 404


async def test_finalizers_hold_the_object_until_removed(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("held", finalizers=["shoal.io/hold"]))
    await core.delete_namespaced_pod("held", NS)
    held = await core.read_namespaced_pod("held", NS)
    assert held.metadata.deletion_timestamp is not None
    await core.patch_namespaced_pod("held", NS, [{"op": "remove", "path": "/metadata/finalizers"}])
    with pytest.raises(ApiException) as err:
        await core.read_namespaced_pod("held", NS)
    assert err.value.status == 404


async def test_eviction_deletes_gracefully(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("evictme", node="node-1"))
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "evictme"}}
    await core.create_namespaced_pod_eviction("evictme", NS, eviction)
    gone = await eventually(
        lambda: core.list_namespaced_pod(NS, field_selector="metadata.name=evictme"),
        lambda pods: not pods.items,
    )
    assert gone.items == []


async def test_stopped_pod_ends_failed_and_waits_for_its_finalizer(
    core: client.CoreV1Api,
) -> None:
    # Since Kubernetes 1.27 the kubelet reports a deleted pod's terminal phase before it goes:
    # a Job's pod held by its tracking finalizer is Failed, not Running, while it waits.
    await core.create_namespaced_pod(NS, pod("stopped", finalizers=["shoal.io/hold"]))
    await core.create_namespaced_pod_binding(
        "stopped", NS, binding("stopped", "node-0"), _preload_content=False
    )
    await eventually(
        lambda: core.read_namespaced_pod("stopped", NS), lambda p: p.status.phase == "Running"
    )
    await core.delete_namespaced_pod("stopped", NS)
    held = await eventually(
        lambda: core.read_namespaced_pod("stopped", NS), lambda p: p.status.phase == "Failed"
    )
    assert held.metadata.deletion_timestamp is not None
    assert held.status.container_statuses[0].state.terminated.exit_code == 137
    await core.patch_namespaced_pod(
        "stopped", NS, [{"op": "remove", "path": "/metadata/finalizers"}]
    )
    with pytest.raises(ApiException) as err:
        await core.read_namespaced_pod("stopped", NS)
    assert err.value.status == 404


async def test_unscheduled_terminating_pod_is_marked_failed(core: client.CoreV1Api) -> None:
    # PodGC's gcUnscheduledTerminating: nothing else would ever end it.
    await core.create_namespaced_pod(NS, pod("nowhere", finalizers=["shoal.io/hold"]))
    await core.delete_namespaced_pod("nowhere", NS)
    failed = await eventually(
        lambda: core.read_namespaced_pod("nowhere", NS), lambda p: p.status.phase == "Failed"
    )
    assert failed.metadata.deletion_timestamp is not None
    await core.patch_namespaced_pod(
        "nowhere", NS, [{"op": "remove", "path": "/metadata/finalizers"}]
    )


async def test_eviction_marks_the_disruption(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("evicted", finalizers=["shoal.io/hold"]))
    await core.create_namespaced_pod_binding(
        "evicted", NS, binding("evicted", "node-1"), _preload_content=False
    )
    running = await eventually(
        lambda: core.read_namespaced_pod("evicted", NS), lambda p: p.status.phase == "Running"
    )
    eviction = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "evicted"},
        "deleteOptions": {"preconditions": {"uid": running.metadata.uid}},
    }
    await core.create_namespaced_pod_eviction("evicted", NS, eviction)
    held = await eventually(
        lambda: core.read_namespaced_pod("evicted", NS), lambda p: p.status.phase == "Failed"
    )
    target = [c for c in held.status.conditions if c.type == "DisruptionTarget"]
    assert [(c.status, c.reason, c.message) for c in target] == [
        ("True", "EvictionByEvictionAPI", "Eviction API: evicting")
    ]
    await core.patch_namespaced_pod(
        "evicted", NS, [{"op": "remove", "path": "/metadata/finalizers"}]
    )


async def test_eviction_checks_the_uid_precondition(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("other", node="node-1"))
    eviction = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "other"},
        "deleteOptions": {"preconditions": {"uid": "not-its-uid"}},
    }
    with pytest.raises(ApiException) as err:
        await core.create_namespaced_pod_eviction("other", NS, eviction)
    assert err.value.status == 409
    await core.delete_namespaced_pod("other", NS, grace_period_seconds=0)


@pytest.mark.parametrize(
    ("policy", "pods_remain"),
    [("Background", False), ("Foreground", False), ("Orphan", True)],
    ids=["background", "foreground", "orphan"],
)
async def test_owned_pods_follow_their_owner(
    core: client.CoreV1Api, batch: client.BatchV1Api, policy: str, pods_remain: bool
) -> None:
    job_name = f"owner-{policy.lower()}"
    job = await batch.create_namespaced_job(
        NS, {"metadata": {"name": job_name}, "spec": {"template": {"spec": pod("x")["spec"]}}}
    )
    owner = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": job_name,
        "uid": job.metadata.uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    for i in range(3):
        node = "node-0" if i == 0 else None  # one running pod: deleted gracefully
        await core.create_namespaced_pod(
            NS, pod(f"{job_name}-{i}", labels={"job": job_name}, owner=owner, node=node)
        )
    await batch.delete_namespaced_job(job_name, NS, propagation_policy=policy)
    remaining = await eventually(
        lambda: core.list_namespaced_pod(NS, label_selector=f"job={job_name}"),
        lambda pods: len(pods.items) == (3 if pods_remain else 0),
    )
    assert len(remaining.items) == (3 if pods_remain else 0)
    if pods_remain:
        assert all(not p.metadata.owner_references for p in remaining.items)
    jobs = await eventually(
        lambda: batch.list_namespaced_job(NS, field_selector=f"metadata.name={job_name}"),
        lambda found: not found.items,
    )
    assert jobs.items == []
