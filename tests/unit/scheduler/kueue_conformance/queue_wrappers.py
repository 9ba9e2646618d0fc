"""Upstream's test wrappers (``pkg/util/testing/v1beta2/wrappers.go``) for the queue status
tables, as v1beta2 manifests with the wrappers' defaults, one run of the queue reconcilers
over them, and the comparison of a status with upstream's (``cmpopts.EquateEmpty``,
``IgnoreConditionTimestamps``).

``reconcile`` is what Kueue's queue reconcilers see: the cache as the objects say, with no
scheduling cycle in between (``admit(..., max_cycles=0)``: workloads that hold quota count,
the others are pending), and returns each queue's decided status.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue import admit
from services.scheduler.kueue.objects import KueueObjects
from services.scheduler.kueue.queue_status import queue_statuses
from shared.models import (
    ClusterQueue,
    Cohort,
    LocalQueue,
    Model,
    ResourceFlavor,
    Workload,
    decode_object,
    of_kind,
)
from tests.unit.scheduler.kueue_conformance.tables import NOW

Json = dict[str, Any]
KUEUE = "kueue.x-k8s.io/v1beta2"
NOW_TEXT = "2024-05-01T12:00:00Z"


def flavor_quotas(name: str, *resources: tuple[str, ...]) -> Json:
    """``MakeFlavorQuotas(name).Resource(res, nominal[, borrowingLimit[, lendingLimit]])``."""
    quotas: list[Json] = []
    for resource, *qs in resources:
        quota: Json = {"name": resource, "nominalQuota": qs[0] if qs else "0"}
        for key, value in zip(("borrowingLimit", "lendingLimit"), qs[1:], strict=False):
            if value:
                quota[key] = value
        quotas.append(quota)
    return {"name": name, "resources": quotas}


def resource_group(*flavors: Json) -> Json:
    covered = list(dict.fromkeys(r["name"] for f in flavors for r in f["resources"]))
    return {"coveredResources": covered, "flavors": list(flavors)}


def cluster_queue(
    name: str,
    *groups: Json,
    cohort: str | None = None,
    generation: int | None = None,
    status: Json | None = None,
    stop_policy: str | None = None,
) -> Json:
    """``MakeClusterQueue(name)``: select-all namespaces, BestEffortFIFO, MayStopSearch /
    TryNextFlavor."""
    spec: Json = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
        "resourceGroups": list(groups),
    }
    if cohort:
        spec["cohortName"] = cohort
    if stop_policy:
        spec["stopPolicy"] = stop_policy
    meta: Json = {"name": name}
    if generation is not None:
        meta["generation"] = generation
    return {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": meta,
        "spec": spec,
        "status": status or {},
    }


def local_queue(
    name: str,
    namespace: str,
    cluster_queue: str,
    *,
    generation: int | None = None,
    pending: int | None = None,
    stop_policy: str | None = None,
) -> Json:
    meta: Json = {"name": name, "namespace": namespace}
    if generation is not None:
        meta["generation"] = generation
    spec: Json = {"clusterQueue": cluster_queue}
    if stop_policy:
        spec["stopPolicy"] = stop_policy
    status: Json = {} if pending is None else {"pendingWorkloads": pending}
    return {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": meta,
        "spec": spec,
        "status": status,
    }


def workload(
    name: str,
    namespace: str = "",
    *,
    queue: str | None = None,
    requests: dict[str, str] | None = None,
    count: int = 1,
    reserve: tuple[str, list[tuple[str, str, str]], int] | None = None,
    admitted: bool = False,
) -> Json:
    """``MakeWorkload(name, ns)`` with ``Queue``, ``Request``s on pod set ``main`` of
    ``count`` pods, ``ReserveQuotaAt(MakeAdmission(cq).PodSets(MakePodSetAssignment(main)
    .Assignment(resource, flavor, usage)...Count(n)))`` and ``Condition(Admitted=True)``."""
    container: Json = {"name": "c", "resources": {"requests": dict(requests or {})}}
    spec: Json = {"podSets": [{"name": "main", "count": count, "template": {"spec": {}}}]}
    spec["podSets"][0]["template"]["spec"]["containers"] = [container]
    if queue:
        spec["queueName"] = queue
    meta: Json = {"name": name, "creationTimestamp": "2024-05-01T11:00:00Z"}
    if namespace:
        meta["namespace"] = namespace
    status: Json = {"conditions": []}
    if reserve is not None:
        cq, assignments, admitted_count = reserve
        status["admission"] = {
            "clusterQueue": cq,
            "podSetAssignments": [
                {
                    "name": "main",
                    "flavors": {res: fl for res, fl, _ in assignments},
                    "resourceUsage": {res: usage for res, _, usage in assignments},
                    "count": admitted_count,
                }
            ],
        }
        status["conditions"].append(_condition("QuotaReserved", "QuotaReserved"))
    if admitted:
        status["conditions"].append(_condition("Admitted", "Admitted"))
    return {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": meta,
        "spec": spec,
        "status": status,
    }


def _condition(kind: str, reason: str) -> Json:
    return {"type": kind, "status": "True", "reason": reason, "lastTransitionTime": NOW_TEXT}


def resource_flavor(name: str) -> Json:
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}}


def reconcile(docs: list[Json], *, fair_sharing: bool = False) -> dict[tuple[str, str], Json]:
    """(kind, key) → the status the queue reconcilers decide for it (changed ones only)."""
    objects: list[Model] = [
        decode_object(d, document=f"doc {i}", strict_kind=False) for i, d in enumerate(docs)
    ]
    result = admit(objects, NOW, max_cycles=0)
    found = KueueObjects(
        workloads=of_kind(objects, Workload),
        cluster_queues=of_kind(objects, ClusterQueue),
        local_queues=of_kind(objects, LocalQueue),
        flavors=of_kind(objects, ResourceFlavor),
        cohorts=of_kind(objects, Cohort),
    )
    updates = queue_statuses(found, result, NOW_TEXT, fair_sharing=fair_sharing)
    return {(u.kind, u.key): u.status for u in updates}


def condition(kind: str, found: tuple[str, str, str], generation: int | None = None) -> Json:
    """A ``metav1.Condition`` without its time: (status, reason, message) of type ``kind``."""
    status, reason, message = found
    made: Json = {"type": kind, "status": status, "reason": reason, "message": message}
    if generation:
        made["observedGeneration"] = generation
    return made


def normalized(status: Json) -> Json:
    """Conditions without times; empty values (0, [], None) left out."""
    out: Json = {}
    for key, value in status.items():
        if key == "conditions":
            value = [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in value]
        if value not in (None, 0, [], {}):
            out[key] = value
    return out


def status_after(kind: str, key: str, obj: Json, docs: list[Json]) -> Json:
    """The object's status once the decided one (if any) is merged in."""
    decided = reconcile([obj, *docs]).get((kind, key), {})
    return normalized({**obj["status"], **decided})
