"""Ported from volcano pkg/webhooks/admission/pods/mutate/mutate_pod_test.go (``TestMutatePods``,
master): upstream's resource groups, given as the ``volcano-admission.conf`` its chart
documents; rows named after upstream's cases, each comparing ``createPatch``'s operations."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from services.webhook.core.queues import Snapshot
from services.webhook.core.review import review_admission
from services.webhook.core.volcano_pod_mutation import (
    DEFAULT_CONFIGURATION,
    QUEUE_ALLOCATION_GATE,
    AdmissionConfiguration,
    PodMutation,
    create_patch,
    load_admission_configuration,
)
from services.webhook.core.webhooks import BY_PATH
from tests.unit.webhook.reviews import patch_of, review

Obj = dict[str, Any]
AFFINITY = (
    '{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":'
    '[{"matchExpressions":[{"key":"kubernetes.io/os","operator":"In","values":["linux"]}]}]}}}'
)
CONF = f"""
resourceGroups:
- resourceGroup: management
  object:
    key: namespace
    value:
    - mng-ns-1
    - mng-ns-2
  schedulerName: default-scheduler
  tolerations:
  - key: mng-taint-1
    operator: Exists
    effect: NoSchedule
  affinity: '{AFFINITY}'
  labels:
    volcano.sh/nodetype: management
- resourceGroup: cpu
  object:
    key: annotation
    value:
    - "volcano.sh/resource-group: cpu"
  schedulerName: volcano
  labels:
    volcano.sh/nodetype: cpu
- resourceGroup: gpu
  schedulerName: volcano
  labels:
    volcano.sh/nodetype: gpu
"""
CONFIG = load_admission_configuration(CONF)


def pod(name: str, namespace: str = "", annotations: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {}}


def selector(nodetype: str) -> Obj:
    return {"op": "add", "path": "/spec/nodeSelector", "value": {"volcano.sh/nodetype": nodetype}}


def scheduler(name: str) -> Obj:
    return {"op": "add", "path": "/spec/schedulerName", "value": name}


MNG_POD = pod("mng-pod", "mng-ns-1")
MNG_POD["spec"]["schedulerName"] = "default-scheduler"
CASES = [
    ("test-1", MNG_POD, [
        selector("management"),
        {"op": "add", "path": "/spec/affinity", "value": json.loads(AFFINITY)},
        {"op": "add", "path": "/spec/tolerations",
         "value": [{"key": "mng-taint-1", "operator": "Exists", "effect": "NoSchedule"}]},
        scheduler("default-scheduler"),
    ]),
    ("test-2", pod("cpu-pod", annotations={"volcano.sh/resource-group": "cpu"}),
     [selector("cpu"), scheduler("volcano")]),
    ("test-3", pod("gpu-pod", annotations={"volcano.sh/resource-group": "gpu"}),
     [selector("gpu"), scheduler("volcano")]),
    ("test-4", pod("normal-pod"), []),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "patch"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_mutate_pods(obj: Obj, patch: list[Obj]) -> None:
    assert create_patch(obj, CONFIG) == patch


# Shoal's own rows: what the served webhook answers, and the scheduling gate.
def test_the_served_webhook_has_upstreams_default_configuration_and_mutates_nothing() -> None:
    webhook = BY_PATH["/volcano/pods/mutate"]
    assert webhook.name == "mutatepod.volcano.sh"
    assert DEFAULT_CONFIGURATION.resource_groups == ()
    cpu_pod = pod("cpu-pod", "ns", {"volcano.sh/resource-group": "cpu"})
    sent = review("", "v1", "Pod", "pods", cpu_pod)
    response = review_admission(webhook, sent, Snapshot())["response"]
    assert response["allowed"] is True
    assert patch_of(response) == []
    sent["request"]["operation"] = "UPDATE"
    refused = review_admission(webhook, sent, Snapshot())["response"]
    assert refused["status"]["message"] == "expect operation to be 'CREATE' "


def test_a_configured_webhook_answers_upstreams_operations() -> None:
    webhook = dataclasses.replace(BY_PATH["/volcano/pods/mutate"], patch=PodMutation(CONFIG))
    sent = review("", "v1", "Pod", "pods", MNG_POD)
    response = review_admission(webhook, sent, Snapshot())["response"]
    assert response["patchType"] == "JSONPatch"
    assert patch_of(response) == CASES[0][2]


def test_the_chart_documents_no_group_so_it_loads_as_the_default() -> None:
    commented = "\n".join(f"#{line}" for line in CONF.splitlines())
    assert load_admission_configuration(commented) == DEFAULT_CONFIGURATION


GATED = AdmissionConfiguration(scheduling_gates_queue_admission=True)
GATE = {"name": QUEUE_ALLOCATION_GATE}
GATE_CASES = [
    ("opted-in pod without gates", {}, [{"op": "add", "path": "/spec/schedulingGates",
                                         "value": [GATE]}]),
    ("opted-in pod with other gates", {"schedulingGates": [{"name": "other"}]},
     [{"op": "add", "path": "/spec/schedulingGates/-", "value": GATE}]),
    ("opted-in pod already gated", {"schedulingGates": [GATE]}, []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "patch"), [c[1:] for c in GATE_CASES], ids=[c[0] for c in GATE_CASES]
)
def test_the_queue_allocation_gate(spec: Obj, patch: list[Obj]) -> None:
    obj = pod("gated", "ns", {QUEUE_ALLOCATION_GATE: "true"})
    obj["spec"] = spec
    assert create_patch(obj, GATED) == patch
    assert create_patch(obj, DEFAULT_CONFIGURATION) == [], "the feature gate is off by default"


def test_group_patches_keep_the_pods_own_selector_tolerations_and_affinity() -> None:
    obj = pod("p", "mng-ns-2")
    obj["spec"] = {
        "nodeSelector": {"zone": "a", "volcano.sh/nodetype": "gpu"},
        "tolerations": [{"key": "own", "operator": "Exists"}],
        "affinity": {"podAffinity": {}},
    }
    assert create_patch(obj, CONFIG) == [
        {"op": "add", "path": "/spec/nodeSelector",
         "value": {"zone": "a", "volcano.sh/nodetype": "management"}},
        {"op": "add", "path": "/spec/tolerations", "value": [
            {"key": "own", "operator": "Exists"},
            {"key": "mng-taint-1", "operator": "Exists", "effect": "NoSchedule"}]},
        scheduler("default-scheduler"),
    ]  # fmt: skip


def test_tolerations_are_read_by_their_lower_cased_go_names_as_yaml_v2_reads_them() -> None:
    config = load_admission_configuration(
        """
resourceGroups:
- resourceGroup: batch
  object: {key: namespace, value: [batch]}
  tolerations:
  - {key: a, operator: Exists, tolerationSeconds: 30}
  - {key: b, operator: Exists, effect: NoExecute, tolerationseconds: 30}
"""
    )
    (operation,) = create_patch(pod("p", "batch"), config)
    assert operation["value"] == [
        {"key": "a", "operator": "Exists"},
        {"key": "b", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
    ]
