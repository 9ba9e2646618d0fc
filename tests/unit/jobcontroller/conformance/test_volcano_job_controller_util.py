"""volcano ``pkg/controllers/job/job_controller_util_test.go``, ported: ``TestMakePodName`` and
``TestApplyPolicies`` (the tables about the reconcile; the ``createJobPod``, partition and
priority helpers are covered by the creation tests). Each row keeps its upstream name.

Upstream's ``applyPolicies(job, request)`` maps one informer request to an action. Shoal derives
the events from the pods (``derive_events``) and maps them with ``decide``; a request becomes the
``JobEvent`` it stands for — its event, task and exit code (Go's zero value 0 when the request
has none, as upstream compares it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from services.jobcontroller.volcanojob.objects import pod_name
from services.jobcontroller.volcanojob.policies import JobEvent, decide, derive_events
from services.jobcontroller.volcanojob.reconcile import _owned
from services.jobcontroller.volcanojob.spec import job_view
from shared.models import Pod, VolcanoJob, convert

NOW = 1_714_557_600.0


def test_make_pod_name() -> None:
    # "Test MakePodName function"
    job = job_view(_job(tasks=[{"name": "task1", "replicas": 2}], name="job1"))
    task = job.task("task1")
    assert task is not None
    assert pod_name(job, task, 1) == "job1-task1-1"


def _job(*, tasks: list[dict[str, Any]], policies: list[dict[str, Any]] | None = None,
         name: str = "job1", uid: str = "", version: int = 0) -> VolcanoJob:  # fmt: skip
    specs = [{"template": {"spec": {"containers": [{"name": "Containers"}]}}, **t} for t in tasks]
    body = {"metadata": {"name": name, "namespace": "test", "uid": uid},
            "spec": {"schedulerName": "volcano", "tasks": specs, "policies": policies or []},
            "status": {"version": version}}  # fmt: skip
    return convert(body, VolcanoJob)


def _task(policies: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"name": "task1", "replicas": 6, "policies": policies or []}


@dataclass
class PolicyCase:
    tasks: list[dict[str, Any]]
    request: dict[str, Any]
    return_val: str
    policies: list[dict[str, Any]] = field(default_factory=list)


APPLY_POLICIES: dict[str, PolicyCase] = {
    "Test Apply policies where event is OutOfSync": PolicyCase(
        [_task()], {"event": "OutOfSync"}, "SyncJob"
    ),
    "Test Apply policies where event is PodRunning": PolicyCase(
        [_task()], {"event": "PodRunning"}, "SyncJob"
    ),
    "Test Apply policies where overriding job level policies and with exitcode": PolicyCase(
        [_task([{"action": "SyncJob", "event": "CommandIssued", "exitCode": 0}])],
        {"task": "task1"},
        "SyncJob",
    ),
    "Test Apply policies where overriding job level policies and without exitcode": PolicyCase(
        [_task([{"action": "SyncJob", "event": "CommandIssued"}])],
        {"task": "task1", "event": "CommandIssued"},
        "SyncJob",
    ),
    "Test Apply policies with job level policies": PolicyCase(
        [_task()], {"task": "task1", "event": "CommandIssued"}, "SyncJob"
    ),
    # Upstream names the next row as the one above.
    "Test Apply policies with job level policies (second row: a SyncJob policy)": PolicyCase(
        [_task()],
        {"event": "CommandIssued"},
        "SyncJob",
        policies=[{"action": "SyncJob", "event": "CommandIssued"}],
    ),
    "Test Apply policies with job level policies, the event is PodPending with timeout": (
        PolicyCase(
            [_task()],
            {"event": "PodPending"},
            "RestartPod",
            policies=[{"action": "RestartPod", "event": "PodPending", "timeout": "10s"}],
        )
    ),
    "Test Apply policies with job level policies, the event is PodPending without timeout": (
        PolicyCase(
            [_task()],
            {"event": "PodPending"},
            "SyncJob",
            policies=[{"action": "RestartPod", "event": "PodPending"}],
        )
    ),
    "Test Apply policies with job level policies with exitcode": PolicyCase(
        [_task()],
        {},
        "SyncJob",
        policies=[{"action": "SyncJob", "event": "CommandIssued", "exitCode": 0}],
    ),
}


@pytest.mark.parametrize("case", list(APPLY_POLICIES.values()), ids=list(APPLY_POLICIES))
def test_apply_policies(case: PolicyCase) -> None:
    job = job_view(_job(tasks=case.tasks, policies=case.policies))
    request = case.request
    event = JobEvent(request.get("event", ""), request.get("task", ""), exit_code=0)
    # A delayed action is returned with its delay upstream; only the action is compared there.
    assert decide(job, [event], NOW).action == case.return_val


def _pod(name: str, *, owner_uid: str, version: int, deleting: bool = False) -> Pod:
    meta: dict[str, Any] = {
        "name": name, "namespace": "test",
        "annotations": {"volcano.sh/task-spec": "task1", "volcano.sh/job-version": str(version)},
        "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                             "name": "job1", "uid": owner_uid, "controller": True}],
    }  # fmt: skip
    if deleting:
        meta["deletionTimestamp"] = "2024-05-01T09:59:00Z"
    return convert({"metadata": meta, "status": {"phase": "Running"}}, Pod)


def test_apply_policies_where_job_uid_is_inconsistent() -> None:
    # "Test Apply policies where job uid is inconsistent, ignore the existing policy action in
    # the job and execute syncjob": a PodEvicted of a pod of the previous job of that name.
    # Shoal only derives events from the pods the job's own uid controls.
    policy = {"action": "TerminateJob", "event": "PodEvicted", "exitCode": 0}
    job = _job(tasks=[_task([policy])], uid="job1-uid-10001")
    old = _pod("job1-task1-0", owner_uid="job1-uid-10000", version=0, deleting=True)
    view = job_view(job)
    pods = {"task1": [p for p in [old] if _owned(p, view)]}
    assert decide(view, derive_events(view, pods, 0, None), NOW).action == "SyncJob"
    mine = _pod("job1-task1-0", owner_uid="job1-uid-10001", version=0, deleting=True)
    events = derive_events(view, {"task1": [mine]}, 0, None)
    assert decide(view, events, NOW).action == "TerminateJob"  # the same event, owned


def test_apply_policies_where_version_is_outdated() -> None:
    # "Test Apply policies where version is outdated": a request of job version 1 while the job
    # is at version 0 (upstream compares req.JobVersion < job.Status.Version; the request is
    # newer here, and no policy applies either way). Shoal derives events only from pods of
    # the job's current version.
    view = job_view(_job(tasks=[_task([{"action": "AbortJob", "event": "PodEvicted"}])]))
    stale = _pod("job1-task1-0", owner_uid="", version=1, deleting=True)
    assert derive_events(view, {"task1": [stale]}, 0, None) == []
    assert decide(view, [], NOW).action == "SyncJob"
