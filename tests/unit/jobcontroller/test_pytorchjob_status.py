"""PyTorchJob conditions, restart policies and runPolicy (cleanPodPolicy, backoffLimit,
activeDeadlineSeconds, suspend, TTL, managedBy) and unsatisfied expectations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from shared.kube.timefmt import format_rfc3339
from shared.models import Pod, PyTorchJob
from tests.unit.jobcontroller.pytorch_cases import (
    NOW,
    STAMP,
    all_services,
    condition,
    conditions_of,
    deleted,
    ptjob,
    ptpod,
    run,
)
from tests.unit.jobcontroller.statusjson import status_json

CREATED = ("True", "PyTorchJobCreated")


@dataclass
class Case:
    id: str
    job: PyTorchJob
    pods: list[Pod]
    conditions: dict[str, tuple[str, str]]
    deleted_pods: list[str] = field(default_factory=list)
    replica: tuple[str, int, int, int] | None = None  # type, active, succeeded, failed


def live(workers: str = "Running", master: str = "Running") -> list[Pod]:
    return [ptpod("master", 0, master), ptpod("worker", 0, workers), ptpod("worker", 1, workers)]


CASES = [
    Case("created-on-first-sync", ptjob(), [], {"Created": CREATED}),
    Case("master-running-means-running", ptjob(), live(),
         {"Created": CREATED, "Running": ("True", "PyTorchJobRunning")},
         replica=("Master", 1, 0, 0)),
    Case("master-succeeded-means-succeeded", ptjob(conditions=[condition("Running")]),
         live(master="Succeeded"),
         {"Created": CREATED, "Running": ("False", "PyTorchJobRunning"),
          "Succeeded": ("True", "PyTorchJobSucceeded")}),
    Case("workers-only-all-succeeded", ptjob(master=None), live(workers="Succeeded")[1:],
         {"Created": CREATED, "Succeeded": ("True", "PyTorchJobSucceeded")}),
    Case("workers-only-running", ptjob(master=None), live()[1:],
         {"Created": CREATED, "Running": ("True", "PyTorchJobRunning")}),
    Case("onfailure-failed-pod-is-recreated", ptjob(),
         [ptpod("master", 0), ptpod("worker", 0), ptpod("worker", 1, "Failed", exit_code=1)],
         {"Created": CREATED, "Restarting": ("True", "PyTorchJobRestarting")},
         ["ml/ddp-worker-1"], ("Worker", 1, 0, 1)),
    Case("exitcode-retryable-signal-is-recreated", ptjob(worker_restart="ExitCode"),
         [ptpod("master", 0), ptpod("worker", 0), ptpod("worker", 1, "Failed", exit_code=137)],
         {"Created": CREATED, "Restarting": ("True", "PyTorchJobRestarting")},
         ["ml/ddp-worker-1"]),
    Case("exitcode-permanent-error-fails-the-job", ptjob(worker_restart="ExitCode"),
         [ptpod("master", 0), ptpod("worker", 0), ptpod("worker", 1, "Failed", exit_code=1)],
         {"Created": CREATED, "Running": ("False", "PyTorchJobRunning"),
          "Failed": ("True", "PyTorchJobFailed")}),
    Case("never-failed-pod-fails-the-job", ptjob(restart="Never"),
         [ptpod("master", 0, "Failed", exit_code=2), ptpod("worker", 0), ptpod("worker", 1)],
         {"Created": CREATED, "Failed": ("True", "PyTorchJobFailed")}),
    Case("backoff-limit-reached-by-container-restarts", ptjob(backoffLimit=3),
         [ptpod("master", 0, restarts=2), ptpod("worker", 0, restarts=1), ptpod("worker", 1)],
         {"Created": CREATED, "Failed": ("True", "PyTorchJobFailed")}),
    Case("backoff-limit-not-reached", ptjob(backoffLimit=4),
         [ptpod("master", 0, restarts=2), ptpod("worker", 0, restarts=1), ptpod("worker", 1)],
         {"Created": CREATED, "Running": ("True", "PyTorchJobRunning")}),
    Case("active-deadline-exceeded", ptjob(activeDeadlineSeconds=60,
                                           status={"startTime": format_rfc3339(NOW - 61)}),
         live(), {"Created": CREATED, "Failed": ("True", "PyTorchJobFailed")}),
    Case("active-deadline-cleans-pods-per-policy",
         ptjob(activeDeadlineSeconds=60, cleanPodPolicy="All",
               status={"startTime": format_rfc3339(NOW - 61)}),
         live(), {"Created": CREATED, "Failed": ("True", "PyTorchJobFailed")},
         ["ml/ddp-master-0", "ml/ddp-worker-0", "ml/ddp-worker-1"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_conditions(case: Case) -> None:
    actions = run(case.job, case.pods, services=all_services())
    assert conditions_of(actions) == case.conditions
    assert deleted(actions) == case.deleted_pods
    if case.replica is not None:
        type_, active, succeeded, failed = case.replica
        assert actions.status is not None
        got = status_json(actions)["replicaStatuses"][type_]
        assert (got["active"], got["succeeded"], got["failed"]) == (active, succeeded, failed)


@pytest.mark.parametrize(
    ("policy", "deleted_pods"),
    [
        (None, []),
        ("None", []),
        ("Running", ["ml/ddp-worker-0"]),
        ("All", ["ml/ddp-master-0", "ml/ddp-worker-0", "ml/ddp-worker-1"]),
    ],
    ids=["default-none", "none", "running", "all"],
)
def test_clean_pod_policy_after_success(policy: str | None, deleted_pods: list[str]) -> None:
    extra: dict[str, Any] = {"cleanPodPolicy": policy} if policy else {}
    job = ptjob(conditions=[condition("Created"), condition("Succeeded")], **extra)
    pods = [ptpod("master", 0, "Succeeded"), ptpod("worker", 0), ptpod("worker", 1, "Failed")]
    actions = run(job, pods, services=all_services())
    assert deleted(actions) == deleted_pods
    assert deleted(actions, "Service") == deleted_pods


@pytest.mark.parametrize(
    ("elapsed", "delete_job", "requeue"), [(10.0, False, 20.0), (30.0, True, None)],
    ids=["before-ttl", "ttl-elapsed"],
)  # fmt: skip
def test_ttl_after_finished(elapsed: float, delete_job: bool, requeue: float | None) -> None:
    job = ptjob(ttlSecondsAfterFinished=30, conditions=[condition("Succeeded")],
                status={"completionTime": STAMP})  # fmt: skip
    actions = run(job, now=NOW + elapsed)
    assert actions.delete_job is delete_job
    assert actions.requeue_after == requeue


def test_suspend_deletes_everything_and_marks_suspended() -> None:
    job = ptjob(suspend=True, conditions=[condition("Created"), condition("Running")])
    actions = run(job, live(), services=all_services())
    assert deleted(actions) == ["ml/ddp-master-0", "ml/ddp-worker-0", "ml/ddp-worker-1"]
    assert len(deleted(actions, "Service")) == 3
    assert conditions_of(actions) == {
        "Created": CREATED,
        "Running": ("False", "PyTorchJobSuspended"),
        "Suspended": ("True", "PyTorchJobSuspended"),
    }


def test_resume_clears_suspended_and_restarts_the_clock() -> None:
    job = ptjob(conditions=[condition("Created"), condition("Suspended")],
                status={"startTime": format_rfc3339(NOW - 999)})  # fmt: skip
    actions = run(job)
    assert conditions_of(actions)["Suspended"] == ("False", "PyTorchJobResumed")
    assert status_json(actions)["startTime"] == STAMP
    assert len([o for o in actions.create if o["kind"] == "Pod"]) == 3


@pytest.mark.parametrize(
    ("managed_by", "acts"),
    [(None, True), ("kubeflow.org/training-operator", True), ("kueue.x-k8s.io/multikueue", False)],
    ids=["unset", "training-operator", "other-controller"],
)
def test_managed_by(managed_by: str | None, acts: bool) -> None:
    extra: dict[str, Any] = {"managedBy": managed_by} if managed_by else {}
    actions = run(ptjob(**extra))
    assert (actions.status is not None) is acts
    assert bool(actions.create) is acts


def test_unsatisfied_expectations_only_refresh_status() -> None:
    pods = [ptpod("master", 0, "Succeeded"), ptpod("worker", 1, "Failed", exit_code=1)]
    actions = run(ptjob(), pods, satisfied=False)
    assert actions.create == [] and actions.delete == []
    assert "Succeeded" not in conditions_of(actions)
    assert actions.status is not None
    assert status_json(actions)["replicaStatuses"]["Master"]["succeeded"] == 1
