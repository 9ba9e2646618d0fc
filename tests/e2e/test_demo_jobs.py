"""Every demo job kind runs to completion through the whole system, with the right pods and env.

The manifests of deploy/examples are applied into a namespace of their own on one Stack; the
tests then read what the Observer recorded on the way and what the API server holds at the end.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import pytest

from services.cli.progress import job_phase
from services.cli.submit import apply, load_documents, manifest_files
from services.cli.up import EXAMPLES
from shared.kube import KubeClient, resource_for
from tests.e2e.e2e_cluster import (
    POD,
    SERVICE,
    Observer,
    PodRecord,
    create_namespace,
    eventually,
    index_duplicates,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]
NAMESPACE = "demo"
GROUP_NAME = "scheduling.k8s.io/group-name"
FINISHED = ("Complete", "Completed", "Succeeded", "Failed", "Aborted")


@dataclass
class DemoRun:
    jobs: dict[str, Json]  # name → the job at the end
    pods: dict[str, Json]  # name → the pod at the end
    seconds: float


@pytest.fixture(scope="module")
async def demo(kube: KubeClient, observer: Observer) -> DemoRun:
    await create_namespace(kube, NAMESPACE)
    started = time.monotonic()
    kinds: dict[str, tuple[str, str]] = {}
    for document in load_documents(manifest_files(EXAMPLES)):
        obj = copy.deepcopy(document)
        if obj["kind"] != "Queue":
            obj["metadata"]["namespace"] = NAMESPACE
            kinds[obj["metadata"]["name"]] = obj["apiVersion"], obj["kind"]
        await apply(kube, obj, namespace=NAMESPACE)
    jobs: dict[str, Json] = {}

    async def all_finished() -> bool:
        for name, (api_version, kind) in kinds.items():
            jobs[name] = await kube.get(resource_for(api_version, kind), name, NAMESPACE)
        return all(job_phase(job) in FINISHED for job in jobs.values())

    await eventually(all_finished, timeout=150, what="every demo job to finish")
    pods, _ = await kube.list_all(POD, namespace=NAMESPACE)
    seconds = time.monotonic() - started
    print(f"demo: {len(jobs)} jobs, {len(pods)} pods finished in {seconds:.1f}s")
    return DemoRun(jobs, {p["metadata"]["name"]: p for p in pods}, seconds)


def recorded_pods(observer: Observer, job: str) -> list[PodRecord]:
    return sorted(observer.pods_of(NAMESPACE, job), key=lambda p: p.name)


def env_of(pod: Json) -> dict[str, Json]:
    container = pod["spec"]["containers"][0]
    return {e["name"]: e for e in container.get("env") or []}


@pytest.mark.parametrize(
    ("job", "pod_names", "min_available"),
    [
        (
            "mpi-gang",
            ["mpi-gang-master-0", "mpi-gang-worker-0", "mpi-gang-worker-1", "mpi-gang-worker-2"],
            4,
        ),
        ("research-sweep", [f"research-sweep-trial-{i}" for i in range(3)], 3),
        ("nightly-etl", ["nightly-etl-step-0", "nightly-etl-step-1"], 2),
    ],
    ids=["mpi-gang", "research-sweep", "nightly-etl"],
)
def test_volcano_job_completes_with_its_gang(
    demo: DemoRun, observer: Observer, job: str, pod_names: list[str], min_available: int
) -> None:
    vcjob = demo.jobs[job]
    assert job_phase(vcjob) == "Completed"
    assert vcjob["status"].get("succeeded") == len(pod_names)
    recorded = recorded_pods(observer, job)
    assert [p.name for p in recorded] == pod_names, (
        "one pod per task replica, named <job>-<task>-<i>"
    )
    group = f"{job}-{vcjob['metadata']['uid']}"
    for pod in recorded:
        assert pod.last["metadata"]["annotations"][GROUP_NAME] == group
        assert len(pod.nodes) == 1
        assert pod.phases[-1] == "Succeeded"
    bound = sorted(p.bound_at for p in recorded if p.bound_at is not None)
    assert len(bound) == len(pod_names)
    podgroup = observer.podgroups[f"{NAMESPACE}/{group}"]
    assert "Running" in podgroup.phases
    assert podgroup.deleted or podgroup.phases[-1] == "Completed", podgroup.phases


async def test_pytorchjob_gets_ranks_services_and_succeeds(
    demo: DemoRun, observer: Observer
) -> None:
    job = demo.jobs["mnist-ddp"]
    assert job_phase(job) == "Succeeded"
    names = ["mnist-ddp-master-0", "mnist-ddp-worker-0", "mnist-ddp-worker-1"]
    assert [p.name for p in recorded_pods(observer, "mnist-ddp")] == names
    for rank, name in enumerate(names):
        env = env_of(demo.pods[name])
        assert env["MASTER_ADDR"]["value"] == "mnist-ddp-master-0"
        assert env["MASTER_PORT"]["value"] == "23456"
        assert env["WORLD_SIZE"]["value"] == "3"
        assert env["RANK"]["value"] == str(rank)
        assert demo.pods[name]["metadata"]["annotations"][GROUP_NAME] == "mnist-ddp"

    # The job succeeds with its master (the training operator's rule); a worker that started
    # a moment later may still be finishing then.
    async def every_replica_succeeded() -> bool:
        pods = recorded_pods(observer, "mnist-ddp")
        return all(p.phases and p.phases[-1] == "Succeeded" for p in pods)

    await eventually(every_replica_succeeded, timeout=30, what="every replica to succeed")
    assert "Running" in observer.podgroups[f"{NAMESPACE}/mnist-ddp"].phases


async def test_pytorchjob_has_one_headless_service_per_replica(
    demo: DemoRun, kube: KubeClient
) -> None:
    services, _ = await kube.list_all(SERVICE, namespace=NAMESPACE)
    by_name = {s["metadata"]["name"]: s for s in services}
    assert sorted(by_name) == ["mnist-ddp-master-0", "mnist-ddp-worker-0", "mnist-ddp-worker-1"]
    for name, service in by_name.items():
        assert service["spec"].get("clusterIP") == "None", name
        replica = "master" if "master" in name else "worker"
        assert service["spec"]["selector"]["training.kubeflow.org/replica-type"] == replica


def test_indexed_job_runs_each_index_once_and_completes(demo: DemoRun, observer: Observer) -> None:
    job = demo.jobs["indexed-render"]
    assert job_phase(job) == "Complete"
    assert job["status"].get("succeeded") == 4
    assert job["status"].get("completedIndexes") == "0-3"
    recorded = recorded_pods(observer, "indexed-render")
    twice = index_duplicates(recorded)
    assert not twice, f"an index got a second pod: {twice}"
    indexes = sorted(
        p.last["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        for p in recorded
    )
    assert indexes == ["0", "1", "2", "3"], f"one pod per index, no duplicates: {indexes}"
    for pod in recorded:
        index = pod.last["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
        assert pod.last["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == index
        env = env_of(pod.last)["JOB_COMPLETION_INDEX"]
        assert "job-completion-index" in env["valueFrom"]["fieldRef"]["fieldPath"]
        assert pod.phases[-1] == "Succeeded"
        assert pod.last["metadata"]["annotations"][GROUP_NAME].startswith("podgroup-")
