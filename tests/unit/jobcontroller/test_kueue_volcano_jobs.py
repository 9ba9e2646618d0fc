"""Kueue's integration of a Volcano Job: held without pods until admitted (it has no suspend
switch and Volcano's webhook refuses template changes), started on its flavor by the pods it
creates, stopped by deleting its pods, and its Workload finished with it."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller import kueue
from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.kueue_kinds import VOLCANO_JOB
from services.jobcontroller.volcanojob import reconcile as volcano_reconcile
from shared.models import Pod, PodGroup, ResourceFlavor, VolcanoJob, Workload, convert
from tests.unit.jobcontroller.volcano_cases import NOW, podgroup, vcjob, vcpod

Json = dict[str, Any]
SPOT = convert(
    {
        "metadata": {"name": "spot"},
        "spec": {
            "nodeLabels": {"instance-type": "spot"},
            "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
        },
    },
    ResourceFlavor,
)
EVICTED = {"type": "Evicted", "status": "True", "reason": "Preempted", "message": "room"}


def queued_job(phase: str = "", **spec: Any) -> VolcanoJob:
    job = vcjob(phase=phase, **spec)
    job.metadata.labels[kueue.QUEUE_NAME_LABEL] = "user-queue"
    return job


def workload_of(
    job: VolcanoJob, *, admitted: bool = False, conditions: list[Json] | None = None
) -> Workload:
    manifest = kueue.workload_manifest(job, VOLCANO_JOB)
    manifest["metadata"].update(uid="wl-uid", resourceVersion="3")
    status: Json = {"conditions": list(conditions or [])}
    if admitted:
        status["admission"] = {
            "clusterQueue": "cq",
            "podSetAssignments": [
                {"name": name, "flavors": {"cpu": "spot"}, "count": count}
                for name, count in (("master", 1), ("worker", 2))
            ],
        }
        status["conditions"] += [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"},
            {"type": "Admitted", "status": "True", "reason": "Admitted"},
        ]
    manifest["status"] = status
    return convert(manifest, Workload)


def sync(
    job: VolcanoJob,
    *,
    workloads: list[Workload] | None = None,
    pods: list[Pod] | None = None,
    podgroups: list[PodGroup] | None = None,
) -> Actions:
    observed = Observed(
        pods=pods or [],
        podgroups=podgroups or [],
        workloads=workloads or [],
        flavors={"spot": SPOT},
    )
    return kueue.sync(volcano_reconcile, job, observed, NOW)


def kinds(actions: Actions) -> list[str]:
    return [obj["kind"] for obj in actions.create]


def test_workload_has_one_pod_set_per_task_and_the_jobs_priority_class() -> None:
    job = queued_job(priorityClassName="high")
    [wl] = sync(job).create
    assert wl["metadata"]["name"] == kueue.workload_name(job, "batch.volcano.sh")
    assert wl["metadata"]["name"].startswith("job-train-")
    assert wl["metadata"]["ownerReferences"][0]["kind"] == "Job"
    assert [(p["name"], p["count"]) for p in wl["spec"]["podSets"]] == [
        ("master", 1),
        ("worker", 2),
    ]
    assert wl["spec"]["priorityClassRef"] == {
        "group": "scheduling.k8s.io",
        "kind": "PriorityClass",
        "name": "high",
    }


@pytest.mark.parametrize(
    "workloads",
    [pytest.param([], id="no-workload-yet"), pytest.param(None, id="workload-pending")],
)
def test_a_job_not_admitted_creates_no_podgroup_and_no_pod(
    workloads: list[Workload] | None,
) -> None:
    job = queued_job()
    actions = sync(job, workloads=workloads if workloads is not None else [workload_of(job)])
    assert "Pod" not in kinds(actions)
    assert "PodGroup" not in kinds(actions)
    assert actions.status is None, "the Volcano Job's own sync did not run"


def test_an_admitted_job_runs_its_own_sync_and_its_pods_land_on_the_flavor() -> None:
    job = queued_job(phase="Pending")
    actions = sync(job, workloads=[workload_of(job, admitted=True)], podgroups=[podgroup()])
    pods = [obj for obj in actions.create if obj["kind"] == "Pod"]
    assert len(pods) == 3
    for pod in pods:
        assert pod["spec"]["nodeSelector"] == {"instance-type": "spot"}
        assert pod["spec"]["tolerations"] == [
            {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
        ]


def test_an_evicted_job_loses_its_running_pods_and_keeps_its_quota_until_they_are_gone() -> None:
    job = queued_job(phase="Running")
    wl = workload_of(job, admitted=True, conditions=[EVICTED])
    pods = [vcpod("master", 0), vcpod("worker", 0), vcpod("worker", 1, "Succeeded")]
    actions = sync(job, workloads=[wl], pods=pods, podgroups=[podgroup("Running")])
    assert sorted(actions.delete) == ["ns/train-master-0", "ns/train-worker-0"]
    assert ("Normal", "Stopped", "room") in actions.events
    assert not [p for p in actions.patch if p.kind == "Workload"], "quota kept while pods run"
    assert not actions.create


def test_an_evicted_job_without_running_pods_gives_its_quota_back() -> None:
    job = queued_job(phase="Running")
    wl = workload_of(job, admitted=True, conditions=[EVICTED])
    actions = sync(job, workloads=[wl], pods=[vcpod("master", 0, deleting=True)])
    [patch] = [p for p in actions.patch if p.kind == "Workload"]
    assert patch.patch["status"]["admission"] is None
    assert not actions.create, "held again: no pod is recreated"


def test_a_running_job_whose_admission_was_withdrawn_is_stopped() -> None:
    job = queued_job(phase="Running")
    actions = sync(job, workloads=[workload_of(job)], pods=[vcpod("master", 0)])
    assert actions.delete == ["ns/train-master-0"]
    assert ("Normal", "Stopped", "Not admitted by cluster queue") in actions.events


@pytest.mark.parametrize(
    ("phase", "reason"),
    [("Completed", "Succeeded"), ("Failed", "Failed"), ("Aborted", "Failed")],
)
def test_a_finished_job_finishes_its_workload(phase: str, reason: str) -> None:
    job = queued_job(phase=phase)
    actions = sync(job, workloads=[workload_of(job, admitted=True)])
    [patch] = [p for p in actions.patch if p.kind == "Workload"]
    finished = next(c for c in patch.patch["status"]["conditions"] if c["type"] == "Finished")
    assert (finished["status"], finished["reason"]) == ("True", reason)


def test_a_volcano_job_without_the_label_is_not_kueues() -> None:
    assert kueue.reconcile(vcjob(), [], {}, active_pods=[], now=NOW) is None
    assert "PodGroup" in kinds(sync(vcjob()))
