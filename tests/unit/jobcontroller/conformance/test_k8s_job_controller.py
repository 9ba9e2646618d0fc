"""kubernetes ``pkg/controller/job/job_controller_test.go``, ported: ``TestControllerSyncJob``.

Each row is an upstream case under its upstream name (the stored upstream file is at commit
003e86297d18a8538c9da3619871393f9703bf70), with upstream's inputs and expectations. Shoal
runs as Kubernetes does with the Job feature gates on (JobPodReplacementPolicy,
JobSuccessPolicy, JobManagedBy, PodIndexLabel): rows that turn a gate off are ported with the
gate-on expectation, and say so in ``adapted`` — the terminal condition follows its interim one
(SuccessCriteriaMet/FailureTarget, reason ``CompletionsReached`` for completions) and
``terminating`` is counted. Cases that cannot be expressed are listed in
docs/compatibility.md with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.unit.jobcontroller.conformance.k8s_job_cases import (
    INDEX,
    PodBuilder,
    built_pods,
    cond_json,
    conditions_of,
    job_of,
    my_pod,
    new_job,
    pod_statuses,
    pods_with_indexes,
    run,
    stamp,
    terminated,
    whole_status,
)
from tests.unit.jobcontroller.statusjson import status_json

Cond = tuple[str, str, str, str]
BACKOFF_MSG = "Job has reached the specified backoff limit"
FAILED_BACKOFF: Cond = ("Failed", "True", "BackoffLimitExceeded", BACKOFF_MSG)
TARGET_BACKOFF: Cond = ("FailureTarget", "True", "BackoffLimitExceeded", BACKOFF_MSG)
REACHED_MSG = "Reached expected number of succeeded pods"
CRITERIA_MET: Cond = ("SuccessCriteriaMet", "True", "CompletionsReached", REACHED_MSG)
COMPLETE: Cond = ("Complete", "True", "CompletionsReached", REACHED_MSG)
SUSPENDED: Cond = ("Suspended", "True", "JobSuspended", "Job suspended")
RESUMED: Cond = ("Suspended", "False", "JobResumed", "Job resumed")
GATE_OFF_COMPLETE = (
    "gates off upstream: Complete (no reason) alone; gate on: SuccessCriteriaMet first"
)
GATE_OFF_FAILED = "gates off upstream: Failed alone; gate on: FailureTarget first"


@dataclass
class SyncJobCase:
    """A row of ``TestControllerSyncJob`` (upstream's field names, snake_case)."""

    parallelism: int
    completions: int
    backoff_limit: int = 0
    deleting: bool = False
    completion_mode: str = ""
    was_suspended: bool = False
    suspend: bool = False
    pod_replacement_policy: str | None = None
    pod_failure_policy: dict[str, object] | None = None
    initial_status: dict[str, Any] | None = None
    fake_expectation_at_creation: int = 0
    pending_pods: int = 0
    active_pods: int = 0
    ready_pods: int = 0
    succeeded_pods: int = 0
    failed_pods: int = 0
    terminating_pods: int = 0
    pods_with_indexes: list[tuple[str, str]] = field(default_factory=list)
    expected_creations: int = 0
    expected_deletions: int = 0
    expected_active: int = 0
    expected_ready: int | None = None
    expected_succeeded: int = 0
    expected_completed_idxs: str = ""
    expected_failed: int = 0
    expected_terminating: int | None = None
    expected_conditions: list[Cond] = field(default_factory=list)
    expected_created_indexes: set[int] | None = None
    expected_pod_patches: int = 0
    job_pod_replacement_policy: bool = False
    # Upstream's record of failures in the controller's memory, as (failures, seconds ago);
    # Shoal derives it from the failed pods, so only an empty record is expressible.
    adapted: str = ""


CASES: dict[str, SyncJobCase] = {
    "job start": SyncJobCase(2, 5, 6, expected_creations=2, expected_active=2, expected_ready=0),
    "WQ job start": SyncJobCase(
        2, -1, 6, expected_creations=2, expected_active=2, expected_ready=0
    ),
    "pending pods": SyncJobCase(2, 5, 6, pending_pods=2, expected_active=2, expected_ready=0),
    "correct # of pods": SyncJobCase(
        3, 5, 6, active_pods=3, ready_pods=2, expected_active=3, expected_ready=2
    ),
    "WQ job: correct # of pods": SyncJobCase(
        2, -1, 6, active_pods=2, expected_active=2, expected_ready=0
    ),
    "too few active pods": SyncJobCase(
        2, 5, 6, active_pods=1, succeeded_pods=1, expected_creations=1, expected_active=2,
        expected_succeeded=1, expected_pod_patches=1, expected_ready=0,
    ),
    "WQ job: recreate pods when failed": SyncJobCase(
        1, -1, 6, active_pods=1, failed_pods=1, pod_replacement_policy="Failed",
        job_pod_replacement_policy=True, terminating_pods=1, expected_terminating=1,
        expected_ready=0, expected_pod_patches=1, expected_failed=1, expected_active=1,
    ),
    "WQ job: turn on PodReplacementPolicy but not set PodReplacementPolicy": SyncJobCase(
        1, 1, 6, active_pods=1, failed_pods=1, job_pod_replacement_policy=True,
        expected_terminating=1, expected_ready=0, terminating_pods=1, expected_active=1,
        expected_pod_patches=2, expected_failed=2,
    ),
    "WQ job: recreate pods when terminating or failed": SyncJobCase(
        1, -1, 6, active_pods=1, failed_pods=1, pod_replacement_policy="TerminatingOrFailed",
        job_pod_replacement_policy=True, terminating_pods=1, expected_terminating=1,
        expected_ready=0, expected_active=1, expected_pod_patches=2, expected_failed=2,
    ),
    "more terminating pods than parallelism": SyncJobCase(
        1, 1, 6, active_pods=2, terminating_pods=4, pod_replacement_policy="Failed",
        job_pod_replacement_policy=True, expected_terminating=5, expected_ready=0,
        expected_active=1, expected_deletions=1, expected_pod_patches=1,
    ),
    "more terminating pods than parallelism; PodFailurePolicy used": SyncJobCase(
        1, 1, 6, active_pods=2, terminating_pods=4, pod_failure_policy={"rules": []},
        expected_terminating=None, expected_ready=0, expected_active=1, expected_deletions=1,
        expected_pod_patches=1,
    ),
    "too few active pods and no back-offs": SyncJobCase(
        1, 1, 6, expected_creations=1, expected_active=1, expected_ready=0,
        adapted="an empty back-off record: Shoal keeps none, it derives it from the pods",
    ),
    "too few active pods with a dynamic job": SyncJobCase(
        2, -1, 6, active_pods=1, expected_creations=1, expected_active=2, expected_ready=0
    ),
    "too many active pods": SyncJobCase(
        2, 5, 6, active_pods=3, expected_deletions=1, expected_active=2, expected_pod_patches=1,
        expected_ready=0,
    ),
    "too many active pods; PodReplacementPolicy enabled": SyncJobCase(
        2, 5, 6, active_pods=3, job_pod_replacement_policy=True, expected_deletions=1,
        expected_active=2, expected_pod_patches=1, expected_ready=0, expected_terminating=1,
    ),
    "count ready pods when too many active pods": SyncJobCase(
        2, 5, 6, active_pods=3, ready_pods=3, expected_deletions=1, expected_active=2,
        expected_pod_patches=1, expected_ready=2,
    ),
    "failed + succeed pods: reset backoff delay": SyncJobCase(
        2, 5, 6, active_pods=1, succeeded_pods=1, failed_pods=1, expected_creations=1,
        expected_active=2, expected_succeeded=1, expected_failed=1, expected_pod_patches=2,
        expected_ready=0,
    ),
    "new failed pod": SyncJobCase(
        2, 5, 6, active_pods=1, failed_pods=1, expected_creations=1, expected_active=2,
        expected_failed=1, expected_pod_patches=1, expected_ready=0,
    ),
    "no new pod; possible finalizer update of failed pod": SyncJobCase(
        1, 1, 6, initial_status={"active": 1, "succeeded": 0, "failed": 1}, active_pods=1,
        expected_active=1, expected_failed=1, expected_ready=0,
    ),
    "job finish": SyncJobCase(
        2, 5, 6, succeeded_pods=5, expected_succeeded=5,
        expected_conditions=[CRITERIA_MET, COMPLETE], expected_pod_patches=5, expected_ready=0,
        adapted=GATE_OFF_COMPLETE,
    ),
    "WQ job finishing": SyncJobCase(
        2, -1, 6, active_pods=1, succeeded_pods=1, expected_active=1, expected_succeeded=1,
        expected_pod_patches=1, expected_ready=0,
    ),
    "WQ job all finished": SyncJobCase(
        2, -1, 6, succeeded_pods=2, expected_succeeded=2,
        expected_conditions=[CRITERIA_MET, COMPLETE], expected_pod_patches=2, expected_ready=0,
        adapted=GATE_OFF_COMPLETE,
    ),
    "WQ job all finished despite one failure": SyncJobCase(
        2, -1, 6, succeeded_pods=1, failed_pods=1, expected_succeeded=1, expected_failed=1,
        expected_conditions=[CRITERIA_MET, COMPLETE], expected_pod_patches=2, expected_ready=0,
        adapted=GATE_OFF_COMPLETE,
    ),
    "more active pods than parallelism": SyncJobCase(
        2, 5, 6, active_pods=10, expected_deletions=8, expected_active=2,
        expected_pod_patches=8, expected_ready=0,
    ),
    "more active pods than remaining completions": SyncJobCase(
        3, 4, 6, active_pods=3, succeeded_pods=2, expected_deletions=1, expected_active=2,
        expected_succeeded=2, expected_pod_patches=3, expected_ready=0,
    ),
    "status change": SyncJobCase(
        2, 5, 6, active_pods=2, succeeded_pods=2, expected_active=2, expected_succeeded=2,
        expected_pod_patches=2, expected_ready=0,
    ),
    "deleting job": SyncJobCase(
        2, 5, 6, deleting=True, pending_pods=1, active_pods=1, succeeded_pods=1,
        expected_active=2, expected_succeeded=1, expected_pod_patches=3, expected_ready=0,
    ),
    "too many job failures": SyncJobCase(
        2, 5, deleting=True, failed_pods=1, expected_failed=1,
        expected_conditions=[TARGET_BACKOFF, FAILED_BACKOFF], expected_pod_patches=1,
        expected_ready=0, adapted=GATE_OFF_FAILED,
    ),
    "job failures, unsatisfied expectations": SyncJobCase(
        2, 5, deleting=True, failed_pods=1, fake_expectation_at_creation=1, expected_failed=1,
        expected_pod_patches=1, expected_ready=0,
    ),
    "indexed job start": SyncJobCase(
        2, 5, 6, completion_mode="Indexed", expected_creations=2, expected_active=2,
        expected_created_indexes={0, 1}, expected_ready=0,
    ),
    "indexed job with some pods deleted, podReplacementPolicy Failed": SyncJobCase(
        2, 5, 6, completion_mode="Indexed", expected_creations=1, expected_active=1,
        expected_created_indexes={0}, pod_replacement_policy="Failed",
        job_pod_replacement_policy=True, terminating_pods=1, expected_terminating=1,
        expected_ready=0,
    ),
    "indexed job with some pods deleted, podReplacementPolicy TerminatingOrFailed": SyncJobCase(
        2, 5, 6, completion_mode="Indexed", expected_creations=2, expected_active=2,
        expected_created_indexes={0, 1}, pod_replacement_policy="TerminatingOrFailed",
        job_pod_replacement_policy=True, terminating_pods=1, expected_terminating=1,
        expected_ready=0, expected_pod_patches=1,
    ),
    "indexed job completed": SyncJobCase(
        2, 3, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("1", "Succeeded"),
                           ("2", "Succeeded")],
        expected_succeeded=3, expected_failed=1, expected_completed_idxs="0-2",
        expected_conditions=[CRITERIA_MET, COMPLETE], expected_pod_patches=4, expected_ready=0,
        adapted=GATE_OFF_COMPLETE,
    ),
    "indexed job failed": SyncJobCase(
        2, 3, 0, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("2", "Running")],
        expected_succeeded=1, expected_failed=2, expected_completed_idxs="0",
        expected_conditions=[TARGET_BACKOFF], expected_pod_patches=3, expected_ready=0,
        expected_deletions=1, expected_terminating=1,
        adapted="gates off upstream: Failed at once; gate on (as the next row): FailureTarget "
        "while the deleted pod terminates",
    ),
    "count terminating pods when indexed job fails and PodReplacementPolicy enabled": SyncJobCase(
        2, 3, 0, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("2", "Running")],
        job_pod_replacement_policy=True, expected_succeeded=1, expected_failed=2,
        expected_completed_idxs="0", expected_conditions=[TARGET_BACKOFF],
        expected_pod_patches=3, expected_ready=0, expected_deletions=1, expected_terminating=1,
    ),
    "count ready pods when job fails": SyncJobCase(
        2, 3, 0, active_pods=2, ready_pods=2, failed_pods=1, expected_failed=3,
        expected_conditions=[TARGET_BACKOFF], expected_pod_patches=3, expected_ready=0,
        expected_deletions=2, expected_terminating=2,
        adapted="gates off upstream: Failed at once; gate on: FailureTarget while the two "
        "deleted pods terminate",
    ),
    "indexed job repeated completed index": SyncJobCase(
        2, 3, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Succeeded"), ("1", "Succeeded")],
        expected_creations=1, expected_active=1, expected_succeeded=2,
        expected_completed_idxs="0,1", expected_created_indexes={2}, expected_pod_patches=3,
        expected_ready=0,
    ),
    "indexed job some running and completed pods": SyncJobCase(
        8, 20, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Running"), ("2", "Succeeded"), ("3", "Pending"),
                           ("4", "Succeeded"), ("5", "Succeeded"), ("7", "Succeeded"),
                           ("8", "Succeeded"), ("9", "Succeeded")],
        expected_creations=6, expected_active=8, expected_succeeded=6,
        expected_completed_idxs="2,4,5,7-9", expected_created_indexes={1, 6, 10, 11, 12, 13},
        expected_pod_patches=6, expected_ready=0,
    ),
    "indexed job some failed pods": SyncJobCase(
        3, 4, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Failed"), ("1", "Pending"), ("2", "Failed")],
        expected_creations=2, expected_active=3, expected_failed=2,
        expected_created_indexes={0, 2}, expected_pod_patches=2, expected_ready=0,
    ),
    "indexed job some pods without index": SyncJobCase(
        2, 5, 6, completion_mode="Indexed", active_pods=1, succeeded_pods=1, failed_pods=1,
        pods_with_indexes=[("invalid", "Running"), ("invalid", "Succeeded"),
                           ("invalid", "Failed"), ("invalid", "Pending"), ("0", "Succeeded"),
                           ("1", "Running"), ("2", "Running")],
        expected_deletions=3, expected_active=2, expected_succeeded=1, expected_failed=0,
        expected_completed_idxs="0", expected_pod_patches=8, expected_ready=0,
    ),
    "indexed job repeated indexes": SyncJobCase(
        5, 5, 6, completion_mode="Indexed", succeeded_pods=1, failed_pods=1,
        pods_with_indexes=[("invalid", "Running"), ("0", "Succeeded"), ("1", "Running"),
                           ("2", "Running"), ("2", "Pending")],
        expected_deletions=2, expected_active=2, expected_succeeded=1,
        expected_completed_idxs="0", expected_pod_patches=5, expected_ready=0,
    ),
    "indexed job with indexes outside of range": SyncJobCase(
        2, 5, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("5", "Running"), ("6", "Succeeded"),
                           ("7", "Pending"), ("8", "Failed")],
        expected_succeeded=1, expected_deletions=2, expected_completed_idxs="0",
        expected_active=0, expected_failed=0, expected_pod_patches=5, expected_ready=0,
    ),
    "suspending a job with satisfied expectations": SyncJobCase(
        2, 4, 6, suspend=True, active_pods=2, expected_deletions=2, expected_active=0,
        expected_conditions=[SUSPENDED], expected_pod_patches=2, expected_ready=0,
    ),
    "suspending a job with satisfied expectations; PodReplacementPolicy enabled": SyncJobCase(
        2, 4, 6, suspend=True, active_pods=2, job_pod_replacement_policy=True,
        expected_deletions=2, expected_active=0, expected_conditions=[SUSPENDED],
        expected_pod_patches=2, expected_ready=0, expected_terminating=2,
    ),
    "count ready pods when suspending a job with satisfied expectations": SyncJobCase(
        2, 4, 6, suspend=True, active_pods=2, ready_pods=2, expected_deletions=2,
        expected_active=0, expected_conditions=[SUSPENDED], expected_pod_patches=2,
        expected_ready=0,
    ),
    "suspending a job with unsatisfied expectations": SyncJobCase(
        2, 4, 6, suspend=True, active_pods=3, fake_expectation_at_creation=-1,
        expected_active=3, expected_ready=0,
    ),
    "count ready pods when suspending a job with unsatisfied expectations": SyncJobCase(
        2, 4, 6, suspend=True, active_pods=3, ready_pods=3, fake_expectation_at_creation=-1,
        expected_active=3, expected_ready=3,
    ),
    "suspending a job with unsatisfied expectations; PodReplacementPolicy enabled": SyncJobCase(
        2, 4, 6, suspend=True, active_pods=3, fake_expectation_at_creation=-1,
        job_pod_replacement_policy=True, expected_active=3, expected_ready=0,
        expected_terminating=0,
    ),
    "resuming a suspended job": SyncJobCase(
        2, 4, 6, was_suspended=True, expected_creations=2, expected_active=2,
        expected_conditions=[RESUMED], expected_ready=0,
    ),
    "suspending a deleted job": SyncJobCase(
        2, 4, 6, suspend=True, deleting=True, active_pods=2, expected_active=2,
        expected_pod_patches=2, expected_ready=0,
    ),
    "suspending a deleted job; PodReplacementPolicy enabled": SyncJobCase(
        2, 4, 6, suspend=True, deleting=True, active_pods=2, job_pod_replacement_policy=True,
        expected_active=2, expected_pod_patches=2, expected_ready=0, expected_terminating=0,
    ),
    "indexed job with podIndexLabel feature disabled": SyncJobCase(
        2, 5, 6, completion_mode="Indexed", expected_creations=2, expected_active=2,
        expected_created_indexes={0, 1}, expected_ready=0,
        adapted="PodIndexLabel off upstream (no index label); Shoal always labels the index",
    ),
    "FailureTarget=False condition added manually is ignored": SyncJobCase(
        1, 1, active_pods=1, ready_pods=1,
        initial_status={"active": 1, "conditions": [
            ("FailureTarget", "False", "ConditionAddedManually", "Testing")]},
        expected_active=1, expected_ready=1,
        expected_conditions=[("FailureTarget", "False", "ConditionAddedManually", "Testing")],
    ),
    "SuccessCriteriaMet=False condition added manually is ignored": SyncJobCase(
        1, 1, active_pods=1, ready_pods=1,
        initial_status={"active": 1, "conditions": [
            ("SuccessCriteriaMet", "False", "ConditionAddedManually", "Testing")]},
        expected_active=1, expected_ready=1,
        expected_conditions=[
            ("SuccessCriteriaMet", "False", "ConditionAddedManually", "Testing")],
    ),
    "backoff limit exceeded; JobManagedBy enabled": SyncJobCase(
        2, 3, 0, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("2", "Running")],
        expected_succeeded=1, expected_failed=2, expected_completed_idxs="0",
        expected_conditions=[TARGET_BACKOFF], expected_pod_patches=3, expected_ready=0,
        expected_deletions=1,
    ),
}  # fmt: skip


def _job(case: SyncJobCase) -> dict[str, Any]:
    job = new_job(case.parallelism, case.completions, case.backoff_limit, case.completion_mode)
    spec, status = job["spec"], job["status"]
    assert isinstance(spec, dict) and isinstance(status, dict)
    spec["suspend"] = case.suspend
    if case.job_pod_replacement_policy and case.pod_replacement_policy:
        spec["podReplacementPolicy"] = case.pod_replacement_policy
    if case.pod_failure_policy is not None:
        spec["podFailurePolicy"] = case.pod_failure_policy
    conditions: list[dict[str, str]] = []
    if case.initial_status is not None:
        initial = case.initial_status
        status.update(
            startTime=stamp(-60),
            active=initial.get("active", 0),
            succeeded=initial.get("succeeded", 0),
            failed=initial.get("failed", 0),
        )
        for kind, state, reason, message in initial.get("conditions", []):
            conditions.append(cond_json(kind, state, reason, message))
    if case.was_suspended:
        conditions.append(
            {
                "type": "Suspended",
                "status": "True",
                "reason": "JobSuspended",
                "message": "Job suspended",
                "lastTransitionTime": stamp(-60),
            }
        )
    status["conditions"] = conditions
    if case.deleting:
        job["metadata"]["deletionTimestamp"] = stamp(-1)
    return job


def _pods(case: SyncJobCase) -> list[PodBuilder]:
    pods = pod_statuses(
        pending=case.pending_pods,
        active=case.active_pods,
        succeeded=case.succeeded_pods,
        failed=case.failed_pods,
        terminating=case.terminating_pods,
        ready=case.ready_pods,
    )
    return pods + pods_with_indexes(case.pods_with_indexes)


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_controller_sync_job(case: SyncJobCase) -> None:
    actions = run(_job(case), _pods(case), satisfied=case.fake_expectation_at_creation == 0)
    status = status_json(actions)
    assert len(actions.create) == case.expected_creations, "creations"
    assert len(actions.delete) == case.expected_deletions, "deletions"
    if case.completion_mode == "Indexed":
        created = {int(p["metadata"]["annotations"][INDEX]) for p in actions.create}
        assert created == (case.expected_created_indexes or set())
        for pod in actions.create:
            index = pod["metadata"]["annotations"][INDEX]
            assert pod["spec"]["hostname"] == f"foobar-{index}"
            assert pod["metadata"]["labels"][INDEX] == index
    else:
        assert all("hostname" not in p["spec"] for p in actions.create)
    for pod in actions.create:
        (ref,) = pod["metadata"]["ownerReferences"]
        assert (ref["apiVersion"], ref["kind"], ref["name"], ref["uid"], ref["controller"]) == (
            "batch/v1", "Job", "foobar", "job-uid", True,
        )  # fmt: skip
    assert status.get("active", 0) == case.expected_active, "active"
    if case.expected_ready is not None:
        assert status.get("ready", 0) == case.expected_ready, "ready"
    assert status.get("succeeded", 0) == case.expected_succeeded, "succeeded"
    assert status.get("completedIndexes", "") == case.expected_completed_idxs
    assert status.get("failed", 0) == case.expected_failed, "failed"
    if case.expected_terminating is not None:
        assert status.get("terminating", 0) == case.expected_terminating, "terminating"
    assert ("startTime" in status) is not case.suspend, "startTime"
    assert conditions_of(status) == case.expected_conditions
    assert len(actions.patch) == case.expected_pod_patches, "pod patches"


# --- TestSyncJobPastDeadline --------------------------------------------------------------------

DEADLINE_MSG = "Job was active longer than specified deadline"
FAILED_DEADLINE: Cond = ("Failed", "True", "DeadlineExceeded", DEADLINE_MSG)
TARGET_DEADLINE: Cond = ("FailureTarget", "True", "DeadlineExceeded", DEADLINE_MSG)
GATE_OFF_DEADLINE = "gates off upstream: Failed at once; gate on: FailureTarget while pods go"


@dataclass
class PastDeadlineCase:
    parallelism: int
    completions: int
    active_deadline_seconds: int
    start_time: int  # seconds before now
    backoff_limit: int = 0
    suspend: bool = False
    active_pods: int = 0
    succeeded_pods: int = 0
    failed_pods: int = 0
    expected_deletions: int = 0
    expected_active: int = 0
    expected_succeeded: int = 0
    expected_failed: int = 0
    expected_conditions: list[Cond] = field(default_factory=list)
    adapted: str = ""


PAST_DEADLINE: dict[str, PastDeadlineCase] = {
    "activeDeadlineSeconds less than single pod execution": PastDeadlineCase(
        1, 1, 10, 15, 6, active_pods=1, expected_deletions=1, expected_failed=1,
        expected_conditions=[TARGET_DEADLINE], adapted=GATE_OFF_DEADLINE,
    ),
    "activeDeadlineSeconds bigger than single pod execution": PastDeadlineCase(
        1, 2, 10, 15, 6, active_pods=1, succeeded_pods=1, expected_deletions=1,
        expected_succeeded=1, expected_failed=1, expected_conditions=[TARGET_DEADLINE],
        adapted=GATE_OFF_DEADLINE,
    ),
    "activeDeadlineSeconds times-out before any pod starts": PastDeadlineCase(
        1, 1, 10, 10, 6, expected_conditions=[TARGET_DEADLINE, FAILED_DEADLINE],
        adapted="gates off upstream: Failed alone; gate on: FailureTarget first",
    ),
    "activeDeadlineSeconds with backofflimit reach": PastDeadlineCase(
        1, 1, 1, 10, failed_pods=1, expected_failed=1,
        expected_conditions=[TARGET_BACKOFF, FAILED_BACKOFF], adapted=GATE_OFF_FAILED,
    ),
    "activeDeadlineSeconds is not triggered when Job is suspended": PastDeadlineCase(
        1, 2, 10, 15, 6, suspend=True, expected_conditions=[SUSPENDED]
    ),
    "activeDeadlineSeconds exceeded; JobPodReplacementPolicy enabled": PastDeadlineCase(
        1, 2, 10, 15, 6, active_pods=1, succeeded_pods=1, expected_deletions=1,
        expected_succeeded=1, expected_failed=1, expected_conditions=[TARGET_DEADLINE],
    ),
    "activeDeadlineSeconds exceeded; JobManagedBy enabled": PastDeadlineCase(
        1, 2, 10, 15, 6, active_pods=1, succeeded_pods=1, expected_deletions=1,
        expected_succeeded=1, expected_failed=1, expected_conditions=[TARGET_DEADLINE],
    ),
    "activeDeadlineSeconds exceeded and backofflimit reached; JobManagedBy enabled": (
        PastDeadlineCase(1, 1, 1, 10, failed_pods=1, expected_failed=1,
                         expected_conditions=[TARGET_BACKOFF, FAILED_BACKOFF])
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(PAST_DEADLINE.values()), ids=list(PAST_DEADLINE))
def test_sync_job_past_deadline(case: PastDeadlineCase) -> None:
    job = new_job(case.parallelism, case.completions, case.backoff_limit)
    job["spec"].update(activeDeadlineSeconds=case.active_deadline_seconds, suspend=case.suspend)
    job["status"] = {"startTime": stamp(-case.start_time)}
    pods = pod_statuses(
        active=case.active_pods, succeeded=case.succeeded_pods, failed=case.failed_pods
    )
    actions = run(job, pods)
    status = status_json(actions)
    assert actions.create == []
    assert len(actions.delete) == case.expected_deletions, "deletions"
    assert status.get("active", 0) == case.expected_active, "active"
    assert status.get("succeeded", 0) == case.expected_succeeded, "succeeded"
    assert status.get("failed", 0) == case.expected_failed, "failed"
    assert "startTime" in status
    assert conditions_of(status) == case.expected_conditions


# --- TestSyncJobWithJobPodFailurePolicy ---------------------------------------------------------


def _exit_codes(action: str, values: list[int], operator: str = "In",
                container: str | None = None) -> dict[str, object]:  # fmt: skip
    requirement: dict[str, object] = {"operator": operator, "values": values}
    if container is not None:
        requirement["containerName"] = container
    return {"action": action, "onExitCodes": requirement}


def _on_condition(action: str, kind: str) -> dict[str, object]:
    return {"action": action, "onPodConditions": [{"type": kind, "status": "True"}]}


ON_EXIT_CODE_RULES = [_exit_codes("Ignore", [1, 2, 3]), _exit_codes("FailJob", [5, 6, 7])]
MAIN = "main-container"


def _pfp_message(pod: str, code: int, index: int, container: str = MAIN) -> str:
    return (
        f"Container {container} for pod default/{pod} failed with exit code {code} "
        f"matching FailJob rule at index {index}"
    )


def _pfp(message: str, *, failed: bool = True) -> list[Cond]:
    target: Cond = ("FailureTarget", "True", "PodFailurePolicy", message)
    return [target, ("Failed", "True", "PodFailurePolicy", message)] if failed else [target]


@dataclass
class PodFailurePolicyCase:
    spec: dict[str, object]
    pods: list[PodBuilder]
    want_conditions: list[Cond] = field(default_factory=list)
    want_status_active: int = 0
    want_status_failed: int = 0
    want_status_succeeded: int = 0
    want_status_terminating: int = 0
    status: dict[str, object] | None = None
    adapted: str = ""


def _spec(
    parallelism: int | None = 1,
    completions: int | None = 1,
    backoff: int = 6,
    rules: list[dict[str, object]] | None = None,
    **extra: object,
) -> dict[str, object]:
    spec: dict[str, object] = {"backoffLimit": backoff, "podFailurePolicy": {"rules": rules}}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    spec.update(extra)
    return spec


FAILED = {"phase": "Failed"}


POD_FAILURE_POLICY: dict[str, PodFailurePolicyCase] = {
    (
        "default handling for pod failure if the container matching the exit codes does not "
        "match the containerName restriction"
    ): PodFailurePolicyCase(
        _spec(rules=[_exit_codes("Ignore", [1, 2, 3], container=MAIN),
                     _exit_codes("FailJob", [5, 6, 7], container=MAIN)]),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(5, "monitoring-container"),
                                                    terminated(42, MAIN, finished=True)]})],
        want_status_active=1, want_status_failed=1,
    ),
    "running pod should not result in job fail based on OnExitCodes": PodFailurePolicyCase(
        _spec(rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {"phase": "Running", "containerStatuses": [terminated(5, MAIN)]})],
        want_status_active=1,
    ),
    "fail job based on OnExitCodes": PodFailurePolicyCase(
        _spec(rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(5, MAIN)]})],
        want_conditions=_pfp(_pfp_message("mypod-0", 5, 1)), want_status_failed=1,
    ),
    "job marked already as failure target with failed pod": PodFailurePolicyCase(
        _spec(rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(5, MAIN)]})],
        status={"conditions": [cond_json(*_pfp(_pfp_message("mypod-0", 5, 1))[0])]},
        want_conditions=_pfp(_pfp_message("mypod-0", 5, 1)), want_status_failed=1,
    ),
    (
        "job marked already as failure target with failed pod, message based on already "
        "deleted pod"
    ): PodFailurePolicyCase(
        _spec(rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(5, MAIN)]})],
        status={"conditions": [
            cond_json(*_pfp(_pfp_message("already-deleted-pod", 5, 1))[0])]},
        want_conditions=_pfp(_pfp_message("already-deleted-pod", 5, 1)), want_status_failed=1,
    ),
    "fail job with multiple pods": PodFailurePolicyCase(
        _spec(2, 2, rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {"phase": "Running"}),
         my_pod(1, {**FAILED, "containerStatuses": [terminated(5, MAIN)]})],
        want_conditions=_pfp(_pfp_message("mypod-1", 5, 1), failed=False),
        want_status_failed=2, want_status_terminating=1,
        adapted="gates off upstream: Failed at once; gate on (as the next row): FailureTarget "
        "while the running pod terminates",
    ),
    (
        "fail job with multiple pods; JobManagedBy enabled delays setting terminal condition"
    ): PodFailurePolicyCase(
        _spec(2, 2, rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {"phase": "Running"}),
         my_pod(1, {**FAILED, "containerStatuses": [terminated(5, MAIN)]})],
        want_conditions=_pfp(_pfp_message("mypod-1", 5, 1), failed=False),
        want_status_failed=2, want_status_terminating=1,
        adapted="upstream leaves terminating unset with only JobManagedBy on; Shoal counts "
        "the pod it deletes",
    ),
    "fail indexed job based on OnExitCodes": PodFailurePolicyCase(
        _spec(rules=ON_EXIT_CODE_RULES, completionMode="Indexed"),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(5, MAIN)]}, indexed=True)],
        want_conditions=_pfp(_pfp_message("mypod-0", 5, 1)), want_status_failed=1,
    ),
    "fail job based on OnExitCodes with NotIn operator": PodFailurePolicyCase(
        _spec(rules=[_exit_codes("FailJob", [5, 6, 7], "NotIn")]),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(42, MAIN)]})],
        want_conditions=_pfp(_pfp_message("mypod-0", 42, 0)), want_status_failed=1,
    ),
    "default handling job based on OnExitCodes with NotIn operator": PodFailurePolicyCase(
        _spec(rules=[_exit_codes("FailJob", [5, 6, 7], "NotIn")]),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(5, MAIN, finished=True)]})],
        want_status_active=1, want_status_failed=1,
    ),
    "fail job based on OnExitCodes for InitContainer": PodFailurePolicyCase(
        _spec(rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "initContainerStatuses": [terminated(5, "init-container")],
                    "containerStatuses": [terminated(143, MAIN)]})],
        want_conditions=_pfp(_pfp_message("mypod-0", 5, 1, "init-container")),
        want_status_failed=1,
    ),
    "ignore pod failure; both rules are matching, the first is executed only": PodFailurePolicyCase(
        _spec(backoff=0, rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(2, "container1"),
                                                    terminated(6, "container2")]})],
        want_status_active=1,
    ),
    "ignore pod failure based on OnExitCodes": PodFailurePolicyCase(
        _spec(backoff=0, rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(1)]})],
        want_status_active=1,
    ),
    "default job based on OnExitCodes": PodFailurePolicyCase(
        _spec(backoff=0, rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(10)]})],
        want_conditions=[TARGET_BACKOFF, FAILED_BACKOFF], want_status_failed=1,
        adapted=GATE_OFF_FAILED,
    ),
    (
        "default job based on OnExitCodes; JobManagedBy enabled triggers adding interim "
        "condition"
    ): PodFailurePolicyCase(
        _spec(backoff=0, rules=ON_EXIT_CODE_RULES),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(10)]})],
        want_conditions=[TARGET_BACKOFF, FAILED_BACKOFF], want_status_failed=1,
    ),
    (
        "count pod failure based on OnExitCodes; both rules are matching, the first is "
        "executed only"
    ): PodFailurePolicyCase(
        _spec(rules=[_exit_codes("Count", [1, 2]), _exit_codes("Ignore", [2, 3])]),
        [my_pod(0, {**FAILED, "containerStatuses": [terminated(2, finished=True)]})],
        want_status_active=1, want_status_failed=1,
    ),
    (
        "count pod failure based on OnPodConditions; both rules are matching, the first is "
        "executed only"
    ): PodFailurePolicyCase(
        _spec(rules=[_on_condition("Count", "ResourceLimitExceeded"),
                     _on_condition("Ignore", "DisruptionTarget")]),
        [my_pod(0, {**FAILED, "conditions": [
            {"type": "ResourceLimitExceeded", "status": "True"},
            {"type": "DisruptionTarget", "status": "True"}],
            "containerStatuses": [{"name": "", "state": {"terminated": {
                "exitCode": 0, "finishedAt": "0001-01-01T00:00:01Z"}}}]})],
        want_status_active=1, want_status_failed=1,
    ),
    "ignore pod failure based on OnPodConditions": PodFailurePolicyCase(
        _spec(backoff=0, rules=[_on_condition("Ignore", "DisruptionTarget")]),
        [my_pod(0, {**FAILED, "conditions": [{"type": "DisruptionTarget", "status": "True"}]})],
        want_status_active=1,
    ),
    (
        "ignore pod failure based on OnPodConditions, ignored failures delays pod recreation"
    ): PodFailurePolicyCase(
        _spec(backoff=0, rules=[_on_condition("Ignore", "DisruptionTarget")]),
        [my_pod(0, {**FAILED, "conditions": [{"type": "DisruptionTarget", "status": "True"}]},
                deleting=True)],
    ),
    "fail job based on OnPodConditions": PodFailurePolicyCase(
        _spec(rules=[_on_condition("FailJob", "DisruptionTarget")]),
        [my_pod(0, {**FAILED, "conditions": [{"type": "DisruptionTarget", "status": "True"}]})],
        want_conditions=_pfp(
            "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"),
        want_status_failed=1,
    ),
    (
        "terminating Pod not considered failed when JobPodFailurePolicy is enabled and used"
    ): PodFailurePolicyCase(
        _spec(1, None, backoff=0, rules=[_on_condition("Count", "DisruptionTarget")]),
        [my_pod(0, {}, deleting=True)],
        want_status_terminating=1,
        adapted="upstream leaves terminating unset with JobPodReplacementPolicy off",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(POD_FAILURE_POLICY.values()), ids=list(POD_FAILURE_POLICY))
def test_sync_job_with_job_pod_failure_policy(case: PodFailurePolicyCase) -> None:
    spec = dict(case.spec)
    spec.setdefault("podReplacementPolicy", "Failed")  # as the upstream harness defaults it
    actions = run(job_of(spec, case.status), case.pods)
    status = status_json(actions)
    assert conditions_of(status) == case.want_conditions
    assert status.get("active", 0) == case.want_status_active, "active"
    assert status.get("succeeded", 0) == case.want_status_succeeded, "succeeded"
    assert status.get("failed", 0) == case.want_status_failed, "failed"
    assert status.get("terminating", 0) == case.want_status_terminating, "terminating"


# --- TestSyncJobWithJobSuccessPolicy and TestSyncJobWithJobBackoffLimitPerIndex -----------------

MAX_INT32 = 2**31 - 1
MATCHED = "Matched rules at index 0"
SCM_POLICY: Cond = ("SuccessCriteriaMet", "True", "SuccessPolicy", MATCHED)
COMPLETE_POLICY: Cond = ("Complete", "True", "SuccessPolicy", MATCHED)
DT_MESSAGE = "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"
FT_DT: Cond = ("FailureTarget", "True", "PodFailurePolicy", DT_MESSAGE)
FAILED_DT: Cond = ("Failed", "True", "PodFailurePolicy", DT_MESSAGE)
INDEXES_MSG = "Job has failed indexes"
FT_INDEXES: Cond = ("FailureTarget", "True", "FailedIndexes", INDEXES_MSG)
FAILED_INDEXES: Cond = ("Failed", "True", "FailedIndexes", INDEXES_MSG)
MAX_MSG = "Job has exceeded the specified maximal number of failed indexes"
FT_MAX: Cond = ("FailureTarget", "True", "MaxFailedIndexesExceeded", MAX_MSG)
GATE_OFF_SCM = "JobPodReplacementPolicy off upstream: Complete at once; gate on: as the row above"
GATE_OFF_TERMINATING = "upstream leaves terminating unset with JobPodReplacementPolicy off"
GATE_OFF_PER_INDEX = 'JobBackoffLimitPerIndex off upstream: failedIndexes unset; gate on: ""'
DISRUPTED = {"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True"}]}
FAIL_ON_DT = {"rules": [_on_condition("FailJob", "DisruptionTarget")]}
RULE_01 = {"rules": [{"succeededIndexes": "0,1", "succeededCount": 1}]}


@dataclass
class WholeStatusCase:
    """A row comparing the whole status (upstream's ``wantStatus``)."""

    spec: dict[str, object]
    pods: list[PodBuilder]
    want: dict[str, object]
    status: dict[str, object] | None = None
    adapted: str = ""


def _indexed(parallelism: int, backoff: int = MAX_INT32, **extra: object) -> dict[str, object]:
    spec: dict[str, object] = {"completionMode": "Indexed", "parallelism": parallelism,
                               "completions": parallelism, "backoffLimit": backoff}  # fmt: skip
    spec.update(extra)
    return spec


def _want(failed: int = 0, succeeded: int = 0, active: int = 0, terminating: int = 0,
          completed: str = "", failed_indexes: str | None = None,
          conditions: list[Cond] | None = None) -> dict[str, object]:  # fmt: skip
    return {"active": active, "succeeded": succeeded, "failed": failed,
            "terminating": terminating, "completedIndexes": completed,
            "failedIndexes": failed_indexes, "uncountedTerminatedPods": {},
            "conditions": conditions or []}  # fmt: skip


def _scm_status(**counts: object) -> dict[str, object]:
    return {**counts, "conditions": [cond_json(*SCM_POLICY)]}


SUCCESS_POLICY: dict[str, WholeStatusCase] = {
    (
        "job with successPolicy; jobPodReplacementPolicy feature enabled; job has "
        "SuccessCriteriaMet condition if job meets to successPolicy and some indexes fail"
    ): WholeStatusCase(
        _indexed(3, successPolicy=RULE_01),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "0", "Running", None, True),
                    ("b", "1", "Succeeded", None, True), ("c", "2", "Running", None, True)]),
        _want(1, 1, terminating=2, completed="1", conditions=[SCM_POLICY]),
    ),
    (
        "job with successPolicy; jobPodReplacementPolicy feature disabled; job has "
        "SuccessCriteriaMet condition if job meets to successPolicy and some indexes fail"
    ): WholeStatusCase(
        _indexed(3, successPolicy=RULE_01),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "0", "Running", None, True),
                    ("b", "1", "Succeeded", None, True), ("c", "2", "Running", None, True)]),
        _want(1, 1, terminating=2, completed="1", conditions=[SCM_POLICY]),
        adapted=GATE_OFF_SCM,
    ),
    (
        "job with podFailurePolicy and successPolicy; jobPodReplacementPolicy feature "
        "enabled; job has SuccessCriteriaMet condition if job meets to successPolicy and "
        "doesn't meet to podFailurePolicy"
    ): WholeStatusCase(
        _indexed(2, successPolicy=RULE_01, podFailurePolicy=FAIL_ON_DT),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "0", "Running", None, True),
                    ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, terminating=1, completed="1", conditions=[SCM_POLICY]),
    ),
    (
        "job with podFailurePolicy and successPolicy; jobPodReplacementPolicy feature "
        "disabled; job has SuccessCriteriaMet condition if job meets to successPolicy and "
        "doesn't meet to podFailurePolicy"
    ): WholeStatusCase(
        _indexed(2, successPolicy=RULE_01, podFailurePolicy=FAIL_ON_DT),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "0", "Running", None, True),
                    ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, terminating=1, completed="1", conditions=[SCM_POLICY]),
        adapted=GATE_OFF_SCM,
    ),
    (
        "job with backoffLimitPerIndex and successPolicy; jobPodReplacementPolicy feature "
        "enabled; job has SuccessCriteriaMet condition if job meets to successPolicy and "
        "doesn't meet backoffLimitPerIndex"
    ): WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=2, successPolicy=RULE_01),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "0", "Running", None, True),
                    ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, terminating=1, completed="1", failed_indexes="", conditions=[SCM_POLICY]),
    ),
    (
        "job with successPolicy; jobPodReplacementPolicy feature enabled; job has both "
        "Complete and SuccessCriteriaMet condition when job meets to successPolicy and all "
        "pods have been already removed"
    ): WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=2, successPolicy=RULE_01),
        built_pods([("a", "0", "Failed", None, True), ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, completed="1", failed_indexes="", conditions=[SCM_POLICY, COMPLETE_POLICY]),
        status=_scm_status(), adapted=GATE_OFF_PER_INDEX,
    ),
    (
        "job with successPolicy; jobPodReplacementPolicy feature enabled; job has "
        "SuccessCriteriaMet condition when job meets to successPolicy and some pods still are "
        "running"
    ): WholeStatusCase(
        _indexed(3, backoffLimitPerIndex=3, successPolicy=RULE_01),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "1", "Running", None, True),
                    ("b", "1", "Succeeded", None, True), ("c", "2", "Running", None, True)]),
        _want(1, 1, terminating=2, completed="1", failed_indexes="", conditions=[SCM_POLICY]),
        status=_scm_status(), adapted=GATE_OFF_PER_INDEX,
    ),
    (
        "job with successPolicy; JobManagedBy feature enabled; job has SuccessCriteriaMet "
        "condition when job meets to successPolicy and some pods still are running"
    ): WholeStatusCase(
        _indexed(3, backoffLimitPerIndex=3, successPolicy=RULE_01),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "1", "Running", None, True),
                    ("b", "1", "Succeeded", None, True), ("c", "2", "Running", None, True)]),
        _want(1, 1, terminating=2, completed="1", failed_indexes="", conditions=[SCM_POLICY]),
        status=_scm_status(), adapted=f"{GATE_OFF_TERMINATING}; {GATE_OFF_PER_INDEX}",
    ),
    (
        "job with successPolicy and podFailurePolicy; jobPodReplacementPolicy feature "
        "enabled; job has a failed condition when job meets to both successPolicy and "
        "podFailurePolicy"
    ): WholeStatusCase(
        _indexed(2, successPolicy=RULE_01, podFailurePolicy=FAIL_ON_DT),
        built_pods([("a1", "0", DISRUPTED, None, True), ("a2", "0", "Running", None, True),
                    ("b", "1", "Succeeded", None, True)]),
        _want(2, 1, terminating=1, completed="1", conditions=[FT_DT]),
    ),
    (
        "job with successPolicy and backoffLimitPerIndex; jobPodReplacementPolicy feature "
        "enabled; job has a failed condition when job meets to both successPolicy and "
        "backoffLimitPerIndex"
    ): WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1, successPolicy=RULE_01),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, completed="1", failed_indexes="0", conditions=[FT_INDEXES, FAILED_INDEXES]),
    ),
    (
        "job with successPolicy and backoffLimit; jobPodReplacementPolicy feature enabled; "
        "job has a failed condition when job meets to both successPolicy and backoffLimit"
    ): WholeStatusCase(
        _indexed(2, 1, successPolicy=RULE_01),
        built_pods([("a1", "0", "Failed", None, True), ("a2", "0", "Failed", None, True),
                    ("b", "1", "Succeeded", None, True)]),
        _want(2, 1, completed="1", conditions=[TARGET_BACKOFF, FAILED_BACKOFF]),
    ),
    (
        "job with successPolicy and podFailurePolicy; jobPodReplacementPolicy feature "
        "enabled; job with SuccessCriteriaMet has never been transitioned to FailureTarget "
        "and Failed even if job meets podFailurePolicy"
    ): WholeStatusCase(
        _indexed(2, successPolicy={"rules": [{"succeededCount": 1}]}, podFailurePolicy=FAIL_ON_DT),
        built_pods([("a", "0", DISRUPTED, None, True), ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, completed="1", conditions=[SCM_POLICY, COMPLETE_POLICY]),
        status=_scm_status(succeeded=1, terminating=0, completedIndexes="1"),
    ),
    (
        "job with successPolicy and backoffLimitPerIndex; jobPodReplacementPolicy feature "
        "enabled; job with SuccessCriteriaMet has never been transitioned to FailureTarget "
        "and Failed even if job meet backoffLimitPerIndex"
    ): WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1, successPolicy={"rules": [{"succeededIndexes": "1"}]}),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, completed="1", failed_indexes="0", conditions=[SCM_POLICY, COMPLETE_POLICY]),
        status=_scm_status(succeeded=1, terminating=0, completedIndexes="1"),
    ),
    (
        "job with successPolicy and backoffLimit; jobPodReplacementPolicy feature enabled; "
        "job with SuccessCriteriaMet has never been transitioned to FailureTarget and Failed "
        "even if job meets backoffLimit"
    ): WholeStatusCase(
        _indexed(2, 1, successPolicy=RULE_01),
        built_pods([("a", "0", "Failed", None, True), ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, completed="1", conditions=[SCM_POLICY, COMPLETE_POLICY]),
        status=_scm_status(succeeded=1, terminating=0, completedIndexes="1"),
    ),
    (
        "job with successPolicy and podFailureTarget; jobPodReplacementPolicy feature "
        "enabled; job with FailureTarget has never been transitioned to SuccessCriteriaMet "
        "even if job meets successPolicy"
    ): WholeStatusCase(
        _indexed(2, successPolicy=RULE_01, podFailurePolicy=FAIL_ON_DT),
        built_pods([("a", "0", DISRUPTED, None, False), ("b", "1", "Succeeded", None, True)]),
        _want(1, 1, completed="1", conditions=[FT_DT, FAILED_DT]),
        status={"failed": 1, "terminating": 0, "completedIndexes": "1",
                "conditions": [cond_json(*FT_DT)]},
    ),
    (
        "job without successPolicy; jobSuccessPolicy is enabled; job got SuccessCriteriaMet "
        "and Completion with CompletionsReached reason conditions"
    ): WholeStatusCase(
        _indexed(1),
        built_pods([("a1", "0", "Succeeded", None, True)]),
        _want(0, 1, completed="0", conditions=[CRITERIA_MET, COMPLETE]),
        adapted=GATE_OFF_TERMINATING,
    ),
}  # fmt: skip


BACKOFF_LIMIT_PER_INDEX: dict[str, WholeStatusCase] = {
    "successful job after a single failure within index": WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a1", "0", "Failed", "0", True), ("a2", "0", "Succeeded", "1", True),
                    ("b", "1", "Succeeded", "0", True)]),
        _want(1, 2, completed="0,1", failed_indexes="", conditions=[CRITERIA_MET, COMPLETE]),
    ),
    "single failed pod, not counted as the replacement pod creation is delayed": WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "0", True)]),
        _want(active=2, failed_indexes=""),
    ),
    "single failed pod replaced already": WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "0", True), ("b", "0", "Pending", "1", True)]),
        _want(1, active=2, failed_indexes=""),
    ),
    (
        "single failed index due to exceeding the backoff limit per index, the job continues"
    ): WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "1", True)]),
        _want(1, active=1, failed_indexes="0"),
    ),
    "single failed index due to FailIndex action, the job continues": WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1,
                 podFailurePolicy={"rules": [_exit_codes("FailIndex", [3])]}),
        built_pods([("a", "0", {"phase": "Failed", "containerStatuses": [terminated(3)]}, "0",
                     True)]),
        _want(1, active=1, failed_indexes="0"),
    ),
    "job failed index due to FailJob action": WholeStatusCase(
        _indexed(2, 6, backoffLimitPerIndex=1,
                 podFailurePolicy={"rules": [_exit_codes("FailJob", [3])]}),
        built_pods([("a", "0", {"phase": "Failed", "containerStatuses": [terminated(3, "x")]},
                     "0", True)]),
        _want(1, failed_indexes="", conditions=_pfp(_pfp_message("mypod-0", 3, 0, "x"))),
    ),
    "job pod failure ignored due to matching Ignore action": WholeStatusCase(
        _indexed(2, 6, backoffLimitPerIndex=1,
                 podFailurePolicy={"rules": [_exit_codes("Ignore", [3])]}),
        built_pods([("a", "0", {"phase": "Failed", "containerStatuses": [terminated(3, "x")]},
                     "0", True)]),
        _want(active=2, failed_indexes=""),
    ),
    "job failed due to exceeding backoffLimit before backoffLimitPerIndex": WholeStatusCase(
        _indexed(2, 1, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "0", True), ("b", "1", "Failed", "0", True)]),
        _want(2, failed_indexes="", conditions=[TARGET_BACKOFF, FAILED_BACKOFF]),
    ),
    "job failed due to failed indexes": WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", "0", True)]),
        _want(1, 1, completed="1", failed_indexes="0", conditions=[FT_INDEXES, FAILED_INDEXES]),
    ),
    "job failed due to exceeding max failed indexes": WholeStatusCase(
        _indexed(4, backoffLimitPerIndex=1, maxFailedIndexes=1),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", "0", True),
                    ("c", "2", "Failed", "1", True), ("d", "3", "Running", "0", True)]),
        _want(3, 1, terminating=1, completed="1", failed_indexes="0,2", conditions=[FT_MAX]),
    ),
    (
        "job failed due to failed indexes; JobPodReplacementPolicy and JobManagedBy disabled"
    ): WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", "0", True)]),
        _want(1, 1, completed="1", failed_indexes="0", conditions=[FT_INDEXES, FAILED_INDEXES]),
        adapted=GATE_OFF_FAILED,
    ),
    "job failed due to failed indexes; JobManagedBy enabled": WholeStatusCase(
        _indexed(2, backoffLimitPerIndex=1),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", "0", True)]),
        _want(1, 1, completed="1", failed_indexes="0", conditions=[FT_INDEXES, FAILED_INDEXES]),
        adapted=GATE_OFF_TERMINATING,
    ),
    (
        "job failed due to exceeding max failed indexes; JobPodReplacementPolicy and "
        "JobManagedBy disabled"
    ): WholeStatusCase(
        _indexed(4, backoffLimitPerIndex=1, maxFailedIndexes=1),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", "0", True),
                    ("c", "2", "Failed", "1", True), ("d", "3", "Running", "0", True)]),
        _want(3, 1, terminating=1, completed="1", failed_indexes="0,2", conditions=[FT_MAX]),
        adapted="gates off upstream: Failed at once; gate on: FailureTarget while the running "
        "pod terminates",
    ),
    "job failed due to exceeding max failed indexes; JobManagedBy enabled": WholeStatusCase(
        _indexed(4, backoffLimitPerIndex=1, maxFailedIndexes=1),
        built_pods([("a", "0", "Failed", "1", True), ("b", "1", "Succeeded", "0", True),
                    ("c", "2", "Failed", "1", True), ("d", "3", "Running", "0", True)]),
        _want(3, 1, terminating=1, completed="1", failed_indexes="0,2", conditions=[FT_MAX]),
        adapted=GATE_OFF_TERMINATING,
    ),
}  # fmt: skip


def _check_whole_status(case: WholeStatusCase) -> None:
    actions = run(job_of(case.spec, case.status), case.pods)
    assert whole_status(status_json(actions)) == case.want


@pytest.mark.parametrize("case", list(SUCCESS_POLICY.values()), ids=list(SUCCESS_POLICY))
def test_sync_job_with_job_success_policy(case: WholeStatusCase) -> None:
    _check_whole_status(case)


@pytest.mark.parametrize(
    "case", list(BACKOFF_LIMIT_PER_INDEX.values()), ids=list(BACKOFF_LIMIT_PER_INDEX)
)
def test_sync_job_with_job_backoff_limit_per_index(case: WholeStatusCase) -> None:
    _check_whole_status(case)
