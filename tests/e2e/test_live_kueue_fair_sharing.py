"""Kueue fair sharing through the whole system, switched on by a Kueue Configuration file.

The scheduler starts with ``SHOAL_SCHEDULER_KUEUE_CONFIG`` naming a v1beta2 Configuration
with ``fairSharing`` (Kueue's own format). A cohort with an explicit Cohort object holds a
lender of 8 idle CPU and two ClusterQueues of no quota of their own that may reclaim: team A
borrows all 8, then team B's Jobs arrive. Classical preemption would never let B reclaim
quota it does not own; fair sharing evicts A's Workloads until the shares are equal
(``LessThanOrEqualToFinalShare``, then ``LessThanInitialShare``), and the queues' status says
so: 4 reserving each, ``fairSharing.weightedShare`` 500 each (4 of the 8 lendable CPU), the
root Cohort 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from services.cli.stack import StackConfig
from shared.kube import KubeClient
from shared.kube.resources import resource_for
from tests.e2e.e2e_cluster import BATCHJOB, POD, eventually

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]
KUEUE = "kueue.x-k8s.io/v1beta1"
CLUSTER_QUEUE = resource_for(KUEUE, "ClusterQueue")
LOCAL_QUEUE = resource_for(KUEUE, "LocalQueue")
COHORT = resource_for(KUEUE, "Cohort")
FLAVOR = resource_for(KUEUE, "ResourceFlavor")
CONFIGURATION: Json = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "namespace": "kueue-system",
    "fairSharing": {
        "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    },
}


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    workdir = tmp_path_factory.mktemp("stack")
    config = Path(workdir) / "controller_manager_config.yaml"
    config.write_text(yaml.safe_dump(CONFIGURATION))
    return StackConfig(
        workdir=workdir,
        nodes=4,
        node_cpu="8",
        env={"SHOAL_SCHEDULER_KUEUE_CONFIG": str(config)},
    )


def _kueue(kind: str, name: str, spec: Json, namespace: str | None = None) -> Json:
    meta: Json = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": KUEUE, "kind": kind, "metadata": meta, "spec": spec}


def _queue(name: str, cohort: str, cpu: int) -> Json:
    flavors = [{"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": cpu}]}]
    return _kueue(
        "ClusterQueue",
        name,
        {
            "cohort": cohort,
            "namespaceSelector": {},
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "Never"},
            "resourceGroups": [{"coveredResources": ["cpu"], "flavors": flavors}],
        },
    )


def _job(name: str, namespace: str, queue: str) -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kueue.x-k8s.io/queue-name": queue},
        },
        "spec": {
            "suspend": True,  # as Kueue's webhook would create it (only kubesim plays it)
            "parallelism": 1,
            "completions": 1,
            "template": {
                "metadata": {"annotations": {"sim.shoal.io/duration": "600s"}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
                    ],
                },
            },
        },
    }


def _running(pods: list[Json], prefix: str) -> int:
    return sum(
        1
        for pod in pods
        if (pod.get("spec") or {}).get("nodeName")
        and (pod.get("status") or {}).get("phase") == "Running"
        and str(pod["metadata"]["name"]).startswith(prefix)
    )


async def test_fair_sharing_evicts_the_borrower_down_to_equal_shares(
    kube: KubeClient, namespace: str
) -> None:
    await kube.create(FLAVOR, _kueue("ResourceFlavor", "default-flavor", {}))
    cohort = f"{namespace}-fs"
    await kube.create(COHORT, _kueue("Cohort", cohort, {}))
    await kube.create(CLUSTER_QUEUE, _queue(f"{namespace}-pool", cohort, 8))
    for team in ("a", "b"):
        await kube.create(CLUSTER_QUEUE, _queue(f"{namespace}-{team}", cohort, 0))
        lq = _kueue("LocalQueue", team, {"clusterQueue": f"{namespace}-{team}"}, namespace)
        await kube.create(LOCAL_QUEUE, lq, namespace=namespace)
    for i in range(8):
        await kube.create(BATCHJOB, _job(f"a{i}", namespace, "a"), namespace=namespace)

    async def a_borrows_everything() -> bool:
        pods, _ = await kube.list_all(POD, namespace=namespace)
        status = (await kube.get(CLUSTER_QUEUE, f"{namespace}-a")).get("status") or {}
        share = (status.get("fairSharing") or {}).get("weightedShare")
        return _running(pods, "a") == 8 and share == 1000

    await eventually(a_borrows_everything, timeout=90, what="team A on all 8 CPU, share 1000")
    for i in range(4):
        await kube.create(BATCHJOB, _job(f"b{i}", namespace, "b"), namespace=namespace)

    async def shares_equal() -> bool:
        found: list[Json] = []
        for team in ("a", "b"):
            found.append((await kube.get(CLUSTER_QUEUE, f"{namespace}-{team}")).get("status") or {})
        counts = [s.get("reservingWorkloads") for s in found]
        shares = [(s.get("fairSharing") or {}).get("weightedShare") for s in found]
        return counts == [4, 4] and shares == [500, 500]

    await eventually(shares_equal, timeout=150, what="A and B on 4 CPU each, shares 500")
    pool = (await kube.get(CLUSTER_QUEUE, f"{namespace}-pool"))["status"]
    assert pool["fairSharing"] == {"weightedShare": 0}, "the lender borrows nothing"
    root = await kube.get(COHORT, cohort)
    assert root["status"]["fairSharing"] == {"weightedShare": 0}, "a root cohort has no share"
    a_status = (await kube.get(CLUSTER_QUEUE, f"{namespace}-a"))["status"]
    assert a_status["pendingWorkloads"] == 4, "A's evicted Workloads wait, requeued"
    borrowed = a_status["flavorsReservation"][0]["resources"][0]
    assert (borrowed["total"], borrowed["borrowed"]) == ("4", "4")
