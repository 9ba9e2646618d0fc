"""Kueue's job integration: a Kueue job's Workload, and the job held, started, stopped by it."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller import kueue
from services.jobcontroller.batchjob import reconcile as batch_reconcile
from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.kueue_kinds import BATCH_JOB, MIN_PARALLELISM_ANNOTATION
from shared.models import Job, Pod, PriorityClass, PyTorchJob, ResourceFlavor, Workload, convert
from shared.models.base import Condition
from tests.unit.jobcontroller.batchjob_cases import NOW, job, pod

Json = dict[str, Any]
LABELS = {kueue.QUEUE_NAME_LABEL: "user-queue"}


def kueue_job(*, suspend: bool = True, **spec: Any) -> Job:
    body = job("sample", **{"parallelism": 3, "completions": 3, **spec}, suspend=suspend)
    body["metadata"]["labels"] = dict(LABELS)
    return convert(body, Job)


def workload_of(
    j: Job, *, conditions: list[Json] | None = None, admitted: bool = False
) -> Workload:
    manifest = kueue.workload_manifest(j, BATCH_JOB)
    manifest["metadata"].update(uid="wl-uid", resourceVersion="7")
    status: Json = {"conditions": conditions or []}
    if admitted:
        status["admission"] = {
            "clusterQueue": "cluster-queue",
            "podSetAssignments": [{"name": "main", "flavors": {"cpu": "spot"}, "count": 3}],
        }
        status["conditions"] = [
            *status["conditions"],
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"},
            {"type": "Admitted", "status": "True", "reason": "Admitted"},
        ]
    manifest["status"] = status
    return convert(manifest, Workload)


SPOT = convert(
    {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ResourceFlavor",
        "metadata": {"name": "spot"},
        "spec": {
            "nodeLabels": {"instance-type": "spot"},
            "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
        },
    },
    ResourceFlavor,
)


def sync(
    j: Any, *, workloads: list[Workload] | None = None, pods: list[Pod] | None = None
) -> Actions:
    observed = Observed(pods=pods or [], workloads=workloads or [], flavors={"spot": SPOT})
    return kueue.sync(batch_reconcile, j, observed, NOW)


def _job_patch(actions: Actions) -> Json:
    patches = [p.patch for p in actions.patch if p.kind == "Job"]
    assert len(patches) == 1, actions.patch
    return patches[0]


def _workload_status(actions: Actions) -> Json:
    patches = [p for p in actions.patch if p.kind == "Workload"]
    assert len(patches) == 1, actions.patch
    assert patches[0].subresource == "status"
    assert patches[0].patch["metadata"] == {"resourceVersion": "7"}
    status: Json = patches[0].patch["status"]
    return status


def _condition(status: Json, kind: str) -> Json:
    return next(c for c in status["conditions"] if c["type"] == kind)


def test_workload_name_is_kueues() -> None:
    # kueue pkg/controller/jobframework/workload_names_test.go: "short name, no extra"
    named = convert(
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "name", "uid": "uid"}},
        Job,
    )
    assert kueue.workload_name(named, "batch") == "job-name-ef3a1"


def test_a_new_kueue_job_gets_one_workload_and_stays_suspended() -> None:
    j = kueue_job(parallelism=5, completions=3)
    actions = sync(j)
    [wl] = actions.create
    assert wl["kind"] == "Workload"
    assert wl["metadata"]["name"] == kueue.workload_name(j, "batch")
    assert wl["metadata"]["ownerReferences"][0]["uid"] == j.metadata.uid
    assert wl["metadata"]["labels"] == {kueue.JOB_UID_LABEL: j.metadata.uid}
    assert wl["spec"]["queueName"] == "user-queue"
    assert [(p["name"], p["count"]) for p in wl["spec"]["podSets"]] == [("main", 3)]
    assert not [c for c in actions.create if c["kind"] == "Pod"], "no pod before admission"
    assert actions.events[0][:2] == ("Normal", "CreatedWorkload")


def test_a_running_job_without_workload_is_suspended_first() -> None:
    actions = sync(kueue_job(suspend=False))
    assert _job_patch(actions) == {"spec": {"suspend": True}}
    assert [c["kind"] for c in actions.create] == ["Workload"]


def test_an_admitted_workload_starts_the_job_on_its_flavor() -> None:
    j = kueue_job()
    actions = sync(j, workloads=[workload_of(j, admitted=True)])
    spec = _job_patch(actions)["spec"]
    assert spec["suspend"] is False
    assert spec["template"]["spec"]["nodeSelector"] == {"instance-type": "spot"}
    assert spec["template"]["spec"]["tolerations"] == [
        {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert ("Normal", "Started", "Admitted by clusterQueue cluster-queue") in actions.events
    assert not actions.create


def test_partial_admission_runs_the_admitted_count() -> None:
    j = kueue_job(parallelism=5, completions=5)
    j.metadata.annotations[MIN_PARALLELISM_ANNOTATION] = "2"
    wl = workload_of(j, admitted=True)
    assert wl.status.admission is not None
    wl.status.admission.podSetAssignments[0].count = 2
    assert _job_patch(sync(j, workloads=[wl]))["spec"]["parallelism"] == 2


def test_an_evicted_workload_stops_the_job_and_restores_its_template() -> None:
    evicted = {"type": "Evicted", "status": "True", "reason": "Preempted", "message": "room"}
    j = kueue_job(suspend=False)
    wl = workload_of(j, conditions=[evicted], admitted=True)
    j.spec.template["spec"]["nodeSelector"] = {"instance-type": "spot"}  # added at start
    actions = sync(j, workloads=[wl])
    patch = _job_patch(actions)
    assert patch["spec"]["suspend"] is True
    assert patch["spec"]["template"]["spec"]["nodeSelector"] == {"instance-type": None}
    assert ("Normal", "Stopped", "room") in actions.events


def test_a_started_evicted_job_is_suspended_then_reset_then_restored() -> None:
    """Kueue's ``Job.Stop``: the API server refuses a change to a started Job's template
    (``field is immutable``), so the suspend and the ``startTime`` reset come first and the
    restore of the scheduling directives after them."""
    evicted = {"type": "Evicted", "status": "True", "reason": "Preempted", "message": "room"}
    j = kueue_job(suspend=False)
    wl = workload_of(j, conditions=[evicted], admitted=True)
    j.spec.template["spec"]["nodeSelector"] = {"instance-type": "spot"}
    j.status.startTime = "2026-01-01T00:00:00Z"
    actions = sync(j, workloads=[wl])
    first = [(p.subresource, p.patch) for p in actions.patch if p.kind == "Job"]
    assert first == [
        ("", {"spec": {"suspend": True}}),
        ("status", {"status": {"startTime": None}}),
    ]
    (after,) = [p for p in actions.patch_after_create if p.kind == "Job"]
    assert after.patch["spec"]["template"]["spec"]["nodeSelector"] == {"instance-type": None}
    assert "suspend" not in after.patch["spec"]


@pytest.mark.parametrize(
    ("reason", "requeued"), [("Preempted", "True"), ("ClusterQueueStopped", "False")]
)
def test_a_stopped_evicted_job_gives_its_quota_back(reason: str, requeued: str) -> None:
    evicted = {"type": "Evicted", "status": "True", "reason": reason, "message": "why"}
    j = kueue_job(suspend=True)
    status = _workload_status(
        sync(j, workloads=[workload_of(j, conditions=[evicted], admitted=True)])
    )
    assert status["admission"] is None
    assert _condition(status, "QuotaReserved")["reason"] == "Pending"
    assert _condition(status, "Admitted")["status"] == "False"
    assert (_condition(status, "Requeued")["status"], _condition(status, "Requeued")["reason"]) == (
        requeued,
        reason,
    )


def test_quota_is_kept_while_a_stopped_jobs_pods_still_run() -> None:
    evicted = {"type": "Evicted", "status": "True", "reason": "Preempted", "message": "why"}
    j = kueue_job(suspend=True)
    running = convert(pod("sample-a", "Running"), Pod)
    actions = sync(
        j, workloads=[workload_of(j, conditions=[evicted], admitted=True)], pods=[running]
    )
    assert not [p for p in actions.patch if p.kind == "Workload"]


def test_a_finished_job_finishes_its_workload() -> None:
    j = kueue_job(suspend=False)
    done = {"type": "Complete", "status": "True", "message": "Reached expected number"}
    j.status.conditions = [convert(done, Condition)]
    status = _workload_status(sync(j, workloads=[workload_of(j, admitted=True)]))
    finished = _condition(status, "Finished")
    assert (finished["status"], finished["reason"]) == ("True", "Succeeded")


def test_a_not_admitted_running_job_is_stopped() -> None:
    j = kueue_job(suspend=False)
    actions = sync(j, workloads=[workload_of(j)])
    assert _job_patch(actions)["spec"]["suspend"] is True
    assert ("Normal", "Stopped", "Not admitted by cluster queue") in actions.events


def test_a_job_without_the_label_is_not_kueues() -> None:
    plain = convert(job("plain", parallelism=1), Job)
    assert kueue.reconcile(plain, [], {}, active_pods=[], now=NOW) is None


def test_pytorchjob_pod_sets_are_master_then_worker() -> None:
    manifest = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "pt", "namespace": "ns", "uid": "pt-uid", "labels": dict(LABELS)},
        "spec": {
            "runPolicy": {"suspend": True},
            "pytorchReplicaSpecs": {
                "Worker": {"replicas": 2, "template": {"spec": {"containers": []}}},
                "Master": {"replicas": 1, "template": {"spec": {"containers": []}}},
            },
        },
    }
    step = kueue.reconcile(convert(manifest, PyTorchJob), [], {}, active_pods=[], now=NOW)
    assert step is not None
    [wl] = step.actions.create
    assert [(p["name"], p["count"]) for p in wl["spec"]["podSets"]] == [
        ("master", 1),
        ("worker", 2),
    ]


def _priority_class(name: str, value: int, *, default: bool = False) -> PriorityClass:
    return convert(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "globalDefault": default,
        },
        PriorityClass,
    )


@pytest.mark.parametrize(
    ("template_class", "classes", "expected"),
    [
        ("high", {"high": 1000}, {"priorityClassName": "high", "priority": 1000}),
        ("", {"high": 1000}, {"priority": 0}),
        ("", {"high": 1000, "base": -5}, {"priorityClassName": "base", "priority": -5}),
        ("high", {}, {"priorityClassName": "high"}),
    ],
    ids=["named-class", "no-class-no-default", "global-default", "class-not-seen-yet"],
)
def test_a_new_workload_carries_its_priority_class_value(
    template_class: str, classes: dict[str, int], expected: Json
) -> None:
    """``GetPriorityFromPriorityClass``: the value of the pod template's PriorityClass, else
    the global default's, else 0 (Kueue's webhook refuses a class name without a priority)."""
    spec: Json = {"priorityClassName": template_class} if template_class else {}
    body = job("sample", parallelism=1, completions=1, suspend=True)
    body["metadata"]["labels"] = dict(LABELS)
    body["spec"]["template"]["spec"].update(spec)
    known = {
        name: _priority_class(name, value, default=name == "base")
        for name, value in classes.items()
    }
    manifest = kueue.workload_manifest(convert(body, Job), BATCH_JOB, known)
    got = {k: v for k, v in manifest["spec"].items() if k.startswith("priority")}
    if "priorityClassName" in expected:
        name = expected.pop("priorityClassName")
        ref = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": name}
        expected = {**expected, "priorityClassRef": ref}
    assert got == expected
