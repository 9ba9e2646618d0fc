"""Builders for Volcano Job reconcile tests: a job, its pods, PodGroup and Commands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.volcanojob import reconcile
from shared.kube.timefmt import format_rfc3339
from shared.models import Command, Json, Pod, PodGroup, VolcanoJob, convert
from tests.unit.jobcontroller.statusjson import status_json

NOW = 1_714_557_600.0  # 2024-05-01T10:00:00Z
UID = "u-1"
NAME = "train"
NS = "ns"
PG_NAME = f"{NAME}-{UID}"


def vcjob(
    tasks: Iterable[tuple[str, int]] = (("master", 1), ("worker", 2)),
    *,
    phase: str = "",
    version: int = 0,
    retry: int = 0,
    status: Json | None = None,
    task_policies: dict[str, list[Json]] | None = None,
    task_min: dict[str, int] | None = None,
    cpu: str = "1",
    **spec: Any,
) -> VolcanoJob:
    task_specs = []
    for name, replicas in tasks:
        task: Json = {
            "name": name,
            "replicas": replicas,
            "template": {
                "spec": {
                    "containers": [
                        {"name": name, "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
                    ]
                }
            },
        }
        if task_policies and name in task_policies:
            task["policies"] = task_policies[name]
        if task_min and name in task_min:
            task["minAvailable"] = task_min[name]
        task_specs.append(task)
    body: Json = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {
            "name": NAME,
            "namespace": NS,
            "uid": UID,
            "creationTimestamp": format_rfc3339(NOW - 600),
        },
        "spec": {"tasks": task_specs, **spec},
        "status": {
            "state": {"phase": phase, "lastTransitionTime": format_rfc3339(NOW - 60)}
            if phase
            else {},
            "version": version,
            "retryCount": retry,
            "minAvailable": spec.get("minAvailable", sum(r for _, r in tasks)),
            **(status or {}),
        },
    }
    return convert(body, VolcanoJob)


def vcpod(
    task: str,
    index: int,
    phase: str = "Running",
    *,
    version: int = 0,
    exit_code: int | None = None,
    deleting: bool = False,
    restarts: int = 0,
    age: float = 30.0,
) -> Pod:
    container: Json = {"name": task, "restartCount": restarts}
    if exit_code is not None:
        container["state"] = {
            "terminated": {"exitCode": exit_code, "finishedAt": format_rfc3339(NOW - age)}
        }
    meta: Json = {
        "name": f"{NAME}-{task}-{index}",
        "namespace": NS,
        "uid": f"pod-{task}-{index}",
        "creationTimestamp": format_rfc3339(NOW - age),
        "annotations": {
            "volcano.sh/task-spec": task,
            "volcano.sh/job-name": NAME,
            "volcano.sh/job-version": str(version),
        },
        "ownerReferences": [
            {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": NAME,
             "uid": UID, "controller": True}
        ],
    }  # fmt: skip
    if deleting:
        meta["deletionTimestamp"] = format_rfc3339(NOW - age)
    body = {"metadata": meta, "status": {"phase": phase, "containerStatuses": [container]}}
    return convert(body, Pod)


def podgroup(phase: str = "Inqueue", *, min_member: int = 3, cpu: str = "3") -> PodGroup:
    body = {
        "metadata": {"name": PG_NAME, "namespace": NS},
        "spec": {
            "minMember": min_member,
            "minTaskMember": {"master": 1, "worker": 2},
            "queue": "default",
            "minResources": {"cpu": cpu},
        },
        "status": {"phase": phase},
    }
    return convert(body, PodGroup)


def command(action: str, name: str = "cmd-1", target: str = NAME) -> Command:
    body = {
        "metadata": {"name": name, "namespace": NS, "creationTimestamp": format_rfc3339(NOW - 5)},
        "action": action,
        "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": target},
    }
    return convert(body, Command)


def run(
    job: VolcanoJob,
    pods: Iterable[Pod] = (),
    *,
    pg: str | None = "Inqueue",
    commands: Iterable[Command] = (),
    satisfied: bool = True,
    now: float = NOW,
) -> Actions:
    observed = Observed(
        pods=list(pods),
        podgroups=[podgroup(pg)] if pg is not None else [],
        commands=list(commands),
        expectations_satisfied=satisfied,
    )
    return reconcile(job, observed, now)


def phase_of(actions: Actions) -> str:
    return str(status_json(actions)["state"]["phase"])


def created_names(actions: Actions, kind: str = "Pod") -> list[str]:
    return [obj["metadata"]["name"] for obj in actions.create if obj["kind"] == kind]


def deleted(actions: Actions, kind: str = "Pod") -> list[str]:
    return [key for key, k in zip(actions.delete, actions.delete_kinds, strict=True) if k == kind]


def all_running(version: int = 0) -> list[Pod]:
    return [vcpod("master", 0, version=version)] + [
        vcpod("worker", i, version=version) for i in range(2)
    ]
