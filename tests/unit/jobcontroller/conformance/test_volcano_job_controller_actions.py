"""volcano ``pkg/controllers/job/job_controller_actions_test.go``, ported through Shoal's pure
reconcile, each row under its upstream name (``TestIsDependsOnPodsReady`` is in
``tests/unit/jobcontroller/test_volcanojob_depends_on.py``).

Upstream calls one controller method (``killJob``, ``syncJob``, ``createOrUpdatePodGroup``,
``recordPodGroupEvent``, ``killPods``) against fake clients and reads the clients afterwards.
Here the job goes through one reconcile in the phase and with the action that makes Volcano call
that method — ``killJob(PodRetainPhaseNone)`` is a Running job's ``RestartJob``, a ``Target`` is
the task or pod whose event fired a ``RestartTask``/``RestartPod`` policy (Shoal, like
Volcano's policies, names the target by the event; upstream's test hands the target in, so the
targeted pod is made the one that failed) — and the assertions are made on the actions.

Not expressible (kept below as skipped rows, with the reason):
- ``SyncJob with dependsOn job can't find the dependent task`` — its outcome rests on the job
  missing from the controller's job lister while it is synced (the test adds it to the fake
  clientset only), so ``isDependsOnPodsReady`` sees a deleted job and stops waiting. Shoal's
  reconcile is handed the job it syncs; with the job present upstream waits too.
- ``TestCreateJobIOIfNotExistFunc``, ``TestCreatePVCFunc`` — Shoal creates no
  PersistentVolumeClaims for ``spec.volumes`` (kubesim serves none).
- ``TestDeleteJobPod`` — one API call of the I/O shell (a 404 is success), covered by
  ``tests/unit/jobcontroller/test_shell_executor.py``.

``TestGetSubGroupPolicy`` reads the policy off the PodGroup the job's first sync creates.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.models import Pod
from tests.unit.jobcontroller.conformance.volcano_controller_cases import (
    NS,
    UID,
    build_pod,
    command,
    deleted,
    job,
    podgroup,
    sync,
    task,
)
from tests.unit.jobcontroller.statusjson import status_json

PLUGINS = ["svc", "ssh", "env"]
CONTROLLED = {f"plugin-{p}": p for p in PLUGINS}


# -- TestKillJobFunc --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "pg_name"),
    [
        pytest.param("job1", f"job1-{UID}", id="KillJob success Case"),
        pytest.param("job2", "job2", id="KillJob compatibility with version lt 1.5 success case"),
    ],
)
def test_kill_job(name: str, pg_name: str) -> None:
    vcjob = job(name, phase="Running", plugins=PLUGINS,
                status={"controlledResources": CONTROLLED})  # fmt: skip
    pods = [build_pod(p, "Running", "task1", job_name=name) for p in ("pod1", "pod2")]
    actions = sync(vcjob, pods, [podgroup(pg_name)], [command("RestartJob", name)])
    assert sorted(deleted(actions, "Pod")) == [f"{NS}/pod1", f"{NS}/pod2"]
    assert deleted(actions, "Service") == [f"{NS}/{name}"]  # svc: the Service goes
    assert deleted(actions, "Secret") == [f"{NS}/{name}-ssh"]  # ssh: the Secret goes
    assert deleted(actions, "PodGroup") == [f"{NS}/{pg_name}"]
    assert status_json(actions).get("controlledResources", {}) == {}


# -- TestSyncJobFunc --------------------------------------------------------------------------


def test_sync_job_success_case() -> None:
    """``SyncJob success Case``: 2 of task1's 6 pods exist, the PodGroup is Inqueue: 6 pods."""
    vcjob = job("job1", phase="Pending", plugins=PLUGINS, tasks=[task("task1", 6)])
    pods = [build_pod(f"job1-task1-{i}", "Running", "task1", job_name="job1") for i in (0, 1)]
    actions = sync(vcjob, pods, [podgroup(f"job1-{UID}")])
    created = [o["metadata"]["name"] for o in actions.create if o["kind"] == "Pod"]
    assert len(pods) + len(created) == 6
    assert created == [f"job1-task1-{i}" for i in range(2, 6)]


@pytest.mark.skip(
    reason="rests on the synced job missing from the controller's job lister (see docstring)"
)
def test_sync_job_with_depends_on_job_cant_find_the_dependent_task() -> None:
    """``SyncJob with dependsOn job can't find the dependent task``: upstream 4 pods."""


# -- TestCreatePodGroupIfNotExistFunc -----------------------------------------------------------

PARTITIONS = {"totalPartitions": 2, "partitionSize": 3,
              "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}  # fmt: skip
TIER = {"mode": "hard", "highestTierName": "volcano.sh/hypernode"}
TIER_NAME = {"totalPartitions": 2, "partitionSize": 3, "networkTopology": TIER}
VOLUMES = [{"volumeClaimName": "vc1", "volumeClaim": {"volumeName": "v1"}},
           {"volumeClaimName": "vc2"}]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "partition", "want"),
    [
        pytest.param("job1", PARTITIONS, {"task1": 6}, id="CreatePodGroup success Case"),
        pytest.param(
            "job3", {**PARTITIONS, "minPartitions": 1}, {"task1": 3},
            id="CreatePodGroup success Case with MinPartitions",
        ),
        pytest.param(
            "job2", TIER_NAME, {"task1": 6}, id="CreatePodGroup success Case with highestTierName"
        ),
    ],
)  # fmt: skip
def test_create_pod_group_if_not_exist(
    name: str, partition: dict[str, Any], want: dict[str, int]
) -> None:
    vcjob = job(name, schedulerName="volcano", volumes=VOLUMES,
                tasks=[task("task1", 6, partitionPolicy=partition)])  # fmt: skip
    actions = sync(vcjob)
    (group,) = [o for o in actions.create if o["kind"] == "PodGroup"]
    assert group["metadata"]["name"] == f"{name}-{UID}"
    assert group["spec"]["minTaskMember"] == want


# -- TestUpdatePodGroupIfJobUpdateFunc ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "pg_name", "tasks", "want"),
    [
        pytest.param("job1", f"job1-{UID}", [], {}, id="UpdatePodGroup success Case"),
        pytest.param(
            "job2", "job2", [], {},
            id="UpdatePodGroup compatibility with version lt 1.5 success Case",
        ),
        pytest.param(
            "job3", "job3", [task("task1", 6, partitionPolicy=PARTITIONS)], {"task1": 6},
            id="UpdatePodGroup compatibility with PartitionPolicy",
        ),
        pytest.param(
            "job4", "job4", [task("task1", 6, partitionPolicy={**PARTITIONS, "minPartitions": 1})],
            {"task1": 3},
            id="UpdatePodGroup compatibility with PartitionPolicy having MinPartitions",
        ),
        pytest.param(
            "job4", "job4", [task("task1", 6, partitionPolicy=TIER_NAME)], {"task1": 6},
            id="UpdatePodGroup compatibility with highestTierName",
        ),
    ],
)  # fmt: skip
def test_update_pod_group_if_job_update(
    name: str, pg_name: str, tasks: list[dict[str, Any]], want: dict[str, int]
) -> None:
    vcjob = job(name, phase="Pending", priorityClassName="new", tasks=tasks)
    actions = sync(vcjob, podgroups=[podgroup(pg_name, phase="Pending")])
    assert not [o for o in actions.create if o["kind"] == "PodGroup"]
    (patch,) = [p for p in actions.patch if p.kind == "PodGroup"]
    assert patch.key == f"{NS}/{pg_name}"
    assert patch.patch["spec"]["priorityClassName"] == "new"
    assert patch.patch["spec"]["minTaskMember"] == want


# -- TestGetSubGroupPolicy -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("replicas", "partition", "min_sub_groups", "size"),
    [
        pytest.param(6, {"totalPartitions": 2, "minPartitions": 1, "partitionSize": 3,
                         "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}, 1, 3,
                     id="SubGroupPolicy with MinPartitions set"),
        pytest.param(9, {"totalPartitions": 3, "minPartitions": 3, "partitionSize": 3}, 3, 3,
                     id="SubGroupPolicy with MinPartitions equal to TotalPartitions"),
        pytest.param(6, {"totalPartitions": 2, "minPartitions": 0, "partitionSize": 3}, 0, 3,
                     id="SubGroupPolicy with MinPartitions not set"),
    ],
)  # fmt: skip
def test_get_sub_group_policy(
    replicas: int, partition: dict[str, Any], min_sub_groups: int, size: int
) -> None:
    actions = sync(job("job1", tasks=[task("task1", replicas, partitionPolicy=partition)]))
    (group,) = [o for o in actions.create if o["kind"] == "PodGroup"]
    (policy,) = group["spec"]["subGroupPolicy"]
    assert (policy["subGroupSize"], policy["minSubGroups"]) == (size, min_sub_groups)
    assert policy["labelSelector"]["matchLabels"]["volcano.sh/task-spec"] == "task1"
    assert ("networkTopology" in policy) == ("networkTopology" in partition)


# -- TestRecordPodGroupEvent --------------------------------------------------------------------


def _condition(type_: str, at: str) -> dict[str, str]:
    return {"type": type_, "status": "True", "reason": "test reason", "message": "test message",
            "lastTransitionTime": at}  # fmt: skip


EARLY, MIDDLE, LATE = "2024-07-01T15:04:05Z", "2024-07-01T15:15:05Z", "2024-07-01T15:20:05Z"
PENDING_EVENT = ("Warning", "PodGroupPending",
                 "PodGroup default:job1 unschedulable, reason: test message")  # fmt: skip


@pytest.mark.parametrize(
    ("conditions", "want"),
    [
        pytest.param([], None, id="pg with no conditions"),
        pytest.param(
            [_condition("Unschedulable", EARLY)], PENDING_EVENT,
            id="pg with Unschedulable condition",
        ),
        pytest.param(
            [_condition("Unschedulable", MIDDLE), _condition("Scheduled", EARLY)], PENDING_EVENT,
            id="pg with Unschedulable later than Scheduled",
        ),
        pytest.param(
            [_condition("Unschedulable", MIDDLE), _condition("Scheduled", LATE)], None,
            id="pg with Scheduled later than Unschedulable ",
        ),
    ],
)  # fmt: skip
def test_record_pod_group_event(
    conditions: list[dict[str, str]], want: tuple[str, str, str] | None
) -> None:
    vcjob = job("job1", namespace="default", phase="Running")
    group = podgroup(f"job1-{UID}", phase="Running", namespace="default", conditions=conditions)
    actions = sync(vcjob, podgroups=[group])
    pending = [e for e in actions.events if e[1] == "PodGroupPending"]
    assert pending == ([want] if want else [])


# -- TestPodsToKill, TestKillPodsPodGroupDeletion -----------------------------------------------

RESTART_ON_FAILURE = {"event": "PodFailed"}


def _targeted_job(action: str, tasks: list[str]) -> Any:
    specs = [task(t, 2, policies=[{**RESTART_ON_FAILURE, "action": action}]) for t in tasks]
    return job("job1", phase="Running", tasks=specs, maxRetry=3)


def _pods(spec: dict[str, str], failed: str | None) -> list[Pod]:
    return [
        build_pod(name, "Failed" if name == failed else "Running", task_name, job_name="job1",
                  exit_code=1 if name == failed else None)
        for name, task_name in spec.items()
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("action", "pods", "failed", "command_action", "kept"),
    [
        pytest.param(
            "RestartTask",
            {"job1-task1-0": "task1", "job1-task1-1": "task1", "job1-task2-0": "task2"},
            "job1-task1-0", None, ["job1-task2-0"], id="KillPods with TargetTypeTask",
        ),
        pytest.param(
            "RestartPod", {"job1-task1-0": "task1", "job1-task1-1": "task1"},
            "job1-task1-0", None, ["job1-task1-1"], id="KillPods with TargetTypePod",
        ),
        pytest.param(
            "RestartTask", {"job1-task1-0": "task1"}, None, "RestartTask", ["job1-task1-0"],
            id="KillPods with non-existent task",
        ),
        pytest.param(
            "RestartPod", {"job1-task1-0": "task1"}, None, "RestartPod", ["job1-task1-0"],
            id="KillPods with non-existent pod",
        ),
    ],
)  # fmt: skip
def test_pods_to_kill(
    action: str, pods: dict[str, str], failed: str | None, command_action: str | None,
    kept: list[str],
) -> None:  # fmt: skip
    """The non-existent rows name no target: a Command carries none, as upstream's target of a
    task or pod the job does not have."""
    vcjob = _targeted_job(action, sorted(set(pods.values())))
    commands = [command(command_action, "job1")] if command_action else []
    actions = sync(vcjob, _pods(pods, failed), [podgroup(f"job1-{UID}", "Running")], commands)
    gone = {key.split("/", 1)[1] for key in deleted(actions, "Pod")}
    assert sorted(set(pods) - gone) == kept
    assert status_json(actions)["state"]["phase"] == "Restarting"


@pytest.mark.parametrize(
    ("action", "pg_gone"),
    [
        pytest.param("RestartJob", True, id="full job kill (target=nil) deletes PodGroup"),
        pytest.param("RestartPod", False, id="targeted pod restart (target!=nil) keeps PodGroup"),
    ],
)
def test_kill_pods_pod_group_deletion(action: str, pg_gone: bool) -> None:
    vcjob = _targeted_job(action, ["task1"])
    pods = _pods({"job1-task1-0": "task1"}, failed="job1-task1-0")
    actions = sync(vcjob, pods, [podgroup(f"job1-{UID}", "Running")])
    assert deleted(actions, "Pod") == [f"{NS}/job1-task1-0"]
    assert (deleted(actions, "PodGroup") == [f"{NS}/job1-{UID}"]) is pg_gone


# -- TestAppendJobCondition -----------------------------------------------------------------------


def _phases(status: dict[str, Any]) -> list[str]:
    return [c["status"] for c in status.get("conditions", [])]


@pytest.mark.parametrize(
    ("phase", "conditions", "pod_phase", "want"),
    [
        pytest.param("", [], "Pending", ["Pending"], id="Append to empty conditions"),
        pytest.param(
            "Running", ["Pending", "Running"], "Pending", ["Running", "Pending"],
            id="Replace existing condition with same phase",
        ),
        pytest.param(
            "Running", ["Pending", "Running"], "Succeeded", ["Pending", "Running", "Completed"],
            id="Append if phase is different",
        ),
    ],
)  # fmt: skip
def test_append_job_condition(
    phase: str, conditions: list[str], pod_phase: str, want: list[str]
) -> None:
    """``appendJobCondition`` through the transition that appends: a new job becoming Pending,
    a Running job whose pod went back to Pending, a Running job whose pod succeeded."""
    status = {"conditions": [{"status": c, "lastTransitionTime": "2024-07-01T14:00:00Z"}
                             for c in conditions]}  # fmt: skip
    vcjob = job("job1", phase=phase, tasks=[task("task1", 1)], minAvailable=1, status=status)
    pods = [build_pod("job1-task1-0", pod_phase, "task1", job_name="job1")]
    actions = sync(vcjob, pods, [podgroup(f"job1-{UID}", "Running")])
    assert _phases(status_json(actions)) == want
