"""Volcano's ``mutatejob.volcano.sh`` (pkg/webhooks/admission/jobs/mutate/mutate_job_test.go:
``TestCreatePatchExecution`` and ``TestMutateSpecPartitionPolicyDefaults``); rows named after
upstream's cases, then the job-level defaults of ``createPatch``."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.patch import json_patch
from services.webhook.core.queues import Snapshot
from services.webhook.core.review import review_admission
from services.webhook.core.webhooks import BY_PATH
from tests.unit.webhook.reviews import patch_of, review

Obj = dict[str, Any]
WEBHOOK = BY_PATH["/volcano/jobs/mutate"]
TEMPLATE = {"spec": {"containers": [{"name": "fake-name", "image": "busybox:1.24"}]}}


def job(tasks: list[Obj], **spec: Any) -> Obj:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "path-task-name", "namespace": "test"},
        "spec": {**spec, "tasks": [{**t, "template": TEMPLATE} for t in tasks]},
    }


def mutated(obj: Obj) -> tuple[Obj, list[Obj]]:
    sent = review("batch.volcano.sh", "v1alpha1", "Job", "jobs", obj)
    response = review_admission(WEBHOOK, sent, Snapshot())["response"]
    assert response["allowed"] is True
    patch = patch_of(response)
    result: Obj = json_patch(obj, patch)
    return result, patch


PARTITION = {"totalPartitions": 1, "minPartitions": 1, "partitionSize": 1}
NO_MIN_PARTITIONS = {"totalPartitions": 1, "partitionSize": 1}
TASKS: list[tuple[Obj, str, int]] = [
    ({"replicas": 1}, "default0", 1),
    ({"replicas": 2, "minAvailable": 1}, "default1", 1),
    ({"replicas": 1, "partitionPolicy": PARTITION}, "default2", 1),
    ({"replicas": 1, "partitionPolicy": NO_MIN_PARTITIONS}, "default3", 1),
]


def test_patch_default_task() -> None:
    result, patch = mutated(job([t for t, _, _ in TASKS], minAvailable=1))
    assert [op["path"] for op in patch if op["op"] == "replace"] == ["/spec/tasks"]
    tasks = result["spec"]["tasks"]
    assert [(t["name"], t["minAvailable"], t["maxRetry"]) for t in tasks] == [
        (name, min_available, 3) for _, name, min_available in TASKS
    ]


PARTITION_CASES = [
    ("MinAvailable is set to MinPartitions * PartitionSize when PartitionPolicy exists",
     {"replicas": 9, "partitionPolicy": {"totalPartitions": 3, "minPartitions": 2,
                                         "partitionSize": 3}}, 6),
    ("MinAvailable falls back to Replicas when PartitionPolicy is set but MinPartitions is "
     "omitted", {"replicas": 4, "partitionPolicy": {"totalPartitions": 2, "partitionSize": 2}}, 4),
    ("MinAvailable is set to Replicas when no PartitionPolicy", {"replicas": 5}, 5),
]  # fmt: skip


@pytest.mark.parametrize(
    ("task", "min_available"), [c[1:] for c in PARTITION_CASES], ids=[c[0] for c in PARTITION_CASES]
)
def test_mutate_spec_partition_policy_defaults(task: Obj, min_available: int) -> None:
    result, _ = mutated(job([{"name": "task-1", **task}]))
    (mutated_task,) = result["spec"]["tasks"]
    assert (mutated_task["minAvailable"], mutated_task["maxRetry"]) == (min_available, 3)


JOB_CASES = [
    ("queue, scheduler, maxRetry and minAvailable defaulted", {},
     {"queue": "default", "schedulerName": "volcano", "maxRetry": 3, "minAvailable": 2}),
    ("set fields are kept", {"queue": "q", "schedulerName": "s", "maxRetry": 1, "minAvailable": 1},
     {"queue": "q", "schedulerName": "s", "maxRetry": 1, "minAvailable": 1}),
    ("pytorch needs svc", {"plugins": {"pytorch": ["--master=m"]}},
     {"plugins": {"pytorch": ["--master=m"], "svc": []}}),
    ("mpi needs svc and ssh", {"plugins": {"mpi": []}},
     {"plugins": {"mpi": [], "svc": [], "ssh": []}}),
    ("a plugin needing nothing", {"plugins": {"env": []}}, {"plugins": {"env": []}}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "want"), [c[1:] for c in JOB_CASES], ids=[c[0] for c in JOB_CASES]
)
def test_create_patch(spec: Obj, want: Obj) -> None:
    result, _ = mutated(job([{"name": "t", "replicas": 2}], **spec))
    assert {k: result["spec"][k] for k in want} == want


def test_host_network_gets_cluster_first_with_host_net() -> None:
    obj = job([{"name": "t", "replicas": 1}])
    obj["spec"]["tasks"][0]["template"] = {"spec": {**TEMPLATE["spec"], "hostNetwork": True}}
    result, _ = mutated(obj)
    assert result["spec"]["tasks"][0]["template"]["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"
