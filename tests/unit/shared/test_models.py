"""Model decoding of real-world manifests: typed fields, tolerated unknowns, intact templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.errors import ManifestError
from shared.models import (
    ClusterQueue,
    Job,
    LocalQueue,
    Node,
    Pod,
    PodGroup,
    PriorityClass,
    PyTorchJob,
    Queue,
    ResourceFlavor,
    VolcanoJob,
    Workload,
    load_manifests,
    to_dict,
)
from shared.resources import GPU, Resources, pod_requests

DATA = Path(__file__).parents[2] / "data" / "manifests"


def _load(name: str) -> list[object]:
    return list(load_manifests((DATA / name).read_text(), source=name))


def test_volcano_job_keeps_task_templates_intact() -> None:
    [job] = _load("volcano-mpi-job.yaml")
    assert isinstance(job, VolcanoJob)
    assert job.spec.minAvailable == 3
    assert [t.name for t in job.spec.tasks] == ["mpimaster", "mpiworker"]
    assert job.spec.plugins == {"ssh": [], "svc": []}
    assert job.spec.policies[0].event == "PodEvicted"
    master = job.spec.tasks[0].template["spec"]
    # Fields Shoal does not model survive untouched for pass-through to created pods.
    assert master["imagePullSecrets"] == [{"name": "default-secret"}]
    assert master["containers"][0]["workingDir"] == "/home"


def test_pytorchjob_replica_specs() -> None:
    [job] = _load("pytorchjob-mnist.yaml")
    assert isinstance(job, PyTorchJob)
    assert set(job.spec.pytorchReplicaSpecs) == {"Master", "Worker"}
    assert job.spec.pytorchReplicaSpecs["Worker"].replicas == 1
    assert job.spec.runPolicy.cleanPodPolicy == "None"
    assert job.spec.runPolicy.backoffLimit == 3


def test_indexed_job_with_failure_policy() -> None:
    [job] = _load("indexed-job.yaml")
    assert isinstance(job, Job)
    assert job.spec.completionMode == "Indexed"
    assert job.spec.maxFailedIndexes == 2
    rules = job.spec.podFailurePolicy.rules if job.spec.podFailurePolicy else []
    assert [r.action for r in rules] == ["Ignore", "FailIndex"]
    assert rules[1].onExitCodes is not None and rules[1].onExitCodes.values == [42]


def test_queues_podgroup_priorityclass() -> None:
    research, nlp, pg, pc = _load("queues-and-podgroup.yaml")
    assert isinstance(research, Queue) and research.spec.weight == 3
    assert Resources.from_list(research.spec.capability)[GPU] == 8000
    assert isinstance(nlp, Queue) and nlp.spec.parent == "research"
    assert nlp.spec.guarantee is not None and nlp.spec.guarantee.resource["memory"] == "32Gi"
    assert isinstance(pg, PodGroup)
    assert pg.spec.minTaskMember == {"mpimaster": 1, "mpiworker": 2}
    assert pg.status.phase == "Inqueue" and pg.status.conditions[0].reason == "NotEnoughResources"
    assert pg.metadata.controller_ref() is not None
    assert isinstance(pc, PriorityClass) and pc.value == 1_000_000


def test_kueue_objects() -> None:
    flavor, cq, lq, wl = _load("kueue-setup.yaml")
    assert isinstance(flavor, ResourceFlavor)
    assert isinstance(cq, ClusterQueue)
    quotas = cq.spec.resourceGroups[0].flavors[0].resources
    assert [(q.name, q.nominalQuota) for q in quotas] == [("cpu", 9), ("memory", "36Gi")]
    assert isinstance(lq, LocalQueue) and lq.spec.clusterQueue == "cluster-queue"
    assert isinstance(wl, Workload) and wl.spec.podSets[0].count == 3


def test_api_json_list_with_unknown_fields() -> None:
    node, pod = _load("node-and-pod.json")
    assert isinstance(node, Node)
    assert Resources.from_list(node.status.allocatable)["cpu"] == 95690
    assert node.spec.taints[0].effect == "NoSchedule"
    assert isinstance(pod, Pod)
    assert pod.spec.nodeName == "gpu-node-1"
    assert pod.status.containerStatuses[0].restartCount == 1
    assert pod_requests(pod) == Resources({"cpu": 1000, "memory": 2 * 2**30 * 1000, "pods": 1000})
    assert "managedFields" not in to_dict(pod)["metadata"]


BAD = [
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 3}\n", "spec.containers"),
    ("apiVersion: v9\nkind: Gadget\nmetadata: {name: g}\n", "unknown kind v9/Gadget"),
    ("kind: Pod\nmetadata: {name: p}\n", "missing apiVersion"),
    (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{name: c, resources: {requests: {memory: 1GB}}}]}\n",
        "spec.containers[0].resources.requests.memory",
    ),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: [}\n", "invalid YAML"),
]


@pytest.mark.parametrize(("text", "needle"), BAD, ids=["type", "kind", "apiVersion", "qty", "yaml"])
def test_bad_manifests_name_document_and_field(text: str, needle: str) -> None:
    with pytest.raises(ManifestError) as info:
        load_manifests(text, source="bad.yaml")
    message = str(info.value)
    assert needle in message
    assert "bad.yaml" in message
    assert "\n" not in message
