"""Builders for batch/v1 Job reconcile cases: a Job and its pods as the cache holds them."""

from __future__ import annotations

from typing import Any

from services.jobcontroller.batchjob import reconcile
from services.jobcontroller.core import Actions, Observed
from shared.kube.timefmt import format_rfc3339
from shared.models import Job, Pod, convert
from tests.unit.jobcontroller.statusjson import status_json

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z
UID = "uid-1"
FINALIZER = "batch.kubernetes.io/job-tracking"
INDEX = "batch.kubernetes.io/job-completion-index"
# The status once nothing is uncounted (present, so the written patch empties the lists).
NO_UNCOUNTED: dict[str, list[str]] = {}


def stamp(offset: float = 0.0) -> str:
    return format_rfc3339(NOW + offset)


def job(name: str = "work", *, status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {
                "restartPolicy": spec.pop("restartPolicy", "Never"),
                "containers": [{"name": "main", "image": "busybox"}],
            },
        }
    }
    body.update(spec)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "ns", "uid": UID},
        "spec": body,
        "status": status or {},
    }


def pod(
    name: str,
    phase: str = "Running",
    *,
    index: int | None = None,
    ready: bool = False,
    node: str | None = "n1",
    owned: bool = True,
    finalizer: bool = True,
    deleting: bool = False,
    exit_code: int | None = None,
    container: str = "main",
    conditions: list[dict[str, Any]] | None = None,
    created: float = -100.0,
    finished: float = -10.0,
    restarts: int = 0,
    annotations: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    job_name: str = "work",
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": "ns",
        "uid": f"pod-{name}",
        "creationTimestamp": stamp(created),
        "labels": {"batch.kubernetes.io/controller-uid": UID, **(labels or {})},
        "annotations": dict(annotations or {}),
    }
    if index is not None:
        meta["annotations"][INDEX] = str(index)
    if owned:
        meta["ownerReferences"] = [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "name": job_name,
                "uid": UID,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    if finalizer:
        meta["finalizers"] = [FINALIZER]
    if deleting:
        meta["deletionTimestamp"] = stamp(-1)
    conds = list(conditions or [])
    if ready:
        conds.append({"type": "Ready", "status": "True", "lastTransitionTime": stamp(-50)})
    state: dict[str, Any] = {"running": {}}
    if phase in ("Succeeded", "Failed"):
        code = exit_code if exit_code is not None else (0 if phase == "Succeeded" else 1)
        state = {"terminated": {"exitCode": code, "finishedAt": stamp(finished)}}
    status = {
        "phase": phase,
        "conditions": conds,
        "containerStatuses": [{"name": container, "restartCount": restarts, "state": state}],
    }
    spec: dict[str, Any] = {"containers": [{"name": container}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def sync(
    job_doc: dict[str, Any],
    pods: list[dict[str, Any]] | None = None,
    *,
    satisfied: bool = True,
    now: float = NOW,
    removing: list[str] | None = None,
) -> Actions:
    pods = pods or []
    owned = [convert(p, Pod) for p in pods if p["metadata"].get("ownerReferences")]
    orphans = [convert(p, Pod) for p in pods if not p["metadata"].get("ownerReferences")]
    observed = Observed(
        pods=owned,
        orphans=orphans,
        expectations_satisfied=satisfied,
        finalizers_removing=frozenset(removing or ()),
    )
    return reconcile(convert(job_doc, Job), observed, now)


def condition_types(actions: Actions) -> list[str]:
    conditions = status_json(actions).get("conditions", [])
    return [c["type"] for c in conditions if c["status"] == "True"]


def counts(actions: Actions) -> tuple[int, int, int]:
    s = status_json(actions)
    return s["active"], s["succeeded"], s["failed"]


class Case:
    """One table row: a Job and its pods in, the expected decisions out (None: not checked)."""

    def __init__(
        self,
        id: str,
        job: dict[str, Any],
        pods: list[dict[str, Any]] | None = None,
        *,
        satisfied: bool = True,
        now: float = NOW,
        created: int | None = None,
        created_names: list[str] | None = None,
        created_indexes: list[int] | None = None,
        deleted: list[str] | None = None,
        counts: tuple[int, int, int] | None = None,
        conditions: list[str] | None = None,
        status: dict[str, Any] | None = None,
        finalizers_removed: list[str] | None = None,
        requeue_after: float | None = None,
        batches: list[int] | None = None,
        no_status: bool = False,
        removing: list[str] | None = None,
    ) -> None:
        self.id, self.job, self.pods = id, job, pods or []
        self.satisfied, self.now = satisfied, now
        self.created, self.created_names = created, created_names
        self.created_indexes, self.deleted = created_indexes, deleted
        self.counts, self.conditions, self.status = counts, conditions, status
        self.finalizers_removed, self.requeue_after = finalizers_removed, requeue_after
        self.batches, self.no_status = batches, no_status
        self.removing = removing


def check(case: Case) -> Actions:
    actions = sync(
        case.job, case.pods, satisfied=case.satisfied, now=case.now, removing=case.removing
    )
    if case.no_status:
        assert actions.status is None
        assert not actions.create and not actions.delete
        return actions
    if case.created is not None:
        assert len(actions.create) == case.created
    if case.created_names is not None:
        assert [p["metadata"]["name"] for p in actions.create] == case.created_names
    if case.created_indexes is not None:
        got = [int(p["metadata"]["annotations"][INDEX]) for p in actions.create]
        assert got == case.created_indexes
    if case.deleted is not None:
        assert actions.delete == case.deleted
    if case.counts is not None:
        assert counts(actions) == case.counts
    if case.conditions is not None:
        assert condition_types(actions) == case.conditions
    if case.status is not None:
        status = status_json(actions)
        assert {k: status.get(k) for k in case.status} == case.status
    if case.finalizers_removed is not None:
        removed = [
            p.key
            for p in actions.patch
            if "$deleteFromPrimitiveList/finalizers" in p.patch.get("metadata", {})
        ]
        assert removed == case.finalizers_removed
    if case.requeue_after is not None:
        assert actions.requeue_after == case.requeue_after
    if case.batches is not None:
        assert actions.create_batches == case.batches
    return actions
