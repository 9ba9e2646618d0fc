"""volcano ``pkg/controllers/job/job_state_test.go``, ported: the ``Test<Phase>State_Execute``
tables, each row under its upstream name.

Upstream builds a ``JobInfo`` (the job and its pods by task) and calls
``state.NewState(jobInfo).Execute(action)`` with the real ``KillJob``/``SyncJob`` of a fake
controller, then reads the phase the job was left in. Here the same job and pods go through
Shoal's reconcile once: a user action (RestartJob, AbortJob, ...) arrives as the bus Command
that carries it, ``EnqueueAction`` as the job's PodGroup being Inqueue, and ``SyncJobAction``
as a plain sync. The job's pods carry the task annotation that stands for upstream's
``JobInfo.Pods[task]`` index. The assertions are upstream's, including those it makes only
under a condition on the input (``MinAvailable <= Running + Succeeded + Failed``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from services.jobcontroller.core import Observed
from services.jobcontroller.volcanojob import reconcile
from shared.kube.timefmt import format_rfc3339
from shared.models import Command, PodGroup, VolcanoJob, convert
from shared.models import Pod as PodModel
from tests.unit.jobcontroller.statusjson import status_json

NOW = 1_714_557_600.0
NS = "test"
UID = "job-uid"


@dataclass
class StateCase:
    """One row: the job's spec and status, its pods by task, the action executed."""

    phase: str
    action: str
    status: dict[str, Any] = field(default_factory=dict)
    spec: dict[str, Any] = field(default_factory=dict)
    pods: dict[str, str] = field(default_factory=dict)  # name → phase, all of task1
    name: str = "Job1"


def _job(case: StateCase) -> VolcanoJob:
    # Upstream's literals carry no webhook defaults: minAvailable and maxRetry are 0 unless set.
    spec = {"minAvailable": 0, "tasks": [], **case.spec}
    status = {**case.status, "state": {"phase": case.phase}}
    body = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": case.name, "namespace": NS, "uid": UID,
                         "resourceVersion": "100"},
            "spec": spec, "status": status}  # fmt: skip
    return convert(body, VolcanoJob)


def _pod(case: StateCase, name: str, phase: str) -> PodModel:
    """``buildPod`` (controlled by the job), in ``JobInfo.Pods["task1"]``."""
    meta = {"name": name, "namespace": NS, "uid": f"{NS}-{name}",
            "annotations": {"foo": "bar", "volcano.sh/task-spec": "task1",
                            "volcano.sh/job-name": case.name},
            "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                 "name": case.name, "uid": UID, "controller": True}]}  # fmt: skip
    spec = {"containers": [{"name": "nginx", "image": "nginx:latest"}]}
    return convert({"metadata": meta, "spec": spec, "status": {"phase": phase}}, PodModel)


def execute(case: StateCase) -> dict[str, Any]:
    """Execute the row's action on its job once; the job's status afterwards."""
    job = _job(case)
    group = {"metadata": {"name": f"{case.name}-{UID}", "namespace": NS},
             "spec": {"minMember": 0}, "status": {"phase": "Inqueue"}}  # fmt: skip
    commands = []
    if case.action not in ("EnqueueJob", "SyncJob"):
        body = {"metadata": {"name": "cmd", "namespace": NS,
                             "creationTimestamp": format_rfc3339(NOW - 1)},
                "action": case.action,
                "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                           "name": case.name, "uid": UID}}  # fmt: skip
        commands.append(convert(body, Command))
    observed = Observed(
        pods=[_pod(case, name, phase) for name, phase in case.pods.items()],
        podgroups=[convert(group, PodGroup)],
        commands=commands,
    )
    return status_json(reconcile(job, observed, NOW))


RUNNING_2 = {"pod1": "Running", "pod2": "Running"}


def _task(replicas: int) -> dict[str, Any]:
    return {"name": "task1", "replicas": replicas, "template": {"metadata": {"name": "task1"}}}


# --- TestAbortedState_Execute, TestAbortingState_Execute ------------------------------------------

ABORTED: dict[str, StateCase] = {
    "AbortedState-ResumeAction case": StateCase("Aborted", "ResumeJob"),
    "AbortedState-AnyOtherAction case": StateCase("Aborted", "RestartJob"),
}
ABORTING: dict[str, StateCase] = {
    "AbortedState-ResumeAction case": StateCase("Aborting", "ResumeJob"),
    "AbortedState-AnyOtherAction case with pods count equal to 0": StateCase(
        "Aborting", "RestartJob"
    ),
    "AbortedState-AnyOtherAction case with Pods count not equal to 0": StateCase(
        "Aborting", "RestartJob", status={"pending": 1}, pods={"pod1": "Pending"}
    ),
}


@pytest.mark.parametrize("case", list(ABORTED.values()), ids=list(ABORTED))
def test_aborted_state_execute(case: StateCase) -> None:
    status = execute(case)
    if case.action == "ResumeJob":
        assert status["state"]["phase"] == "Restarting"


@pytest.mark.parametrize("case", list(ABORTING.values()), ids=list(ABORTING))
def test_aborting_state_execute(case: StateCase) -> None:
    status = execute(case)
    if case.action == "ResumeJob":
        assert status.get("retryCount", 0) != 0
    else:
        drained = not any(case.status.get(k) for k in ("pending", "running", "terminating"))
        assert status["state"]["phase"] == ("Aborted" if drained else "Aborting")


# --- TestCompletingState_Execute, TestFinishedState_Execute, TestTerminatingState_Execute ---------

COMPLETING: dict[str, StateCase] = {
    "CompletingState- With pod count not equal to zero": StateCase(
        "Completing", "ResumeJob", status={"running": 2}, pods=RUNNING_2
    ),
    "CompletingState- With pod count equal to zero": StateCase("Completing", "ResumeJob"),
}
TERMINATING: dict[str, StateCase] = {
    "TerminatingState- With pod count not equal to zero": StateCase(
        "Terminating", "TerminateJob", status={"running": 2}, pods=RUNNING_2
    ),
    # Upstream names both rows the same; the second has no pods.
    "TerminatingState- With pod count not equal to zero (second row: no pods)": StateCase(
        "Terminating", "TerminateJob"
    ),
}


def _drained(case: StateCase) -> bool:
    return not any(case.status.get(k) for k in ("running", "pending", "terminating"))


@pytest.mark.parametrize("case", list(COMPLETING.values()), ids=list(COMPLETING))
def test_completing_state_execute(case: StateCase) -> None:
    phase = execute(case)["state"]["phase"]
    assert phase == ("Completed" if _drained(case) else "Completing")


def test_finished_state_execute() -> None:
    # "FinishedState Test Case": upstream only checks Execute returns no error; a finished job
    # stays where it is.
    status = execute(StateCase("Completed", "ResumeJob"))
    assert status["state"]["phase"] == "Completed"


@pytest.mark.parametrize("case", list(TERMINATING.values()), ids=list(TERMINATING))
def test_terminating_state_execute(case: StateCase) -> None:
    phase = execute(case)["state"]["phase"]
    assert phase == ("Terminated" if _drained(case) else "Terminating")


# --- TestPendingState_Execute, TestRunningState_Execute -------------------------------------------

FIRST_PHASE = {
    "RestartJob": "Restarting",
    "AbortJob": "Aborting",
    "TerminateJob": "Terminating",
    "CompleteJob": "Completing",
}
PENDING: dict[str, StateCase] = {
    "PendingState- RestartJobAction case With terminating pod count equal to zero": StateCase(
        "Pending", "RestartJob"
    ),
    "PendingState- RestartJobAction case With terminating pod count not equal to zero": StateCase(
        "Pending", "RestartJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "PendingState- AbortJobAction case With terminating pod count equal to zero": StateCase(
        "Pending", "AbortJob"
    ),
    "PendingState- AbortJobAction case With terminating pod count not equal to zero": StateCase(
        "Pending", "AbortJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "PendingState- TerminateJobAction case With terminating pod count not equal to zero": StateCase(
        "Pending", "TerminateJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "PendingState- CompleteJobAction case With terminating pod count equal to zero": StateCase(
        "Pending", "CompleteJob"
    ),
    "PendingState- CompleteJobAction case With terminating pod count not equal to zero": StateCase(
        "Pending", "CompleteJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "PendingState- EnqueueAction case With Min Available equal to running pods": StateCase(
        "Pending", "EnqueueJob", spec={"minAvailable": 3}, status={"running": 3},
        pods={**RUNNING_2, "pod3": "Running"},
    ),
    "PendingState- EnqueueAction case With Min Available not equal to running pods": StateCase(
        "Pending", "EnqueueJob", spec={"minAvailable": 3}, status={"running": 2}, pods=RUNNING_2
    ),
    "PendingState- Default case With Min Available equal to running pods": StateCase(
        "Pending", "SyncJob", spec={"minAvailable": 3}, status={"running": 2}, pods=RUNNING_2
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(PENDING.values()), ids=list(PENDING))
def test_pending_state_execute(case: StateCase) -> None:
    status = execute(case)
    phase = status["state"]["phase"]
    if case.action in FIRST_PHASE:
        assert phase == FIRST_PHASE[case.action]
    elif case.action == "EnqueueJob":
        counted = sum(status.get(k, 0) for k in ("running", "succeeded", "failed"))
        if case.spec["minAvailable"] <= counted:
            assert phase == "Running"
    else:
        assert phase == "Pending"


RUNNING: dict[str, StateCase] = {
    "RunningState- RestartJobAction case and Terminating Pods not equal to 0": StateCase(
        "Running", "RestartJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "RunningState- RestartJobAction case and Terminating Pods equal to 0": StateCase(
        "Running", "RestartJob"
    ),
    "RunningState- AbortAction case and Terminating Pods equal to 0": StateCase(
        "Running", "AbortJob"
    ),
    "RunningState- AbortAction case and Terminating Pods not equal to 0": StateCase(
        "Running", "AbortJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "RunningState- TerminateJobAction case and Terminating Pods equal to 0": StateCase(
        "Running", "TerminateJob"
    ),
    "RunningState- TerminateJobAction case and Terminating Pods not equal to 0": StateCase(
        "Running", "TerminateJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "RunningState- CompleteJobAction case and Terminating Pods equal to 0": StateCase(
        "Running", "CompleteJob"
    ),
    "RunningState- CompleteJobAction case and Terminating Pods not equal to 0": StateCase(
        "Running", "CompleteJob", status={"terminating": 2}, pods=RUNNING_2
    ),
    "RunningState- Default case and Total is equal to failed+succeeded": StateCase(
        "Running", "SyncJob", name="job1", spec={"tasks": [_task(2)]},
        status={"succeeded": 2},
        pods={"job1-task1-0": "Succeeded", "job1-task1-1": "Succeeded"},
    ),
    "RunningState- Default case and Total is not equal to failed+succeeded": StateCase(
        "Running", "SyncJob", name="job1", spec={"tasks": [_task(2)]},
        status={"succeeded": 1}, pods={"job1-task1-0": "Succeeded"},
    ),
    "RunningState- Default case and running back to pending When pending equal to total": StateCase(
        "Running", "SyncJob", name="job1", spec={"minAvailable": 3, "tasks": [_task(5)]},
        status={"pending": 5}, pods={f"job1-task1-{i}": "Pending" for i in range(5)},
    ),
    (
        "RunningState- Default case and running back to pending When pods status "
        "pending>(total-minAvailable)"
    ): StateCase(
        "Running", "SyncJob", name="job1", spec={"minAvailable": 3, "tasks": [_task(5)]},
        status={"pending": 3, "running": 2},
        pods={"job1-task1-0": "Running", "job1-task1-1": "Running", "job1-task1-2": "Pending",
              "job1-task1-3": "Pending", "job1-task1-4": "Pending"},
    ),
    (
        "RunningState- Default case and keep running When pods status "
        "pending<=(total-minAvailable)"
    ): StateCase(
        "Running", "SyncJob", name="job1", spec={"minAvailable": 3, "tasks": [_task(5)]},
        status={"pending": 2, "running": 1, "succeeded": 1, "failed": 1},
        pods={"job1-task1-0": "Running", "job1-task1-1": "Succeeded", "job1-task1-2": "Failed",
              "job1-task1-3": "Pending", "job1-task1-4": "Pending"},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(RUNNING.values()), ids=list(RUNNING))
def test_running_state_execute(case: StateCase) -> None:
    phase = execute(case)["state"]["phase"]
    if case.action in FIRST_PHASE:
        assert phase == FIRST_PHASE[case.action]
        return
    total = sum(t["replicas"] for t in case.spec.get("tasks", []))
    done = case.status.get("succeeded", 0) + case.status.get("failed", 0)
    if total == done:
        assert phase == "Completed"
    elif case.status.get("pending", 0) > total - case.spec.get("minAvailable", 0):
        assert phase == "Pending"
    else:
        assert phase == "Running"


# --- TestRestartingState_Execute ------------------------------------------------------------------

RESTARTING: dict[str, StateCase] = {
    "RestartingState- RetryCount is equal to or greater than MaxRetry": StateCase(
        "Restarting", "RestartJob", spec={"maxRetry": 3}, status={"retryCount": 3}
    ),
    "RestartingState- RetryCount is less than MaxRetry": StateCase(
        "Restarting", "RestartJob",
        spec={"maxRetry": 3, "tasks": [{**_task(1), "name": "task1"},
                                       {**_task(1), "name": "task2"}]},
        status={"retryCount": 1, "minAvailable": 1, "terminating": 0},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(RESTARTING.values()), ids=list(RESTARTING))
def test_restarting_state_execute(case: StateCase) -> None:
    phase = execute(case)["state"]["phase"]
    retries_left = case.spec["maxRetry"] > case.status.get("retryCount", 0)
    assert phase == ("Pending" if retries_left else "Failed")
