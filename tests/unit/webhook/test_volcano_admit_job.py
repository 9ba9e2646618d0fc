"""Ported from volcano pkg/webhooks/admission/jobs/validate/admit_job_test.go (master).

Row ids are upstream's case names (Go's t.Run spelling: a repeated name gets ``#01``). As
upstream, an error row passes when the message contains the expected text, a valid row when the
message is empty. Not expressible: the two PodLevelResources rows that need Kubernetes' pod
validation with that feature gate on (kubesim reports Kubernetes 1.32, where it is off).
"""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.queues import ListedQueues
from services.webhook.core.volcano_job import (
    validate_job_create,
    validate_job_update,
)

Obj = dict[str, Any]
BUSYBOX = {"name": "fake-name", "image": "busybox:1.24"}


def queue(name: str, parent: str | None = None, state: str = "Open") -> Obj:
    spec: Obj = {"weight": 1} if parent is None else {"parent": parent}
    return {"metadata": {"name": name}, "spec": spec, "status": {"state": state}}


def task(
    name: str = "task-1", replicas: int | None = 1, *, containers: list[Obj] | None = None,
    **fields: Any,
) -> Obj:  # fmt: skip
    out: Obj = {"name": name, **fields}
    if replicas is not None:
        out["replicas"] = replicas
    out["template"] = {
        "metadata": {"labels": {"name": "test"}},
        "spec": {"containers": containers or [BUSYBOX]},
    }
    return out


def job(name: str, *tasks: Obj, min_available: int = 1, queue_name: str = "default",
        **spec: Any) -> Obj:  # fmt: skip
    return {
        "metadata": {"name": name, "namespace": "test"},
        "spec": {"minAvailable": min_available, "queue": queue_name, "tasks": list(tasks), **spec},
    }


EVICTED_RESTART_TASK = [{"event": "PodEvicted", "action": "RestartTask"}]
ANY_ABORT = [{"event": "*", "action": "AbortJob"}]
FAILED_RESTART_JOB = {"event": "PodFailed", "action": "RestartJob"}
BOTH_TIERS = (
    "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
)
NETWORK_BOTH = {"mode": "hard", "highestTierAllowed": 1, "highestTierName": "volcano.sh/hypernode"}
NETWORK_NAME = {"mode": "hard", "highestTierName": "volcano.sh/hypernode"}
PRIVILEGED = {**BUSYBOX, "securityContext": {"privileged": True}}
CONTAINER_LEVEL = {"cpu": "2", "memory": "4Gi", "hugepages-1Mi": "1Gi"}
POD_LEVEL = {"requests": {"cpu": "4", "memory": "8Gi", "hugepages-1Mi": "2Gi"},
             "limits": {"cpu": "4", "memory": "8Gi", "hugepages-1Mi": "2Gi"}}  # fmt: skip


def _pod_level(template_resources: Obj, containers: list[Obj]) -> Obj:
    t = task(containers=containers)
    t["template"]["spec"]["resources"] = template_resources
    return t


def _cpu(name: str, cpu: str, limit: str | None = None) -> Obj:
    resources: Obj = {"requests": {"cpu": cpu}}
    if limit is not None:
        resources["limits"] = {"cpu": limit}
    return {"name": name, "image": "busybox:1.24", "resources": resources}


CREATE = [
    ("simple-valid-job",
     job("simple-valid-job", task(containers=[{**BUSYBOX, "name": "task-1"}])), ""),
    ("simple-valid-job-with-policy",
     job("simple-valid-job-with-policy", task(), policies=EVICTED_RESTART_TASK), ""),
    ("validate_valid-job_with_pod_level_resources",
     job("valid-job-with-pod-level-resources", _pod_level(POD_LEVEL, [
         {**BUSYBOX, "resources": {"requests": CONTAINER_LEVEL, "limits": CONTAINER_LEVEL}}]),
         policies=EVICTED_RESTART_TASK), ""),
    ("duplicate-task-job",
     job("duplicate-task-job", task("duplicated-task-1"), task("duplicated-task-1")),
     "duplicated task name duplicated-task-1"),
    ("job-policy-duplicated",
     job("job-policy-duplicated", task(), policies=[
         {"event": "PodFailed", "action": "AbortJob"}, FAILED_RESTART_JOB]),
     "duplicate"),
    ("Min_Available_illegal", job("job-min-illegal", task(), min_available=2),
     "job 'minAvailable' should not be greater than total replicas in tasks"),
    ("Job_Plugin_illegal", job("job-plugin-illegal", task(), plugins={"big_plugin": []}),
     "unable to find job plugin: big_plugin"),
    ("no-task", job("no-task"), "No task specified in job spec"),
    ("replica-lessThanZero", job("replica-lessThanZero", task(replicas=-1)),
     "job 'minAvailable' should not be greater than total replicas in tasks"),
    ("job-policy-withExitCode",
     job("job-policy-withExitCode", task(),
         policies=[{"event": "PodFailed", "action": "AbortJob", "exitCode": -1}]),
     "must not specify event and exitCode simultaneously"),
    ("policy-noEvent-noExCode", job("policy-noEvent-noExCode", task(),
                                    policies=[{"action": "AbortJob"}]),
     "either event and exitCode should be specified"),
    ("invalid-policy-event", job("invalid-policy-event", task(),
                                 policies=[{"event": "someFakeEvent", "action": "AbortJob"}]),
     "invalid policy event"),
    ("invalid-policy-action", job("invalid-policy-action", task(),
                                  policies=[{"event": "PodEvicted", "action": "someFakeAction"}]),
     "invalid policy action"),
    ("policy-extcode-zero", job("policy-extcode-zero", task(),
                                policies=[{"action": "AbortJob", "exitCode": 0}]),
     "0 is not a valid error code"),
    ("duplicate-exitcode", job("duplicate-exitcode", task(),
                               policies=[{"exitCode": 1}, {"exitCode": 1}]),
     "duplicate exitCode 1"),
    ("job-policy-withExitCode#01",
     job("job-policy-withExitCode", task(), policies=[*ANY_ABORT, FAILED_RESTART_JOB]),
     "if there's * here, no other policy should be here"),
    ("invalid-mount-volume",
     job("invalid-mount-volume", task(), policies=ANY_ABORT, volumes=[{"mountPath": ""}]),
     " mountPath is required;"),
    ("duplicate-mount-volume",
     job("duplicate-mount-volume", task(), policies=ANY_ABORT,
         volumes=[{"mountPath": "/var", "volumeClaimName": "pvc1"},
                  {"mountPath": "/var", "volumeClaimName": "pvc2"}]),
     " duplicated mountPath: /var;"),
    ("volume_without_VolumeClaimName_and_VolumeClaim",
     job("invalid-volume", task(), policies=ANY_ABORT,
         volumes=[{"mountPath": "/var"}, {"mountPath": "/var"}]),
     " either VolumeClaim or VolumeClaimName must be specified;"),
    ("taskpolicy-withAnyandOthrEvent",
     job("taskpolicy-withAnyandOthrEvent",
         task(policies=[{"event": "*", "action": "AbortJob"},
                        {"event": "PodFailed", "action": "RestartJob"}])),
     "if there's * here, no other policy should be here"),
    ("job-with-noQueue", job("job-with-noQueue", task(), queue_name="jobQueue"),
     "unable to find job queue"),
    ("job_with_privileged_init_container",
     job("valid-job", {**task(), "template": {"spec": {
         "initContainers": [{**PRIVILEGED, "name": "init-fake-name"}], "containers": [BUSYBOX]}}}),
     ""),
    ("job_with_privileged_container", job("valid-job", task(containers=[PRIVILEGED])), ""),
    ("job_with_valid_task_depends_on",
     job("job-with-valid-task-depends-on", task("t1", dependsOn={"name": ["t2"]}), task("t2")), ""),
    ("job_with_invalid_task_depends_on",
     job("job-with-invalid-task-depends-on", task("t1", dependsOn={"name": ["t3"]}), task("t2")),
     "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG)"),
    ("PartitionSize-lessThanZero",
     job("PartitionSize-lessThanZero",
         task(replicas=8, partitionPolicy={"partitionSize": -1, "totalPartitions": 8})),
     "'PartitionSize' must be greater than 0 in task: task-1, job: PartitionSize-lessThanZero"),
    ("TotalPartitions-lessThanZero",
     job("TotalPartitions-lessThanZero",
         task(replicas=8, partitionPolicy={"partitionSize": 8, "totalPartitions": -1})),
     "'TotalPartitions' must be greater than 0 in task: task-1, job: TotalPartitions-lessThanZero"),
    ("task-with-invalid-PartitionPolicy",
     job("task-with-invalid-PartitionPolicy",
         task(replicas=8, partitionPolicy={"partitionSize": 3, "totalPartitions": 2})),
     "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: "
     "task-with-invalid-PartitionPolicy"),
    ("task-with-valid-PartitionPolicy",
     job("task-with-valid-PartitionPolicy",
         task(replicas=8, partitionPolicy={"partitionSize": 4, "totalPartitions": 2})), ""),
    ("task-with-valid-NetworkTopology-and-PartitionPolicy",
     job("task-with-valid-NetworkTopology-and-PartitionPolicy",
         task(replicas=8, partitionPolicy={"partitionSize": 4, "totalPartitions": 2,
                                           "networkTopology": NETWORK_NAME}),
         networkTopology=NETWORK_NAME), ""),
    ("job-with-invalid-NetworkTopology-and-PartitionPolicy",
     job("job-with-invalid-NetworkTopology-and-PartitionPolicy",
         task(replicas=8, partitionPolicy={"partitionSize": 4, "totalPartitions": 2,
                                           "networkTopology": NETWORK_BOTH}),
         networkTopology=NETWORK_BOTH),
     BOTH_TIERS),
    ("job-with-invalid-NetworkTopology",
     job("job-with-invalid-NetworkTopology",
         task(replicas=8, partitionPolicy={"partitionSize": 4, "totalPartitions": 2}),
         networkTopology=NETWORK_BOTH),
     BOTH_TIERS),
    ("task-with-invalid-PartitionPolicy#01",
     job("task-with-invalid-PartitionPolicy",
         task(replicas=8, partitionPolicy={"partitionSize": 4, "totalPartitions": 2,
                                           "networkTopology": NETWORK_BOTH})),
     BOTH_TIERS),
    ("task-with-valid-PartitionPolicy-MinPartitions",
     job("task-with-valid-PartitionPolicy-MinPartitions",
         task(replicas=8, partitionPolicy={"partitionSize": 4, "totalPartitions": 2,
                                           "minPartitions": 1})), ""),
    ("task-with-invalid-PartitionPolicy-MinPartitions-not-equal",
     job("task-with-invalid-PartitionPolicy-MinPartitions",
         task(replicas=8, minAvailable=4, partitionPolicy={"partitionSize": 2, "totalPartitions": 4,
                                                          "minPartitions": 1})),
     "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: task-1, job: "
     "task-with-invalid-PartitionPolicy-MinPartitions"),
    ("task-with-valid-PartitionPolicy-MinPartitions-equal",
     job("task-with-valid-PartitionPolicy-MinPartitions-equal",
         task(replicas=8, minAvailable=4, partitionPolicy={"partitionSize": 2, "totalPartitions": 4,
                                                          "minPartitions": 2})), ""),
    ("task-with-PartitionPolicy-MinPartitions-omitted",
     job("task-with-PartitionPolicy-MinPartitions-omitted",
         task(replicas=4, minAvailable=4, partitionPolicy={"partitionSize": 2,
                                                          "totalPartitions": 2}),
         min_available=4), ""),
    ("job-with-mpi-plugin-valid-master",
     job("job-with-mpi-plugin-valid-master",
         task("launcher", containers=[{"name": "launcher", "image": "mpi:latest"}]),
         task("worker", 2, containers=[{"name": "worker", "image": "mpi:latest"}]),
         plugins={"mpi": ["--master=launcher"]}), ""),
    ("job-with-mpi-plugin-valid-master-without-worker",
     job("job-with-mpi-plugin-valid-master",
         task("launcher", containers=[{"name": "launcher", "image": "mpi:latest"}]),
         plugins={"mpi": ["--master=launcher"]}), ""),
    ("job-with-mpi-plugin-invalid-master",
     job("job-with-mpi-plugin-invalid-master",
         task("worker", 2, containers=[{"name": "worker", "image": "mpi:latest"}]),
         plugins={"mpi": ["--master=launcher"]}),
     "The specified mpi master task was not found"),
    ("validate_valid-job_with_pod_level_resources_less_than_aggregate_container_resources,"
     "_but_PodLevelResources_disabled",
     job("invalid-job-with-pod-level-resources", _pod_level(
         {"requests": {"cpu": "2", "hugepages-1Mi": "2Gi", "hugepages-1Ki": "2Gi"},
          "limits": {"cpu": "2", "hugepages-1Mi": "2Gi", "hugepages-1Ki": "2Gi"}},
         [_cpu("fake-name-0", "2"), _cpu("fake-name-1", "2"), _cpu("fake-name-2", "2")])), ""),
]  # fmt: skip
DEFAULT_QUEUE = ListedQueues([queue("default")])


@pytest.mark.parametrize(
    ("job_obj", "expected"), [c[1:] for c in CREATE], ids=[c[0] for c in CREATE]
)
def test_validate_job_create(job_obj: Obj, expected: str) -> None:
    message = validate_job_create(job_obj, DEFAULT_QUEUE)
    if expected:
        assert message and expected in message
    else:
        assert message == ""


HIERARCHY = ListedQueues(
    [queue("root"), queue("parentQueue", "root"), queue("childQueue", "parentQueue")]
)


@pytest.mark.parametrize(
    ("job_obj", "expected"),
    [
        (job("job-with-noQueue", task(), queue_name="root"), "can not submit job to root queue"),
        (job("job-with-parentQueue", task(), queue_name="parentQueue"),
         "can only submit job to leaf queue"),
        (job("job-with-leafQueue", task(), queue_name="childQueue"), ""),
    ],
    ids=["job-with-rootQueue", "job-with-parentQueue", "job-with-leafQueue"],
)  # fmt: skip
def test_validate_hierarchy_create(job_obj: Obj, expected: str) -> None:
    message = validate_job_create(job_obj, HIERARCHY)
    assert (expected in message and message != "") if expected else message == ""


def _update_job() -> Obj:
    return job("valid-job", task(replicas=5), min_available=5, policies=EVICTED_RESTART_TASK)


@pytest.mark.parametrize(
    ("replicas", "min_available", "add_task", "mutate_task_name", "mutate_spec", "refused"),
    [
        (6, 5, False, False, False, False),
        (4, 5, False, False, False, True),
        (4, 3, False, False, False, False),
        (4, 5, True, False, False, True),
        (5, 5, False, True, False, True),
        (5, 5, False, False, True, True),
    ],
    ids=["scale_up", "invalid_scale_down_with_replicas_less_than_minAvailable", "scale_down",
         "invalid_add_task", "invalid_mutate_task's_fields_other_than_replicas",
         "invalid_mutate_job's_spec_other_than_minAvailable"],
)  # fmt: skip
def test_validate_job_update(
    replicas: int, min_available: int, add_task: bool, mutate_task_name: bool,
    mutate_spec: bool, refused: bool,
) -> None:  # fmt: skip
    old, new = _update_job(), _update_job()
    new["metadata"]["resourceVersion"] = "502593"
    new["status"] = {"succeeded": 2}
    new["spec"]["minAvailable"] = min_available
    new["spec"]["tasks"][0]["replicas"] = replicas
    if add_task:
        new["spec"]["tasks"].append(task("task-2", 5))
    if mutate_task_name:
        new["spec"]["tasks"][0]["name"] = "mutated-name"
    if mutate_spec:
        new["spec"]["queue"] = "mutated-queue"
    assert bool(validate_job_update(old, new)) is refused


@pytest.mark.parametrize(
    ("topology_task", "expected"),
    [
        ({"name": "task-1", "replicas": 5, "topologyPolicy": "restricted", "template": {
            "spec": {"containers": [{"resources": {"limits": {"cpu": "1", "memory": "2000"}}}]}}},
         ""),
        ({"name": "task-2", "topologyPolicy": "restricted", "template": {
            "spec": {"containers": [{"resources": {"limits": {"cpu": "500m",
                                                              "memory": "2000"}}}]}}},
         "the cpu request isn't an integer"),
    ],
    ids=["test-1", "test-2"],
)  # fmt: skip
def test_validate_task_topo_policy(topology_task: Obj, expected: str) -> None:
    message = validate_job_create(job("topo", topology_task, min_available=0), DEFAULT_QUEUE)
    assert expected in message
    if not expected:
        assert message == ""
