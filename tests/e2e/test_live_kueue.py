"""Kueue through the whole system, with Kueue's own quick-start applied by kubectl.

``single-clusterqueue-setup.yaml`` (v1beta2, unchanged: 9 CPU of quota) and more copies of
``sample-job.yaml`` (3 pods of 1 CPU each) than the quota holds: Kueue's webhook (played by
kubesim) creates each Job suspended, the job controller gives it one Workload, the scheduler
admits Workloads within quota, the binder writes the admission, the job controller starts the
Job; never more CPU runs than the quota allows, and every Job finishes. The only change to the
sample Job is a simulated run time (kubesim does not run containers).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.cli.stack import Stack
from shared.kube import KubeClient
from shared.kube.resources import resource_for
from tests.e2e.e2e_cluster import BATCHJOB, POD, eventually

KUBECTL = shutil.which("kubectl")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(240),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]

Json = dict[str, Any]
UPSTREAM = Path(__file__).parents[1] / "data" / "upstream" / "kueue"
WORKLOAD = resource_for("kueue.x-k8s.io/v1beta1", "Workload")
CLUSTER_QUEUE = resource_for("kueue.x-k8s.io/v1beta1", "ClusterQueue")
QUOTA_CPU = 9
JOBS = 5


async def kubectl(stack: Stack, *args: str, stdin: str | None = None) -> str:
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL,
        *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else None,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(stack.kubeconfig)},
    )
    out, err = await asyncio.wait_for(
        proc.communicate(stdin.encode() if stdin is not None else None), 30
    )
    assert proc.returncode == 0, f"kubectl {' '.join(args)}: {err.decode()}"
    return out.decode()


def sample_job() -> str:
    job: Json = yaml.safe_load((UPSTREAM / "sample-job.yaml").read_text())
    meta = job["spec"]["template"].setdefault("metadata", {})
    meta["annotations"] = {"sim.shoal.io/duration": "2s", "sim.shoal.io/start-delay": "50ms"}
    return yaml.safe_dump(job)


def _running_cpu(pods: list[Json]) -> int:
    """CPUs held by the sample jobs' pods: bound and not finished."""
    return sum(
        1
        for pod in pods
        if (pod.get("spec") or {}).get("nodeName")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        and str((pod.get("metadata") or {}).get("name") or "").startswith("sample-job-")
    )


async def test_quick_start_never_runs_more_than_the_quota(stack: Stack, kube: KubeClient) -> None:
    await kubectl(stack, "apply", "-f", str(UPSTREAM / "single-clusterqueue-setup.yaml"))
    for _ in range(JOBS):
        await kubectl(stack, "create", "-f", "-", stdin=sample_job())

    peak = 0

    async def all_finished() -> bool:
        nonlocal peak
        pods, _ = await kube.list_all(POD, namespace="default")
        peak = max(peak, _running_cpu(pods))
        jobs, _ = await kube.list_all(BATCHJOB, namespace="default")
        done = [
            j
            for j in jobs
            if any(
                c.get("type") == "Complete" and c.get("status") == "True"
                for c in (j.get("status") or {}).get("conditions") or []
            )
        ]
        return len(done) == JOBS

    await eventually(all_finished, timeout=180, what=f"{JOBS} sample jobs Complete", every=0.2)
    assert 0 < peak <= QUOTA_CPU, f"{peak} CPUs ran at once, quota {QUOTA_CPU}"
    assert peak == QUOTA_CPU, "three sample jobs fit the quota together"

    jobs, _ = await kube.list_all(BATCHJOB, namespace="default")
    workloads, _ = await kube.list_all(WORKLOAD, namespace="default")
    owners = [w["metadata"]["ownerReferences"][0]["uid"] for w in workloads]
    assert sorted(owners) == sorted(j["metadata"]["uid"] for j in jobs), "one Workload per job"
    for wl in workloads:
        kinds = {c["type"]: c for c in wl["status"]["conditions"]}
        assert kinds["Finished"]["status"] == "True", wl["metadata"]["name"]
        assert kinds["Finished"]["reason"] == "Succeeded"
        assert wl["status"]["admission"]["clusterQueue"] == "cluster-queue"

    async def queue_drained() -> bool:
        cq = await kube.get(CLUSTER_QUEUE, "cluster-queue")
        status = cq.get("status") or {}
        return status.get("pendingWorkloads") == 0 and status.get("admittedWorkloads") == 0

    await eventually(queue_drained, timeout=30, what="ClusterQueue counters back at 0")
    out = await kubectl(stack, "get", "workloads.kueue.x-k8s.io", "-n", "default")
    assert "cluster-queue" in out
