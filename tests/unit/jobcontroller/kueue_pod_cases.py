"""Builders for the ports of Kueue's pod integration tests (``testingjobs/pod`` wrappers and
``utiltestingapi.MakeWorkload``), and a summary of what one reconcile decided."""

from __future__ import annotations

import copy
from typing import Any

from services.jobcontroller import kueue_pod_workloads
from services.jobcontroller.core import Actions
from shared.models import Pod, ResourceFlavor, Workload, convert

Json = dict[str, Any]
NOW = 1_700_000_000.0
USER_QUEUE = "user-queue"
TEST_QUEUE = "test-queue"
CLUSTER_QUEUE = "cq"
POD_UID = "dc85db45"  # the role hash of the base pod, as upstream's tests name it
PREEMPTED = "Preempted to accommodate a higher priority Workload"


def pod(
    name: str = "pod",
    *,
    managed: bool = True,
    finalizer: bool = True,
    gated: bool = False,
    queue: str = USER_QUEUE,
    group: str = "",
    total: str = "",
    phase: str = "",
    message: str = "",
    annotations: dict[str, str] | None = None,
    deleted: bool = False,
    node_selector: dict[str, str] | None = None,
    memory: str = "",
    created: str = "",
    deleted_at: str = "",
    conditions: list[Json] | None = None,
    other_finalizers: tuple[str, ...] = (),
) -> Pod:
    """``basePodWrapper``: ns ``ns``, uid ``test-uid``, one container asking 1 CPU."""
    labels = {"kueue.x-k8s.io/queue-name": queue} if queue else {}
    if managed:
        labels[kueue_pod_workloads.MANAGED_LABEL] = "true"
    if group:
        labels[kueue_pod_workloads.GROUP_NAME_LABEL] = group
    notes = dict(annotations or {})
    if total:
        notes[kueue_pod_workloads.GROUP_TOTAL_COUNT_ANNOTATION] = total
    meta: Json = {"name": name, "namespace": "ns", "uid": "test-uid", "resourceVersion": "1"}
    meta.update(labels=labels, annotations=notes)
    meta["finalizers"] = [kueue_pod_workloads.POD_FINALIZER] if finalizer else []
    meta["finalizers"] += other_finalizers
    if deleted or deleted_at:
        meta["deletionTimestamp"] = deleted_at or "2023-11-14T22:00:00Z"
    if created:
        meta["creationTimestamp"] = created
    spec: Json = {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "", "resources": {"requests": {"cpu": "1"}}}],
    }
    if memory:
        spec["containers"][0]["resources"]["requests"]["memory"] = memory
    if gated:
        spec["schedulingGates"] = [{"name": kueue_pod_workloads.SCHEDULING_GATE}]
    if node_selector:
        spec["nodeSelector"] = node_selector
    status: Json = {}
    if phase:
        status["phase"] = phase
    if message:
        status["message"] = message
    if conditions:
        status["conditions"] = conditions
    return convert({"metadata": meta, "spec": spec, "status": status}, Pod)


def workload(
    name: str,
    *,
    owners: list[str] | None = None,
    podsets: list[tuple[str, int]] | None = None,
    queue: str = USER_QUEUE,
    admitted: list[tuple[str, str]] | None = None,
    conditions: list[Json] | None = None,
    deleted: bool = False,
    reclaimable: list[tuple[str, int]] | None = None,
) -> Workload:
    """``MakeWorkload``: ``owners`` the pods that own it; ``admitted``: (pod set, flavor)."""
    refs = [
        {"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": "test-uid"}
        for owner in owners or ["pod"]
    ]
    meta: Json = {"name": name, "namespace": "ns", "resourceVersion": "7", "ownerReferences": refs}
    if deleted:
        meta["deletionTimestamp"] = "2023-11-14T22:00:00Z"
    sets = [{"name": n, "count": c, "template": {}} for n, c in podsets or [("main", 1)]]
    status: Json = {"conditions": copy.deepcopy(conditions or [])}
    if admitted is not None:
        status["admission"] = {
            "clusterQueue": CLUSTER_QUEUE,
            "podSetAssignments": [{"name": n, "flavors": {"cpu": f}} for n, f in admitted],
        }
        status["conditions"] += [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"},
            {"type": "Admitted", "status": "True", "reason": "Admitted"},
        ]
    if reclaimable:
        status["reclaimablePods"] = [{"name": n, "count": c} for n, c in reclaimable]
    body = {"metadata": meta, "spec": {"queueName": queue, "podSets": sets}, "status": status}
    return convert(body, Workload)


def evicted(reason: str = "Preempted", message: str = PREEMPTED) -> Json:
    return {"type": "Evicted", "status": "True", "reason": reason, "message": message}


UNIT_TEST_FLAVOR = convert(
    {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ResourceFlavor",
        "metadata": {"name": "unit-test-flavor"},
        "spec": {"nodeLabels": {"kubernetes.io/arch": "arm64"}},
    },
    ResourceFlavor,
)


def summary(actions: Actions, workloads: list[Workload]) -> Json:
    """What a reconcile decided, by effect; empty effects left out. Workload conditions: the
    ones the patch changes."""
    before = {
        (w.metadata.name, c.type): (c.status, c.reason, c.message)
        for w in workloads
        for c in w.status.conditions
    }
    out: Json = {}
    created = [
        (m["metadata"]["name"], [(ps["name"], ps["count"]) for ps in m["spec"]["podSets"]])
        for m in actions.create
    ]
    started: Json = {}
    stopped: Json = {}
    finalized: list[str] = []
    out_owners: list[str] = []
    workload_status: Json = {}
    for patch in actions.patch:
        name = patch.key.split("/")[1]
        if patch.kind == "Workload" and "status" not in patch.patch:
            refs = patch.patch["metadata"]["ownerReferences"]
            out_owners.extend(r["name"] for r in refs)
        elif patch.kind == "Workload":
            for c in patch.patch["status"].get("conditions") or []:
                now = (c["status"], c.get("reason"), c.get("message"))
                if before.get((name, c["type"])) != now:
                    workload_status[c["type"]] = now
            if "reclaimablePods" in patch.patch["status"]:
                workload_status["reclaimablePods"] = patch.patch["status"]["reclaimablePods"]
            if "admission" in patch.patch["status"]:
                workload_status["admission"] = patch.patch["status"]["admission"]
        elif patch.subresource == "status":
            (c,) = patch.patch["status"]["conditions"]
            stopped[name] = (c["type"], c["reason"], c["message"])
        elif "spec" in patch.patch:
            started[name] = {
                "nodeSelector": patch.patch["spec"].get("nodeSelector"),
                "labels": patch.patch["metadata"]["labels"],
                "annotations": patch.patch["metadata"]["annotations"],
            }
            assert patch.patch["spec"]["schedulingGates"] is None
        elif "finalizers" in patch.patch["metadata"]:
            finalized.append(name)
    deleted = [
        f"{kind}/{key.split('/')[1]}"
        for kind, key in zip(actions.delete_kinds, actions.delete, strict=True)
    ]
    for key, value in (
        ("created", created),
        ("started", started),
        ("stopped", stopped),
        ("deleted", deleted),
        ("finalized", sorted(finalized)),
        ("owners", out_owners),
        ("workload", workload_status),
        ("events", actions.events),
    ):
        if value:
            out[key] = value
    return out
