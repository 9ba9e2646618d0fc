"""Gang PodGroups of training jobs and the objects of quickly deleted jobs, through the whole
system (issue: live correctness, defects 4 and 8).

- A PyTorchJob whose pods name a gang scheduler gets ONE PodGroup, named after the job as the
  training operator names it (``SyncPodGroup``: the job's name, its annotations, minMember = all
  replicas or ``schedulingPolicy.minAvailable``), and every pod carries the group's name.
- A Volcano Job deleted right after its creation leaves no pod and no PodGroup behind: nothing
  is created for a job seen deleted, and what its uid still owns is removed (as Kubernetes'
  garbage collector does).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shared.kube import ApiError, KubeClient
from tests.e2e.e2e_cluster import POD, PODGROUP, PYTORCHJOB, VCJOB, Observer, eventually, vcjob

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]
GROUP_NAME = "scheduling.k8s.io/group-name"


def _replica(replicas: int, scheduler: str | None) -> Json:
    spec: Json = {
        "containers": [
            {
                "name": "pytorch",
                "image": "kubeflow/pytorch-dist-mnist:latest",
                "args": ["--backend", "gloo"],
                "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}},
            }
        ]
    }
    if scheduler:
        spec["schedulerName"] = scheduler
    return {
        "replicas": replicas,
        "restartPolicy": "OnFailure",
        "template": {"metadata": {"annotations": {"sim.shoal.io/duration": "2s"}}, "spec": spec},
    }


def pytorchjob(name: str, namespace: str, **spec: Any) -> Json:
    """Kubeflow's examples/pytorch/mnist/v1/pytorch_job_mnist_gloo.yaml, for Volcano's
    scheduler, with 1 Master and ``workers`` Workers."""
    workers = spec.pop("workers", 2)
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": name, "namespace": namespace, "annotations": {"team": "vision"}},
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": _replica(1, "volcano"),
                "Worker": _replica(workers, spec.pop("worker_scheduler", "volcano")),
            },
            **spec,
        },
    }


async def _podgroups(kube: KubeClient, namespace: str) -> list[Json]:
    groups, _ = await kube.list_all(PODGROUP, namespace=namespace)
    return groups


async def _succeeded(kube: KubeClient, name: str, namespace: str) -> None:
    async def done() -> bool:
        job = await kube.get(PYTORCHJOB, name, namespace)
        conditions = (job.get("status") or {}).get("conditions") or []
        return any(c["type"] == "Succeeded" and c["status"] == "True" for c in conditions)

    await eventually(done, timeout=90, what=f"PyTorchJob {name} to succeed")


@pytest.mark.parametrize(
    ("spec", "min_member"),
    [
        ({}, 3),
        (
            {
                "workers": 3,
                "elasticPolicy": {"minReplicas": 1, "maxReplicas": 3, "rdzvBackend": "c10d"},
            },
            4,
        ),
        (
            {"worker_scheduler": None, "runPolicy": {"schedulingPolicy": {"minAvailable": 2}}},
            2,
        ),
    ],
    ids=["all-replicas", "elastic-still-all-replicas", "scheduling-policy-min-available"],
)
async def test_pytorchjob_gets_one_podgroup_for_all_its_pods(
    kube: KubeClient, observer: Observer, namespace: str, spec: Json, min_member: int
) -> None:
    created = await kube.create(PYTORCHJOB, pytorchjob("mnist", namespace, **spec))
    seen: list[Json] = []

    async def podgroup_created() -> bool:
        seen[:] = await _podgroups(kube, namespace)
        return bool(seen)

    # Read while the job runs: the operator deletes the PodGroup once the job finished.
    await eventually(podgroup_created, timeout=30, what="the PodGroup", every=0.05)
    await _succeeded(kube, "mnist", namespace)
    groups = [r for r in observer.podgroups.values() if r.key.startswith(f"{namespace}/")]
    assert [g.key for g in groups] == [f"{namespace}/mnist"], "one PodGroup, named as the job"
    pods = observer.pods_of(namespace)
    assert len(pods) == 1 + spec.get("workers", 2)
    for pod in pods:
        meta = pod.last["metadata"]
        assert meta["annotations"][GROUP_NAME] == "mnist", pod.name
        assert pod.last["spec"]["schedulerName"] == "volcano", pod.name
    (group,) = seen
    assert group["spec"]["minMember"] == min_member
    assert group["spec"]["queue"] == "default"
    assert group["metadata"]["annotations"] == {"team": "vision"}
    owner = group["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["uid"]) == ("PyTorchJob", created["metadata"]["uid"])


async def test_quickly_deleted_volcano_jobs_leave_nothing_behind(
    kube: KubeClient, namespace: str
) -> None:
    names = [f"gone-{i}" for i in range(8)]
    for i, name in enumerate(names):
        await kube.create(VCJOB, vcjob(name, namespace, replicas=2, cpu="100m", duration=None))
        await asyncio.sleep(0.05 * (i % 4))  # from at once to after the controller acted
        await kube.delete(VCJOB, name, namespace)
    survivor = vcjob("survivor", namespace, replicas=1, cpu="100m", duration=None)
    await kube.create(VCJOB, survivor)

    async def only_the_survivor_left() -> bool:
        pods, _ = await kube.list_all(POD, namespace=namespace)
        groups = await _podgroups(kube, namespace)
        left = [p["metadata"]["name"] for p in pods] + [g["metadata"]["name"] for g in groups]
        return bool(left) and all(name.startswith("survivor") for name in left)

    await eventually(only_the_survivor_left, timeout=30, what="the deleted jobs' objects to go")
    await asyncio.sleep(3)  # nothing comes back: no late creation for a deleted job
    assert await only_the_survivor_left()
    for name in names:
        with pytest.raises(ApiError):
            await kube.get(VCJOB, name, namespace)
