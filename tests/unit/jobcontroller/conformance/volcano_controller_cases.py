"""Upstream's fixtures for the volcano ``pkg/controllers/job`` tests, as Shoal models.

``buildPod`` (``job_controller_handler_test.go``): a pod controlled by a Volcano Job, annotated
``foo: bar``. Upstream files pods by task in ``JobInfo.Pods[task]``; Shoal reads the task from
the ``volcano.sh/task-spec`` annotation, so the pods here carry it. Jobs are upstream's literals:
no webhook defaults (``minAvailable`` 0 unless set).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.volcanojob import reconcile
from shared.kube.timefmt import format_rfc3339
from shared.models import Command, Pod, PodGroup, VolcanoJob, convert

NOW = 1_719_846_000.0  # 2024-07-01T15:00:00Z
NS = "test"
UID = "e7f18111-1cec-11ea-b688-fa163ec79500"


def job(
    name: str, *, phase: str = "", namespace: str = NS, tasks: list[dict[str, Any]] | None = None,
    plugins: Sequence[str] = (), status: dict[str, Any] | None = None, **spec: Any,
) -> VolcanoJob:  # fmt: skip
    body = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "uid": UID, "resourceVersion": "100",
                     "creationTimestamp": format_rfc3339(NOW - 600)},
        "spec": {"minAvailable": 0, "tasks": tasks or [],
                 "plugins": {p: [] for p in plugins}, **spec},
        "status": {**(status or {}), "state": {"phase": phase}},
    }  # fmt: skip
    return convert(body, VolcanoJob)


def task(name: str, replicas: int, **extra: Any) -> dict[str, Any]:
    template = {"metadata": {"name": "pods", "namespace": NS},
                "spec": {"containers": [{"name": "Containers"}]}}  # fmt: skip
    return {"name": name, "replicas": replicas, "template": template, **extra}


def build_pod(
    name: str, phase: str, task_name: str, *, job_name: str, namespace: str = NS,
    exit_code: int | None = None,
) -> Pod:  # fmt: skip
    meta = {"name": name, "namespace": namespace, "uid": f"{namespace}-{name}",
            "annotations": {"foo": "bar", "volcano.sh/task-spec": task_name,
                            "volcano.sh/job-name": job_name, "volcano.sh/job-version": "0"},
            "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                 "name": job_name, "uid": UID, "controller": True}]}  # fmt: skip
    container: dict[str, Any] = {"name": "nginx"}
    if exit_code is not None:
        container["state"] = {"terminated": {"exitCode": exit_code,
                                             "finishedAt": format_rfc3339(NOW - 5)}}  # fmt: skip
    spec = {"containers": [{"name": "nginx", "image": "nginx:latest"}]}
    status = {"phase": phase, "containerStatuses": [container]}
    return convert({"metadata": meta, "spec": spec, "status": status}, Pod)


def podgroup(name: str, phase: str = "Inqueue", namespace: str = NS, **status: Any) -> PodGroup:
    body = {"metadata": {"name": name, "namespace": namespace},
            "spec": {"minMember": 0, "minResources": {}},
            "status": {"phase": phase, **status}}  # fmt: skip
    return convert(body, PodGroup)


def command(action: str, target: str) -> Command:
    body = {"metadata": {"name": "cmd", "namespace": NS,
                         "creationTimestamp": format_rfc3339(NOW - 1)},
            "action": action,
            "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                       "name": target, "uid": UID}}  # fmt: skip
    return convert(body, Command)


def sync(
    vcjob: VolcanoJob, pods: Sequence[Pod] = (), podgroups: Sequence[PodGroup] = (),
    commands: Sequence[Command] = (),
) -> Actions:  # fmt: skip
    observed = Observed(pods=list(pods), podgroups=list(podgroups), commands=list(commands))
    return reconcile(vcjob, observed, NOW)


def deleted(actions: Actions, kind: str) -> list[str]:
    return [k for k, kd in zip(actions.delete, actions.delete_kinds, strict=True) if kd == kind]
