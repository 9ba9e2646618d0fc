"""Volcano Job phase state machine: each phase and event (pods, Commands) → next phase and kills."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from shared.models import Command, Pod, VolcanoJob
from tests.unit.jobcontroller.statusjson import status_json
from tests.unit.jobcontroller.volcano_cases import (
    PG_NAME,
    all_running,
    command,
    deleted,
    phase_of,
    run,
    vcjob,
    vcpod,
)


@dataclass
class Case:
    id: str
    job: VolcanoJob
    pods: list[Pod] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    phase: str = ""
    deleted_pods: list[str] = field(default_factory=list)
    version: int = 0
    retry: int = 0
    pg_deleted: bool = False


def _done(succeeded: int, failed: int = 0) -> list[Pod]:
    pods = [vcpod("master", 0, "Succeeded")]
    pods += [vcpod("worker", i, "Succeeded") for i in range(succeeded - 1)]
    pods += [vcpod("worker", succeeded - 1 + i, "Failed") for i in range(failed)]
    return pods


CASES = [
    Case("pending-without-pods-stays-pending", vcjob(phase="Pending"), phase="Pending"),
    Case("pending-to-running-at-min-available", vcjob(phase="Pending"), all_running(),
         phase="Running"),
    Case("pending-stays-below-min-available", vcjob(phase="Pending"),
         [vcpod("master", 0), vcpod("worker", 0, "Pending"), vcpod("worker", 1, "Pending")],
         phase="Pending"),
    Case("running-to-completed-when-all-succeed", vcjob(phase="Running"), _done(3),
         phase="Completed"),
    Case("running-to-failed-when-done-below-min-available", vcjob(phase="Running"),
         _done(2, failed=1), phase="Failed"),
    Case("running-to-completed-at-min-success", vcjob(phase="Running", minSuccess=1),
         [vcpod("master", 0, "Succeeded"), vcpod("worker", 0), vcpod("worker", 1)],
         phase="Completed"),
    Case("running-stays-while-pods-run", vcjob(phase="Running"), all_running(), phase="Running"),
    Case("running-restartjob-kills-all-and-restarts", vcjob(phase="Running"),
         [vcpod("master", 0, "Succeeded"), vcpod("worker", 0), vcpod("worker", 1)],
         [command("RestartJob")], phase="Restarting",
         deleted_pods=["ns/train-master-0", "ns/train-worker-0", "ns/train-worker-1"],
         version=1, retry=1, pg_deleted=True),
    Case("running-abortjob-keeps-finished-pods", vcjob(phase="Running"),
         [vcpod("master", 0, "Succeeded"), vcpod("worker", 0), vcpod("worker", 1, "Failed")],
         [command("AbortJob")], phase="Aborting", deleted_pods=["ns/train-worker-0"],
         version=1, pg_deleted=True),
    Case("running-terminatejob", vcjob(phase="Running"), all_running(), [command("TerminateJob")],
         phase="Terminating",
         deleted_pods=["ns/train-master-0", "ns/train-worker-0", "ns/train-worker-1"],
         version=1, pg_deleted=True),
    Case("running-completejob", vcjob(phase="Running"), all_running(), [command("CompleteJob")],
         phase="Completing",
         deleted_pods=["ns/train-master-0", "ns/train-worker-0", "ns/train-worker-1"],
         version=1, pg_deleted=True),
    Case("pending-terminatejob", vcjob(phase="Pending"), [], [command("TerminateJob")],
         phase="Terminating", version=1, pg_deleted=True),
    Case("pending-restartjob-counts-a-retry", vcjob(phase="Pending"), [], [command("RestartJob")],
         phase="Restarting", version=1, retry=1, pg_deleted=True),
    Case("aborting-waits-for-live-pods", vcjob(phase="Aborting", version=1),
         [vcpod("worker", 0, deleting=True)], phase="Aborting", version=1, pg_deleted=True),
    Case("aborting-to-aborted-once-pods-are-gone", vcjob(phase="Aborting", version=1),
         [vcpod("worker", 1, "Failed")], phase="Aborted", version=2, pg_deleted=True),
    Case("aborted-resumejob-restarts", vcjob(phase="Aborted", version=2), [],
         [command("ResumeJob")], phase="Restarting", version=3, retry=1, pg_deleted=True),
    Case("aborted-ignores-other-commands", vcjob(phase="Aborted", version=2), [],
         [command("RestartJob")], phase="Aborted", version=2, pg_deleted=True),
    Case("restarting-waits-while-too-many-terminate", vcjob(phase="Restarting", version=1, retry=1),
         [vcpod("worker", 0, deleting=True), vcpod("worker", 1, deleting=True)],
         phase="Restarting", version=1, retry=1),
    Case("restarting-to-pending-once-pods-are-gone",
         vcjob(phase="Restarting", version=1, retry=1), phase="Pending", version=1, retry=1),
    Case("restarting-fails-at-max-retry", vcjob(phase="Restarting", version=3, retry=3),
         phase="Failed", version=3, retry=3),
    Case("restarting-kills-live-pods-again", vcjob(phase="Restarting", version=1, retry=1),
         [vcpod("master", 0, version=0)], [command("AbortJob")], phase="Restarting",
         deleted_pods=["ns/train-master-0"], version=2, retry=1, pg_deleted=True),
    Case("completing-to-completed-when-drained", vcjob(phase="Completing", version=1),
         [vcpod("master", 0, "Succeeded")], phase="Completed", version=2, pg_deleted=True),
    Case("completing-kills-running-pods", vcjob(phase="Completing", version=1),
         [vcpod("master", 0, "Succeeded"), vcpod("worker", 0)], phase="Completing",
         deleted_pods=["ns/train-worker-0"], version=2, pg_deleted=True),
    Case("terminating-to-terminated-when-drained", vcjob(phase="Terminating", version=1), [],
         phase="Terminated", version=2, pg_deleted=True),
    Case("completed-is-final", vcjob(phase="Completed", version=1), _done(3),
         [command("RestartJob")], phase="Completed", version=1, pg_deleted=True),
    Case("failed-is-final", vcjob(phase="Failed", version=1), [], [command("ResumeJob")],
         phase="Failed", version=1, pg_deleted=True),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_phase_transition(case: Case) -> None:
    actions = run(case.job, case.pods, commands=case.commands)
    assert phase_of(actions) == case.phase
    assert deleted(actions) == case.deleted_pods
    assert actions.status is not None
    assert status_json(actions).get("version", 0) == case.version
    assert status_json(actions).get("retryCount", 0) == case.retry
    assert (f"ns/{PG_NAME}" in deleted(actions, "PodGroup")) == case.pg_deleted
    if case.phase != case.job.status.state.phase:
        assert status_json(actions)["conditions"][-1] == {
            "status": case.phase,
            "lastTransitionTime": "2024-05-01T10:00:00Z",
        }


def test_restart_bumps_version_for_new_pods() -> None:
    job = vcjob(phase="Pending", version=1, retry=1)
    pods = [p for p in run(job).create if p["kind"] == "Pod"]
    assert {p["metadata"]["annotations"]["volcano.sh/job-version"] for p in pods} == {"1"}
    assert {p["metadata"]["annotations"]["volcano.sh/job-retry-count"] for p in pods} == {"1"}


def test_kill_records_running_duration_from_creation() -> None:
    actions = run(vcjob(phase="Running"), all_running(), commands=[command("AbortJob")])
    assert status_json(actions)["runningDuration"] == "10m0s"
