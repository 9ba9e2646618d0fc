"""Kueue objects for the webhook tables, built as upstream's test wrappers build them
(pkg/util/testing/v1beta2/wrappers.go): ``MakeClusterQueue``, ``MakeFlavorQuotas``,
``MakeWorkload``, ``MakePodSet``, ``MakeAdmission``..., and the field error types the tables
compare (apimachinery's ``field.ErrorType`` values)."""

from __future__ import annotations

import copy
from typing import Any

Obj = dict[str, Any]
INVALID, REQUIRED, FORBIDDEN = "FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden"
NOT_SUPPORTED, NOT_FOUND = "FieldValueNotSupported", "FieldValueNotFound"
DUPLICATE, TOO_LONG = "FieldValueDuplicate", "FieldValueTooLong"
NOW = "2026-01-01T00:00:00Z"


def flavor_quotas(name: str, *resources: tuple[str, ...]) -> Obj:
    """``MakeFlavorQuotas(name).Resource(r, nominal, borrowing, lending)...``: each resource a
    tuple of its name and the optional quantities ("" leaves one unset)."""
    quotas = []
    for resource, *quantities in resources:
        quota: Obj = {"name": resource, "nominalQuota": quantities[0] if quantities else "0"}
        for key, value in zip(("borrowingLimit", "lendingLimit"), quantities[1:], strict=False):
            if value:
                quota[key] = value
        quotas.append(quota)
    return {"name": name, "resources": quotas}


def resource_group(*flavors: Obj) -> Obj:
    """``ResourceGroup(flavors...)``: covered resources as the first flavor's."""
    covered = [r["name"] for r in flavors[0]["resources"]] if flavors else []
    return {"coveredResources": covered, "flavors": list(flavors)}


def cluster_queue(*groups: Obj, **spec: Any) -> Obj:
    """``MakeClusterQueue("cluster-queue")`` with its defaults, then ``ResourceGroup`` per
    group and ``spec`` set over."""
    base: Obj = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
    }
    if groups:
        base["resourceGroups"] = list(groups)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cluster-queue"},
        "spec": {**base, **spec},
    }


def strategy(*rules: tuple[str, list[str]]) -> Obj:
    """``AdmissionCheckStrategy(MakeAdmissionCheckStrategyRule(name, flavors...)...)``."""
    return {"admissionChecks": [{"name": n, "onFlavors": list(f)} for n, f in rules]}


def concurrent_policy(mode: str, last_acceptable: str | None = None) -> Obj:
    """``ConcurrentAdmissionPolicy(mode)`` (and ``LastAcceptableFlavorName``)."""
    migration: Obj = {"mode": mode} if mode else {}
    if last_acceptable is not None:
        migration["constraints"] = {"lastAcceptableFlavorName": last_acceptable}
    return {"migration": migration}


def pod_set(name: str = "main", count: int = 1, **fields: Any) -> Obj:
    """``MakePodSet(name, count)``: one container ``c`` with no requests."""
    return {
        "name": name,
        "count": count,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "resources": {"requests": {}}}],
            }
        },
        **fields,
    }


def container(requests: Obj | None = None, limits: Obj | None = None) -> Obj:
    resources: Obj = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": "c", "resources": resources}


def with_containers(
    ps: Obj, *, init: list[Obj] | None = None, main: list[Obj] | None = None
) -> Obj:
    """``InitContainers(...)`` / ``Containers(...)`` on a pod set."""
    ps = copy.deepcopy(ps)
    if init is not None:
        ps["template"]["spec"]["initContainers"] = init
    if main is not None:
        ps["template"]["spec"]["containers"] = main
    return ps


def assignment(name: str = "main", count: int | None = 1, **fields: Any) -> Obj:
    """``MakePodSetAssignment(name)`` (``count`` None: the struct literal, no count)."""
    out: Obj = {"name": name, "flavors": {}, "resourceUsage": {}, **fields}
    if count is not None:
        out["count"] = count
    return out


def admission(*assignments: Obj, cluster_queue: str = "cluster-queue") -> Obj:
    """``MakeAdmission(cq).PodSets(...)`` (one ``main`` assignment by default)."""
    return {"clusterQueue": cluster_queue, "podSetAssignments": list(assignments) or [assignment()]}


def quota_reserved(now: str = NOW) -> Obj:
    return {
        "type": "QuotaReserved",
        "status": "True",
        "reason": "AdmittedByTest",
        "message": "Admitted by ClusterQueue cluster-queue",
        "lastTransitionTime": now,
    }


def workload(
    *pod_sets: Obj,
    annotations: Obj | None = None,
    reserve: Obj | None = None,
    **status: Any,
) -> Obj:
    """``MakeWorkload("test-workload", "test-ns")`` with ``PodSets`` (one ``main`` by default),
    ``Annotations``, ``ReserveQuotaAt(reserve)`` and status fields."""
    meta: Obj = {"name": "test-workload", "namespace": "test-ns"}
    if annotations:
        meta["annotations"] = dict(annotations)
    out: Obj = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": meta,
        "spec": {"podSets": list(pod_sets) or [pod_set()]},
    }
    full_status: Obj = dict(status)
    if reserve is not None:
        full_status["admission"] = reserve
        full_status["conditions"] = [quota_reserved()]
    if full_status:
        out["status"] = full_status
    return out
