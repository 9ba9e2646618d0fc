"""Builders for PyTorchJob reconcile tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.pytorchjob import reconcile
from shared.kube.timefmt import format_rfc3339
from shared.models import Json, Pod, PodGroup, PyTorchJob, Service, convert, load_manifests, of_kind
from tests.unit.jobcontroller.statusjson import status_json

NOW = 1_714_557_600.0  # 2024-05-01T10:00:00Z
STAMP = format_rfc3339(NOW)
NAME = "ddp"
NS = "ml"
UID = "pt-1"
DATA = Path(__file__).parents[2] / "data" / "jobcontroller"


def sample(file: str) -> PyTorchJob:
    return of_kind(load_manifests((DATA / file).read_text()), PyTorchJob)[0]


def _replica(replicas: int, restart: str, scheduler: str | None) -> Json:
    spec: Json = {"containers": [{"name": "pytorch", "image": "torch",
                                  "resources": {"requests": {"cpu": "1"}}}]}  # fmt: skip
    if scheduler:
        spec["schedulerName"] = scheduler
    return {"replicas": replicas, "restartPolicy": restart, "template": {"spec": spec}}


def ptjob(
    *,
    master: int | None = 1,
    workers: int = 2,
    restart: str = "OnFailure",
    worker_restart: str | None = None,
    scheduler: str | None = None,
    conditions: list[Json] | None = None,
    status: Json | None = None,
    **run_policy: Any,
) -> PyTorchJob:
    specs: Json = {"Worker": _replica(workers, worker_restart or restart, scheduler)}
    if master is not None:
        specs["Master"] = _replica(master, restart, scheduler)
    body: Json = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": NAME, "namespace": NS, "uid": UID},
        "spec": {"pytorchReplicaSpecs": specs, "runPolicy": run_policy},
        "status": {"conditions": conditions or [], **(status or {})},
    }
    return convert(body, PyTorchJob)


def condition(type_: str, status: str = "True", reason: str = "") -> Json:
    stamp = format_rfc3339(NOW - 100)
    return {"type": type_, "status": status, "reason": reason or f"PyTorchJob{type_}",
            "lastUpdateTime": stamp, "lastTransitionTime": stamp}  # fmt: skip


def ptpod(
    rtype: str,
    index: int,
    phase: str = "Running",
    *,
    exit_code: int | None = None,
    restarts: int = 0,
    deleting: bool = False,
) -> Pod:
    container: Json = {"name": "pytorch", "restartCount": restarts}
    if exit_code is not None:
        container["state"] = {"terminated": {"exitCode": exit_code}}
    meta: Json = {
        "name": f"{NAME}-{rtype}-{index}",
        "namespace": NS,
        "labels": {
            "training.kubeflow.org/job-name": NAME,
            "training.kubeflow.org/operator-name": "pytorchjob-controller",
            "training.kubeflow.org/replica-type": rtype,
            "training.kubeflow.org/replica-index": str(index),
        },
        "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                             "name": NAME, "uid": UID, "controller": True}],
    }  # fmt: skip
    if deleting:
        meta["deletionTimestamp"] = format_rfc3339(NOW)
    return convert({"metadata": meta, "status": {"phase": phase,
                    "containerStatuses": [container]}}, Pod)  # fmt: skip


def ptservice(rtype: str, index: int) -> Service:
    pod = ptpod(rtype, index)
    return convert({"metadata": {"name": pod.metadata.name, "namespace": NS,
                                 "labels": pod.metadata.labels,
                                 "ownerReferences": [{"kind": "PyTorchJob", "name": NAME,
                                                      "uid": UID, "controller": True}]}},
                   Service)  # fmt: skip


def ptpg(phase: str = "Inqueue", min_member: int = 3) -> PodGroup:
    body = {
        "metadata": {"name": NAME, "namespace": NS},
        "spec": {"minMember": min_member, "queue": "default", "minResources": {"cpu": "3"}},
        "status": {"phase": phase},
    }
    return convert(body, PodGroup)


def run(
    job: PyTorchJob,
    pods: Iterable[Pod] = (),
    *,
    services: Iterable[Service] = (),
    pg: PodGroup | None = None,
    satisfied: bool = True,
    now: float = NOW,
) -> Actions:
    observed = Observed(
        pods=list(pods),
        services=list(services),
        podgroups=[pg] if pg is not None else [],
        expectations_satisfied=satisfied,
    )
    return reconcile(job, observed, now)


def conditions_of(actions: Actions) -> dict[str, tuple[str, str]]:
    conditions = status_json(actions).get("conditions", [])
    return {c["type"]: (c["status"], c["reason"]) for c in conditions}


def created(actions: Actions, kind: str) -> list[Json]:
    return [obj for obj in actions.create if obj["kind"] == kind]


def deleted(actions: Actions, kind: str = "Pod") -> list[str]:
    return [key for key, k in zip(actions.delete, actions.delete_kinds, strict=True) if k == kind]


def all_services(master: int = 1, workers: int = 2) -> list[Service]:
    return [ptservice("master", i) for i in range(master)] + [
        ptservice("worker", i) for i in range(workers)
    ]
