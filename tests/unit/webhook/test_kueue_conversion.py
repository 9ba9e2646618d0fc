"""Kueue v1beta1 ⇄ v1beta2 as Kueue's conversion webhook (apis/kueue/v1beta1/*_conversion.go)."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.kueue_conversion import convert

Obj = dict[str, Any]
V1BETA1, V1BETA2 = "kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"


USAGE = [{"name": "f", "resources": [{"name": "cpu", "total": "1500m", "borrowed": "500m"}]}]
LQ_USAGE = [{"name": "f", "resources": [{"name": "memory", "total": "1Gi"}]}]
UP = [
    (
        "ClusterQueue",
        {"spec": {"cohort": "team"}},
        {"spec": {"cohortName": "team"}},
    ),
    (
        "ClusterQueue",
        {"spec": {"cohort": ""}},
        {"spec": {}},
    ),
    (
        "ClusterQueue",
        {"spec": {"admissionChecks": ["a", "b"]}},
        {"spec": {"admissionChecksStrategy": {"admissionChecks": [{"name": "a"}, {"name": "b"}]}}},
    ),
    (
        "ClusterQueue",
        {"spec": {"flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}}},
        {"spec": {"flavorFungibility": {"whenCanBorrow": "MayStopSearch",
                                        "whenCanPreempt": "MayStopSearch"}}},
    ),
    (
        "ClusterQueue",
        {"spec": {"flavorFungibility": {"whenCanBorrow": "TryNextFlavor"}}},
        {"spec": {"flavorFungibility": {"whenCanBorrow": "TryNextFlavor"}}},
    ),
    (
        "ClusterQueue",
        {"status": {"pendingWorkloads": 1, "pendingWorkloadsStatus": {"lastChangeTime": "x"},
                    "fairSharing": {"weightedShare": 3, "admissionFairSharingStatus": {}}}},
        {"status": {"pendingWorkloads": 1, "fairSharing": {"weightedShare": 3}}},
    ),
    (
        "LocalQueue",
        {"status": {"flavorUsage": [{"name": "f"}], "flavors": [{"name": "f"}]}},
        {"status": {"flavorsUsage": [{"name": "f"}]}},
    ),
    (
        "ClusterQueue",
        {"status": {"flavorsReservation": USAGE, "flavorsUsage": USAGE,
                    "fairSharing": {"weightedShare": 2}}},
        {"status": {"flavorsReservation": USAGE, "flavorsUsage": USAGE,
                    "fairSharing": {"weightedShare": 2}}},
    ),
    (
        "LocalQueue",
        {"status": {"flavorsReservation": LQ_USAGE, "flavorUsage": LQ_USAGE}},
        {"status": {"flavorsReservation": LQ_USAGE, "flavorsUsage": LQ_USAGE}},
    ),
    (
        "Workload",
        {"spec": {"priorityClassSource": "scheduling.k8s.io/priorityclass",
                  "priorityClassName": "high", "priority": 7}},
        {"spec": {"priorityClassRef": {"group": "scheduling.k8s.io", "kind": "PriorityClass",
                                       "name": "high"}, "priority": 7}},
    ),
    (
        "Workload",
        {"status": {"accumulatedPastExexcutionTimeSeconds": 30}},
        {"status": {"accumulatedPastExecutionTimeSeconds": 30}},
    ),
    (
        "Cohort",
        {"spec": {"parentName": "root"}, "status": {"fairSharing": {
            "weightedShare": 1, "admissionFairSharingStatus": {}}}},
        {"spec": {"parentName": "root"}, "status": {"fairSharing": {"weightedShare": 1}}},
    ),
    (
        "ResourceFlavor",
        {"spec": {"nodeLabels": {"a": "b"}}},
        {"spec": {"nodeLabels": {"a": "b"}}},
    ),
]  # fmt: skip
UP_IDS = [
    "cq-cohort-renamed",
    "cq-empty-cohort-omitted",
    "cq-admission-checks-to-strategy",
    "cq-deprecated-fungibility-values",
    "cq-current-fungibility-kept",
    "cq-status-dropped-fields",
    "lq-flavor-usage-renamed",
    "cq-status-usage-and-share-kept",
    "lq-status-usage-kept-and-renamed",
    "wl-priority-class-ref",
    "wl-accumulated-time-typo-fixed",
    "cohort-status-dropped-fields",
    "rf-unchanged",
]


@pytest.mark.parametrize(("kind", "v1beta1", "v1beta2"), UP, ids=UP_IDS)
def test_v1beta1_to_v1beta2(kind: str, v1beta1: Obj, v1beta2: Obj) -> None:
    stored = convert({"apiVersion": V1BETA1, "kind": kind, **v1beta1}, V1BETA2)
    assert stored == {"apiVersion": V1BETA2, "kind": kind, **v1beta2}


DOWN = [
    (
        "ClusterQueue",
        {"spec": {"cohortName": "team", "concurrentAdmissionPolicy": {}}},
        {"spec": {"cohort": "team"}},
    ),
    (
        "LocalQueue",
        {"status": {"flavorsUsage": [{"name": "f"}]}},
        {"status": {"flavorUsage": [{"name": "f"}]}},
    ),
    (
        "ClusterQueue",
        {"status": {"flavorsReservation": USAGE, "flavorsUsage": USAGE}},
        {"status": {"flavorsReservation": USAGE, "flavorsUsage": USAGE}},
    ),
    (
        "LocalQueue",
        {"status": {"flavorsReservation": LQ_USAGE, "flavorsUsage": LQ_USAGE}},
        {"status": {"flavorsReservation": LQ_USAGE, "flavorUsage": LQ_USAGE}},
    ),
    (
        "Workload",
        {"spec": {"priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                       "name": "p"}, "preemptionGates": [{"name": "g"}]},
         "status": {"accumulatedPastExecutionTimeSeconds": 4, "preemptionGates": []}},
        {"spec": {"priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
                  "priorityClassName": "p"},
         "status": {"accumulatedPastExexcutionTimeSeconds": 4}},
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "v1beta2", "v1beta1"),
    DOWN,
    ids=["cq-cohort", "lq-flavors-usage", "cq-usage-kept", "lq-usage-renamed", "wl-priority"],
)
def test_v1beta2_to_v1beta1(kind: str, v1beta2: Obj, v1beta1: Obj) -> None:
    shown = convert({"apiVersion": V1BETA2, "kind": kind, **v1beta2}, V1BETA1)
    assert shown == {"apiVersion": V1BETA1, "kind": kind, **v1beta1}


def test_conversion_never_modifies_the_stored_object() -> None:
    stored = {"apiVersion": V1BETA2, "kind": "ClusterQueue", "spec": {"cohortName": "team"}}
    convert(stored, V1BETA1)
    assert stored == {"apiVersion": V1BETA2, "kind": "ClusterQueue", "spec": {"cohortName": "team"}}
