"""Volcano Job lifecycle policies, maxRetry, Commands, expectations and TTL."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from shared.models import Json, Pod, VolcanoJob
from tests.unit.jobcontroller.statusjson import status_json
from tests.unit.jobcontroller.volcano_cases import (
    NOW,
    command,
    created_names,
    deleted,
    phase_of,
    run,
    vcjob,
    vcpod,
)


def policy(event: str, action: str, **extra: object) -> Json:
    return {"event": event, "action": action, **extra}


@dataclass
class Case:
    id: str
    job: VolcanoJob
    pods: list[Pod]
    phase: str
    deleted_pods: list[str] = field(default_factory=list)
    pg: str = "Inqueue"
    requeue_after: float | None = None


RUNNING_POD_FAILED = [
    vcpod("master", 0),
    vcpod("worker", 0),
    vcpod("worker", 1, "Failed", exit_code=3),
]
ALL_LIVE = ["ns/train-master-0", "ns/train-worker-0", "ns/train-worker-1"]

CASES = [
    Case("no-policy-a-failed-pod-is-just-counted", vcjob(phase="Running"), RUNNING_POD_FAILED,
         "Running"),
    Case("job-policy-podfailed-restartjob",
         vcjob(phase="Running", policies=[policy("PodFailed", "RestartJob")]),
         RUNNING_POD_FAILED, "Restarting", ALL_LIVE),
    Case("task-policy-overrides-job-policy",
         vcjob(phase="Running", policies=[policy("PodFailed", "RestartJob")],
               task_policies={"worker": [policy("PodFailed", "AbortJob")]}),
         RUNNING_POD_FAILED, "Aborting", ["ns/train-master-0", "ns/train-worker-0"]),
    Case("any-event-wildcard", vcjob(phase="Running", policies=[policy("*", "TerminateJob")]),
         RUNNING_POD_FAILED, "Terminating", ["ns/train-master-0", "ns/train-worker-0"]),
    Case("exit-code-policy-matches",
         vcjob(phase="Running", policies=[{"exitCode": 3, "action": "AbortJob"}]),
         RUNNING_POD_FAILED, "Aborting", ["ns/train-master-0", "ns/train-worker-0"]),
    Case("exit-code-policy-other-code-ignored",
         vcjob(phase="Running", policies=[{"exitCode": 4, "action": "AbortJob"}]),
         RUNNING_POD_FAILED, "Running"),
    Case("failed-pod-of-an-older-version-is-stale",
         vcjob(phase="Running", version=1, policies=[policy("PodFailed", "RestartJob")]),
         [vcpod("master", 0, version=1), vcpod("worker", 0, version=1),
          vcpod("worker", 1, "Failed", version=0)], "Running"),
    Case("task-completed-completes-the-job",
         vcjob(phase="Running", task_policies={"master": [policy("TaskCompleted", "CompleteJob")]}),
         [vcpod("master", 0, "Succeeded"), vcpod("worker", 0), vcpod("worker", 1)], "Completing",
         ["ns/train-worker-0", "ns/train-worker-1"]),
    Case("evicted-pod-restarts-the-job",
         vcjob(phase="Running", policies=[policy("PodEvicted", "RestartJob")]),
         [vcpod("master", 0), vcpod("worker", 0), vcpod("worker", 1, deleting=True)],
         "Restarting", ["ns/train-master-0", "ns/train-worker-0"]),
    Case("restart-task-kills-only-that-task",
         vcjob(phase="Running", task_policies={"worker": [policy("PodFailed", "RestartTask")]}),
         RUNNING_POD_FAILED, "Restarting", ["ns/train-worker-0", "ns/train-worker-1"]),
    Case("task-failed-after-max-retry-restarts",
         vcjob(phase="Running", policies=[policy("TaskFailed", "AbortJob")]),
         [vcpod("master", 0), vcpod("worker", 0, restarts=3), vcpod("worker", 1)], "Aborting",
         ALL_LIVE),
    Case("podgroup-unknown-raises-jobunknown",
         vcjob(phase="Running", policies=[policy("JobUnknown", "RestartJob")]),
         [vcpod("master", 0), vcpod("worker", 0), vcpod("worker", 1)], "Restarting", ALL_LIVE,
         pg="Unknown"),
    Case("timeout-not-yet-elapsed-requeues",
         vcjob(phase="Running", policies=[policy("PodFailed", "RestartJob", timeout="2m")]),
         RUNNING_POD_FAILED, "Running", requeue_after=90.0),
    Case("timeout-elapsed-fires",
         vcjob(phase="Running", policies=[policy("PodFailed", "RestartJob", timeout="10s")]),
         RUNNING_POD_FAILED, "Restarting", ALL_LIVE),
    Case("pending-pod-timeout",
         vcjob(phase="Pending", policies=[policy("PodPending", "AbortJob", timeout="20s")]),
         [vcpod("master", 0, "Pending")], "Aborting", ["ns/train-master-0"]),
    Case("last-retry-keeps-failed-pods",
         vcjob(phase="Running", retry=2, policies=[policy("PodFailed", "RestartJob")]),
         RUNNING_POD_FAILED, "Restarting", ["ns/train-master-0", "ns/train-worker-0"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_policy(case: Case) -> None:
    actions = run(case.job, case.pods, pg=case.pg)
    assert phase_of(actions) == case.phase
    assert deleted(actions) == case.deleted_pods
    assert actions.requeue_after == case.requeue_after


@pytest.mark.parametrize(
    ("max_retry", "phase"), [(None, "Pending"), (1, "Failed")], ids=["default-3", "max-retry-1"]
)
def test_max_retry_fails_a_restarting_job(max_retry: int | None, phase: str) -> None:
    spec: dict[str, Any] = {"maxRetry": max_retry} if max_retry else {}
    actions = run(vcjob(phase="Restarting", version=1, retry=1, **spec))
    assert phase_of(actions) == phase


@pytest.mark.parametrize(
    "action", ["AbortJob", "ResumeJob", "RestartJob", "TerminateJob", "CompleteJob"]
)
def test_commands_are_consumed(action: str) -> None:
    actions = run(vcjob(phase="Running"), [vcpod("master", 0)], commands=[command(action)])
    assert actions.consumed_commands == ["ns/cmd-1"]
    assert ("Normal", "ExecuteAction", f"Start to execute action {action} ") in actions.events


def test_one_command_per_sync_and_others_ignored() -> None:
    commands = [command("AbortJob", "b"), command("RestartJob", "a"), command("X", "c", "other")]
    actions = run(vcjob(phase="Running"), commands=commands)
    assert actions.consumed_commands == ["ns/a"]
    assert actions.requeue_after == 0.0
    assert phase_of(actions) == "Restarting"


def test_unsatisfied_expectations_update_status_only() -> None:
    job = vcjob(phase="Running", policies=[policy("PodFailed", "RestartJob")])
    pods = [vcpod("master", 0, "Succeeded"), vcpod("worker", 0, "Failed")]
    actions = run(job, pods, commands=[command("AbortJob")], satisfied=False)
    assert actions.create == [] and actions.delete == []
    assert actions.consumed_commands == []
    assert phase_of(actions) == "Running"
    assert actions.status is not None
    assert (status_json(actions)["succeeded"], status_json(actions)["failed"]) == (1, 1)


def test_unsatisfied_expectations_never_finish() -> None:
    pods = [vcpod("master", 0, "Succeeded")] + [vcpod("worker", i, "Succeeded") for i in range(2)]
    assert phase_of(run(vcjob(phase="Running"), pods, satisfied=False)) == "Running"
    assert phase_of(run(vcjob(phase="Running"), pods, satisfied=True)) == "Completed"


def test_unsatisfied_expectations_create_nothing() -> None:
    actions = run(vcjob(phase="Pending"), satisfied=False)
    assert created_names(actions) == [] and actions.create == []


@pytest.mark.parametrize(
    ("elapsed", "delete_job", "requeue"),
    [(59.0, False, 1.0), (60.0, True, None)],
    ids=["before-ttl", "ttl-elapsed"],
)
def test_ttl_after_finished(elapsed: float, delete_job: bool, requeue: float | None) -> None:
    job = vcjob(phase="Completed", ttlSecondsAfterFinished=120)
    actions = run(job, pg=None, now=NOW + elapsed)
    assert actions.delete_job is delete_job
    assert actions.requeue_after == requeue
