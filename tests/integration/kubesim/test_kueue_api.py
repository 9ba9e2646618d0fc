"""kueue.x-k8s.io v1beta1 and v1beta2 against one storage: what is written in one version is
read, watched and status-updated in the other, converted as Kueue's webhook converts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from services.kubesim.app import KubeSim

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
KUEUE = "/apis/kueue.x-k8s.io"
Obj = dict[str, Any]


async def call(
    sim: KubeSim, method: str, path: str, body: Obj | None = None, **headers: str
) -> tuple[int, Obj, dict[str, str]]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, sim.url + path, json=body, headers=headers) as response,
    ):
        return response.status, await response.json(), dict(response.headers)


def _cluster_queue_v1beta1(name: str) -> Obj:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "cohort": "team",
            "admissionChecks": ["prov"],
            "flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"},
            "resourceGroups": [],
        },
    }


async def test_v1beta1_write_reads_as_v1beta2_and_back(sim: KubeSim) -> None:
    code, created, headers = await call(
        sim, "POST", f"{KUEUE}/v1beta1/clusterqueues", _cluster_queue_v1beta1("cq-a")
    )
    assert code == 201, created
    assert created["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert created["spec"]["cohort"] == "team"
    assert headers["Warning"] == '299 - "This version is deprecated. Use v1beta2 instead."'
    _, v2, headers = await call(sim, "GET", f"{KUEUE}/v1beta2/clusterqueues/cq-a")
    assert "Warning" not in headers
    assert v2["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert v2["spec"]["cohortName"] == "team" and "cohort" not in v2["spec"]
    assert v2["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": "prov"}]}
    assert v2["spec"]["flavorFungibility"] == {
        "whenCanBorrow": "MayStopSearch",
        "whenCanPreempt": "MayStopSearch",
    }
    _, back, _ = await call(sim, "GET", f"{KUEUE}/v1beta1/clusterqueues/cq-a")
    assert back["spec"]["cohort"] == "team" and "cohortName" not in back["spec"]


async def test_status_written_in_v1beta2_is_seen_in_v1beta1(sim: KubeSim) -> None:
    lq = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "lq-a", "namespace": "default"},
        "spec": {"clusterQueue": "cq-a"},
    }
    code, created, _ = await call(
        sim, "POST", f"{KUEUE}/v1beta2/namespaces/default/localqueues", lq
    )
    assert code == 201, created
    status = {"pendingWorkloads": 2, "flavorsUsage": [{"name": "f", "resources": []}]}
    code, patched, _ = await call(
        sim,
        "PATCH",
        f"{KUEUE}/v1beta2/namespaces/default/localqueues/lq-a/status",
        {"status": status},
        **{"Content-Type": "application/merge-patch+json"},
    )
    assert code == 200, patched
    _, v1, _ = await call(sim, "GET", f"{KUEUE}/v1beta1/namespaces/default/localqueues/lq-a")
    assert v1["status"] == {"pendingWorkloads": 2, "flavorUsage": [{"name": "f", "resources": []}]}


async def test_workload_priority_class_reference_round_trips(sim: KubeSim) -> None:
    wl = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "wl-a", "namespace": "default"},
        "spec": {
            "queueName": "lq-a",
            "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
            "priorityClassName": "high",
            "priority": 100,
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": []}}}],
        },
    }
    code, created, _ = await call(sim, "POST", f"{KUEUE}/v1beta1/namespaces/default/workloads", wl)
    assert code == 201, created
    _, v2, _ = await call(sim, "GET", f"{KUEUE}/v1beta2/namespaces/default/workloads/wl-a")
    assert v2["spec"]["priorityClassRef"] == {
        "group": "kueue.x-k8s.io",
        "kind": "WorkloadPriorityClass",
        "name": "high",
    }
    assert "priorityClassName" not in v2["spec"]


async def test_watch_in_the_old_version_sees_converted_objects(sim: KubeSim) -> None:
    url = f"{sim.url}{KUEUE}/v1beta1/clusterqueues?watch=1&timeoutSeconds=5"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        await call(
            sim,
            "POST",
            f"{KUEUE}/v1beta2/clusterqueues",
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "ClusterQueue",
                "metadata": {"name": "cq-watched"},
                "spec": {"cohortName": "other", "resourceGroups": []},
            },
        )
        while True:
            line = await asyncio.wait_for(response.content.readline(), 5)
            event = json.loads(line)
            if event["object"]["metadata"]["name"] == "cq-watched":
                break
    assert event["object"]["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert event["object"]["spec"]["cohort"] == "other"


@pytest.mark.parametrize(
    ("plural", "versions", "preferred"),
    [
        ("resourceflavors", ["v1beta2", "v1beta1"], "v1beta2"),
        ("cohorts", ["v1beta2", "v1beta1"], "v1beta2"),
        ("workloadpriorityclasses", ["v1beta2", "v1beta1"], "v1beta2"),
    ],
    ids=["resourceflavors", "cohorts", "workloadpriorityclasses"],
)
async def test_discovery_serves_both_versions_preferring_v1beta2(
    sim: KubeSim, plural: str, versions: list[str], preferred: str
) -> None:
    _, group, _ = await call(sim, "GET", KUEUE)
    assert [v["version"] for v in group["versions"]] == versions
    assert group["preferredVersion"]["version"] == preferred
    for version in versions:
        _, listing, _ = await call(sim, "GET", f"{KUEUE}/{version}")
        assert plural in [r["name"] for r in listing["resources"]]
