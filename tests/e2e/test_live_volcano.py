"""Volcano Jobs through the whole system: what `kubectl get vcjob -o yaml` shows at the end
(issue: live correctness, defect 6)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.kube import KubeClient, resource_for
from tests.e2e.e2e_cluster import POD, VCJOB, container, eventually, vcjob

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]


async def test_completed_job_counts_only_succeeded_pods(kube: KubeClient, namespace: str) -> None:
    await kube.create(VCJOB, vcjob("six", namespace, replicas=6, duration="500ms"))
    job: dict[str, Any] = {}

    async def completed() -> bool:
        nonlocal job
        job = await kube.get(VCJOB, "six", namespace)
        return bool((job.get("status") or {}).get("state", {}).get("phase") == "Completed")

    await eventually(completed, timeout=90, what="the Volcano Job to complete")
    status = job["status"]
    counts = {k: status.get(k, 0) for k in ("pending", "running", "succeeded", "failed")}
    assert counts == {"pending": 0, "running": 0, "succeeded": 6, "failed": 0}, status
    assert status["taskStatusCount"] == {"worker": {"phase": {"Succeeded": 6}}}, status


def _task(name: str, replicas: int, *, start_delay: str, depends: list[str] | None = None) -> Any:
    task: dict[str, Any] = {
        "name": name,
        "replicas": replicas,
        "template": {
            "metadata": {
                "annotations": {
                    "sim.shoal.io/start-delay": start_delay,
                    "sim.shoal.io/duration": "3s",
                }
            },
            "spec": {
                "restartPolicy": "OnFailure",
                "containers": [container(name, "100m", "64Mi")],
            },
        },
    }
    if depends:
        task["dependsOn"] = {"name": depends}
    return task


async def test_task_start_dependency(kube: KubeClient, namespace: str) -> None:
    # volcano example/task-start-dependency: nginx2 starts after nginx1 runs, nginx3 after nginx2.
    manifest = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "deps", "namespace": namespace},
        "spec": {
            "schedulerName": "volcano",
            "minAvailable": 1,
            "tasks": [
                _task("nginx1", 1, start_delay="2s"),
                _task("nginx2", 2, start_delay="2s", depends=["nginx1"]),
                _task("nginx3", 2, start_delay="50ms", depends=["nginx2"]),
            ],
        },
    }
    await kube.create(VCJOB, manifest)

    async def completed() -> bool:
        job = await kube.get(VCJOB, "deps", namespace)
        return bool((job.get("status") or {}).get("state", {}).get("phase") == "Completed")

    await eventually(completed, timeout=120, what="the dependent tasks to complete")
    pods, _ = await kube.list_all(POD, namespace=namespace)
    by_task: dict[str, list[dict[str, Any]]] = {}
    for pod in pods:
        task = pod["metadata"]["annotations"]["volcano.sh/task-spec"]
        by_task.setdefault(task, []).append(pod)
    assert {t: len(p) for t, p in by_task.items()} == {"nginx1": 1, "nginx2": 2, "nginx3": 2}
    for before, after in (("nginx1", "nginx2"), ("nginx2", "nginx3")):
        started = max(_started(p) for p in by_task[before])
        created = min(p["metadata"]["creationTimestamp"] for p in by_task[after])
        assert created >= started, (before, started, after, created)


def _started(pod: dict[str, Any]) -> str:
    state = pod["status"]["containerStatuses"][0]
    for key in ("state", "lastState"):
        for how in ("running", "terminated"):
            at = (state.get(key) or {}).get(how, {}).get("startedAt")
            if at:
                return str(at)
    raise AssertionError(f"pod {pod['metadata']['name']} never started")


async def test_the_ssh_plugin_deletes_only_the_secret_its_job_controls(
    kube: KubeClient, namespace: str
) -> None:
    # Defect 14: the job controller deleted `<job>-ssh` by name, whoever it belonged to.
    secret_rt = resource_for("v1", "Secret")
    await kube.create(
        secret_rt,
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "mine-ssh", "namespace": namespace},
            "stringData": {"note": "a user's own Secret"},
        },
    )
    for name in ("mine", "ours"):
        manifest = vcjob(name, namespace, replicas=2, duration="500ms")
        manifest["spec"]["plugins"] = {"ssh": [], "svc": []}
        await kube.create(VCJOB, manifest)

    async def both_finished() -> bool:
        for name in ("mine", "ours"):
            job = await kube.get(VCJOB, name, namespace)
            if (job.get("status") or {}).get("state", {}).get("phase") != "Completed":
                return False
        return True

    await eventually(both_finished, timeout=90, what="both jobs to complete")

    async def ours_gone() -> bool:
        secrets, _ = await kube.list_all(secret_rt, namespace=namespace)
        return "ours-ssh" not in {s["metadata"]["name"] for s in secrets}

    await eventually(ours_gone, timeout=30, what="the job's own ssh Secret to be deleted")
    kept = await kube.get(secret_rt, "mine-ssh", namespace)
    assert not kept["metadata"].get("ownerReferences"), kept["metadata"]
    events, _ = await kube.list_all(resource_for("v1", "Event"), namespace=namespace)
    reasons = {(e["involvedObject"]["name"], e["reason"]) for e in events}
    assert ("mine", "NotOwned") in reasons, reasons
