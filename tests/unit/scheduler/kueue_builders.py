"""Small builders for Kueue manifests (as API dicts) used by the admission tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from services.scheduler.kueue import AdmissionResult, admit
from shared.models import decode_object

Json = dict[str, Any]
NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
KUEUE = "kueue.x-k8s.io/v1beta2"  # as the watcher lists them


def flavor(
    name: str, *, labels: dict[str, str] | None = None, taints: list[Json] | None = None
) -> Json:
    spec: Json = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def quota(nominal: str, borrowing: str | None = None, lending: str | None = None) -> Json:
    q: Json = {"nominalQuota": nominal}
    if borrowing is not None:
        q["borrowingLimit"] = borrowing
    if lending is not None:
        q["lendingLimit"] = lending
    return q


def cluster_queue(
    name: str,
    flavors: dict[str, Json],
    *,
    cohort: str | None = None,
    strategy: str | None = None,
    within: str | None = None,
    reclaim: str | None = None,
    borrow_within: str | None = None,
    selector: Json | None = None,
    fungibility: Json | None = None,
) -> Json:
    """``flavors``: flavor name → cpu quota (from ``quota``), in the order they are tried."""
    spec: Json = {
        "resourceGroups": [
            {
                "coveredResources": ["cpu"],
                "flavors": [
                    {"name": f, "resources": [{"name": "cpu", **q}]} for f, q in flavors.items()
                ],
            }
        ]
    }
    if cohort:
        spec["cohortName"] = cohort
    if strategy:
        spec["queueingStrategy"] = strategy
    if within or reclaim or borrow_within:
        spec["preemption"] = {
            "withinClusterQueue": within or "Never",
            "reclaimWithinCohort": reclaim or "Never",
            "borrowWithinCohort": {"policy": borrow_within or "Never"},
        }
    if selector is not None:
        spec["namespaceSelector"] = selector
    if fungibility is not None:
        spec["flavorFungibility"] = fungibility
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def local_queue(name: str, cq: str, namespace: str = "default") -> Json:
    return {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cq},
    }


def namespace(name: str, **labels: str) -> Json:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def priority_class(name: str, value: int) -> Json:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def workload(
    name: str,
    cpu: str,
    *,
    count: int = 1,
    queue: str = "lq",
    namespace: str = "default",
    minute: int = 0,
    priority: int | None = None,
    priority_class: str | None = None,
    admitted: tuple[str, str] | None = None,
    tolerations: list[Json] | None = None,
    node_selector: dict[str, str] | None = None,
    podsets: list[tuple[str, int, str]] | None = None,
) -> Json:
    """``admitted``: (ClusterQueue, flavor) for a workload that already holds quota."""
    pod: Json = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if tolerations:
        pod["tolerations"] = tolerations
    if node_selector:
        pod["nodeSelector"] = node_selector
    shapes = podsets or [("main", count, cpu)]
    spec: Json = {
        "queueName": queue,
        "podSets": [
            {
                "name": ps,
                "count": n,
                "template": {
                    "spec": {
                        **pod,
                        "containers": [{"name": "c", "resources": {"requests": {"cpu": c}}}],
                    }
                },
            }
            for ps, n, c in shapes
        ],
    }
    if priority is not None:
        spec["priority"] = priority
    if priority_class is not None:
        spec["priorityClassName"] = priority_class
    obj: Json = {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "creationTimestamp": f"2024-05-01T10:{minute:02d}:00Z",
        },
        "spec": spec,
    }
    if admitted is not None:
        cq, fl = admitted
        obj["status"] = {
            "admission": {
                "clusterQueue": cq,
                "podSetAssignments": [
                    {"name": ps, "count": n, "flavors": {"cpu": fl}} for ps, n, _ in shapes
                ],
            },
            "conditions": [
                {
                    "type": "QuotaReserved",
                    "status": "True",
                    "lastTransitionTime": f"2024-05-01T11:{minute:02d}:00Z",
                }
            ],
        }
    return obj


def run(objects: list[Json]) -> AdmissionResult:
    return admit([decode_object(o, document=f"doc {i}") for i, o in enumerate(objects)], NOW)


def summary(result: AdmissionResult) -> tuple[dict[str, dict[str, str]], list[str], list[str]]:
    """admitted (key → podSet/resource → flavor), pending keys, preempted keys."""
    admitted = {
        key: {
            f"{ps}/{res}": fl
            for ps, flavors in a.podsets.items()
            for res, fl in flavors.flavors.items()
        }
        for key, a in result.admitted.items()
    }
    return admitted, sorted(result.pending), sorted(result.preempted)
