"""Every Kueue kind deploy/crds/kueue serves in v1beta1 and v1beta2, through the API server: one
row per field Kueue's conversion (``apis/kueue/v1beta1/*_conversion.go``) renames or moves, and
one per kind without any. Each row creates the object as v1beta1, reads it as v1beta2 and checks
the field under its v1beta2 name, updates it as v1beta2, and reads it back as v1beta1: the whole
of what it compares (spec, status or the top-level fields) must be what was read as v1beta1
after the create, with only the update in it. kube-apiserver converts through Shoal's webhook
(``/kueue/convert``), kubesim through the same core in-process.

Only the job controller (with the watcher feeding it) runs: nothing writes Kueue status but the
rows. ClusterQueue ``admissionChecks`` and the deprecated fungibility values convert one way, as
upstream's: read back as v1beta1 they are ``admissionChecksStrategy`` and ``MayStopSearch``.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from services.cli.stack import StackConfig
from shared.kube import KubeClient
from shared.kube.resources import ResourceType

Json = dict[str, Any]
GROUP = "kueue.x-k8s.io"
HOSTNAME = "kubernetes.io/hostname"
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(
        workdir=tmp_path_factory.mktemp("stack"),
        nodes=1,
        services=("watcher", "jobcontroller"),
    )


def _types(kind: str, plural: str, namespaced: bool) -> tuple[ResourceType, ResourceType]:
    return tuple(  # type: ignore[return-value]
        ResourceType(group=GROUP, version=v, kind=kind, plural=plural, namespaced=namespaced)
        for v in ("v1beta1", "v1beta2")
    )


KINDS = {
    "ClusterQueue": _types("ClusterQueue", "clusterqueues", False),
    "Cohort": _types("Cohort", "cohorts", False),
    "LocalQueue": _types("LocalQueue", "localqueues", True),
    "ResourceFlavor": _types("ResourceFlavor", "resourceflavors", False),
    "Workload": _types("Workload", "workloads", True),
    "WorkloadPriorityClass": _types("WorkloadPriorityClass", "workloadpriorityclasses", False),
}
RESOURCE_GROUPS = [
    {
        "coveredResources": ["cpu"],
        "flavors": [
            {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": "4"}]}
        ],
    }
]
POD_SETS = [
    {
        "name": "main",
        "count": 2,
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
                ],
            }
        },
    }
]


def _at(obj: Json, path: str) -> Any:
    for key in path.split("."):
        obj = obj[int(key)] if isinstance(obj, list) else obj[key]
    return obj


def _set(obj: Json, path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    for key in parents:
        obj = obj[int(key)] if isinstance(obj, list) else obj[key]
    if isinstance(obj, list):
        obj[int(leaf)] = value
    else:
        obj[leaf] = value


@dataclass(frozen=True)
class Row:
    kind: str
    # What the create sends (apiVersion, kind and name are added), and the status a v1beta1
    # status update then writes.
    body: Json
    status: Json | None = None
    # Read as v1beta2: these paths hold these values, and these keys are gone from their parent.
    v1beta2: dict[str, Any] = field(default_factory=dict)
    gone: tuple[str, ...] = ()
    # The update sent as v1beta2 (path → value), and what it reads as in v1beta1.
    update: dict[str, Any] = field(default_factory=dict)
    reads_back: dict[str, Any] = field(default_factory=dict)
    # Read as v1beta1 after the create, before any update (a conversion upstream makes one way).
    v1beta1: dict[str, Any] = field(default_factory=dict)
    compared: tuple[str, ...] = ("spec",)
    # A kind with no renamed field: what is compared reads the same in both versions.
    unchanged: bool = False


def _cluster_queue(**spec: Any) -> Json:
    return {"spec": {"namespaceSelector": {}, "resourceGroups": RESOURCE_GROUPS, **spec}}


def _workload(**spec: Any) -> Json:
    return {"spec": {"queueName": "roundtrip", "podSets": POD_SETS, **spec}}


WPC_SOURCE = "kueue.x-k8s.io/workloadpriorityclass"
POD_SOURCE = "scheduling.k8s.io/priorityclass"
TOPOLOGY_V1BETA1 = {
    "levels": [HOSTNAME],
    "domains": [{"values": ["node-a-0"], "count": 1}, {"values": ["node-a-1"], "count": 1}],
}
TOPOLOGY_V1BETA2 = {
    "levels": [HOSTNAME],
    "slices": [
        {
            "domainCount": 2,
            "valuesPerLevel": [{"individual": {"prefix": "node-a-", "roots": ["0", "1"]}}],
            "podCounts": {"universal": 1},
        }
    ],
}
ASSIGNMENT = "status.admission.podSetAssignments.0.topologyAssignment"

ROWS: dict[str, Row] = {
    "ClusterQueue spec.cohort is spec.cohortName": Row(
        "ClusterQueue",
        _cluster_queue(cohort="team-a"),
        v1beta2={"spec.cohortName": "team-a"},
        gone=("spec.cohort",),
        update={"spec.cohortName": "team-b"},
        reads_back={"spec.cohort": "team-b"},
    ),
    "ClusterQueue spec.admissionChecks is spec.admissionChecksStrategy": Row(
        "ClusterQueue",
        _cluster_queue(admissionChecks=["check-a"]),
        v1beta2={"spec.admissionChecksStrategy": {"admissionChecks": [{"name": "check-a"}]}},
        gone=("spec.admissionChecks",),
        v1beta1={"spec.admissionChecksStrategy": {"admissionChecks": [{"name": "check-a"}]}},
        update={
            "spec.admissionChecksStrategy": {
                "admissionChecks": [{"name": "check-a"}, {"name": "check-b"}]
            }
        },
        reads_back={
            "spec.admissionChecksStrategy": {
                "admissionChecks": [{"name": "check-a"}, {"name": "check-b"}]
            }
        },
    ),
    "ClusterQueue flavorFungibility Borrow and Preempt are MayStopSearch": Row(
        "ClusterQueue",
        _cluster_queue(flavorFungibility={"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}),
        v1beta2={
            "spec.flavorFungibility.whenCanBorrow": "MayStopSearch",
            "spec.flavorFungibility.whenCanPreempt": "MayStopSearch",
        },
        v1beta1={
            "spec.flavorFungibility.whenCanBorrow": "MayStopSearch",
            "spec.flavorFungibility.whenCanPreempt": "MayStopSearch",
        },
        update={"spec.flavorFungibility.whenCanPreempt": "TryNextFlavor"},
        reads_back={"spec.flavorFungibility.whenCanPreempt": "TryNextFlavor"},
    ),
    "LocalQueue status.flavorUsage is status.flavorsUsage": Row(
        "LocalQueue",
        {"spec": {"clusterQueue": "roundtrip-cq"}},
        status={
            "flavorUsage": [
                {"name": "default-flavor", "resources": [{"name": "cpu", "total": "1"}]}
            ]
        },
        v1beta2={
            "status.flavorsUsage": [
                {"name": "default-flavor", "resources": [{"name": "cpu", "total": "1"}]}
            ]
        },
        gone=("status.flavorUsage",),
        update={"status.flavorsUsage.0.resources.0.total": "2"},
        reads_back={"status.flavorUsage.0.resources.0.total": "2"},
        compared=("spec", "status"),
    ),
    "Workload spec.priorityClassSource/Name is spec.priorityClassRef (WorkloadPriorityClass)": (
        Row(
            "Workload",
            _workload(priorityClassSource=WPC_SOURCE, priorityClassName="high", priority=100),
            v1beta2={
                "spec.priorityClassRef": {
                    "group": GROUP,
                    "kind": "WorkloadPriorityClass",
                    "name": "high",
                }
            },
            gone=("spec.priorityClassSource", "spec.priorityClassName"),
            update={"spec.priorityClassRef.name": "higher", "spec.priority": 200},
            reads_back={"spec.priorityClassName": "higher", "spec.priority": 200},
        )
    ),
    "Workload spec.priorityClassSource/Name is spec.priorityClassRef (PriorityClass)": Row(
        "Workload",
        _workload(priorityClassSource=POD_SOURCE, priorityClassName="low", priority=10),
        v1beta2={
            "spec.priorityClassRef": {
                "group": "scheduling.k8s.io",
                "kind": "PriorityClass",
                "name": "low",
            }
        },
        gone=("spec.priorityClassSource", "spec.priorityClassName"),
        update={"spec.priority": 5},
        reads_back={"spec.priority": 5},
    ),
    "Workload status.accumulatedPastExexcutionTimeSeconds is ...ExecutionTimeSeconds": (
        Row(
            "Workload",
            _workload(),
            status={"accumulatedPastExexcutionTimeSeconds": 30},
            v1beta2={"status.accumulatedPastExecutionTimeSeconds": 30},
            gone=("status.accumulatedPastExexcutionTimeSeconds",),
            update={"status.accumulatedPastExecutionTimeSeconds": 45},
            reads_back={"status.accumulatedPastExexcutionTimeSeconds": 45},
            compared=("spec", "status"),
        )
    ),
    "Workload topologyAssignment domains are slices": Row(
        "Workload",
        _workload(),
        status={
            "admission": {
                "clusterQueue": "roundtrip-cq",
                "podSetAssignments": [
                    {
                        "name": "main",
                        "flavors": {"cpu": "default-flavor"},
                        "count": 2,
                        "topologyAssignment": TOPOLOGY_V1BETA1,
                    }
                ],
            }
        },
        v1beta2={ASSIGNMENT: TOPOLOGY_V1BETA2},
        gone=(f"{ASSIGNMENT}.domains",),
        update={f"{ASSIGNMENT}.slices.0.podCounts": {"individual": [2, 1]}},
        reads_back={
            f"{ASSIGNMENT}.domains": [
                {"values": ["node-a-0"], "count": 2},
                {"values": ["node-a-1"], "count": 1},
            ]
        },
        compared=("spec", "status"),
    ),
    "Cohort (no renamed field)": Row(
        "Cohort",
        {
            "spec": {
                "parentName": "roundtrip-root",
                "resourceGroups": RESOURCE_GROUPS,
                "fairSharing": {"weight": "2"},
            }
        },
        v1beta2={"spec.parentName": "roundtrip-root"},
        update={"spec.fairSharing.weight": "3"},
        reads_back={"spec.fairSharing.weight": "3"},
        unchanged=True,
    ),
    "ResourceFlavor (no renamed field)": Row(
        "ResourceFlavor",
        {
            "spec": {
                "nodeLabels": {"pool": "a"},
                "nodeTaints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}],
                "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
            }
        },
        v1beta2={"spec.nodeLabels": {"pool": "a"}},
        update={"spec.tolerations.0.key": "preemptible"},
        reads_back={"spec.tolerations.0.key": "preemptible"},
        unchanged=True,
    ),
    "WorkloadPriorityClass (no renamed field)": Row(
        "WorkloadPriorityClass",
        {"value": 100, "description": "round trip"},
        v1beta2={"value": 100, "description": "round trip"},
        update={"value": 200},
        reads_back={"value": 200},
        compared=("value", "description"),
        unchanged=True,
    ),
    "LocalQueue spec (no renamed field)": Row(
        "LocalQueue",
        {"spec": {"clusterQueue": "roundtrip-cq", "stopPolicy": "Hold"}},
        v1beta2={"spec.clusterQueue": "roundtrip-cq"},
        update={"spec.stopPolicy": "HoldAndDrain"},
        reads_back={"spec.stopPolicy": "HoldAndDrain"},
        unchanged=True,
    ),
}


def _sections(obj: Json, row: Row) -> Json:
    return {name: obj.get(name) for name in row.compared}


def _assert_gone(obj: Json, path: str) -> None:
    parent, _, key = path.rpartition(".")
    assert key not in _at(obj, parent), f"{path} is still there: {obj}"


@pytest.mark.parametrize("row_id", list(ROWS))
async def test_a_kueue_object_survives_v1beta1_to_v1beta2_and_back(
    kube: KubeClient, namespace: str, row_id: str
) -> None:
    row = ROWS[row_id]
    v1beta1, v1beta2 = KINDS[row.kind]
    name = f"roundtrip-{uuid.uuid4().hex[:8]}"
    meta: Json = {"name": name}
    ns = namespace if v1beta1.namespaced else None
    if ns:
        meta["namespace"] = ns
    body = {"apiVersion": v1beta1.api_version, "kind": row.kind, "metadata": meta,
            **copy.deepcopy(row.body)}  # fmt: skip
    created = await kube.create(v1beta1, body)
    if row.status is not None:
        created["status"] = copy.deepcopy(row.status)
        await kube.replace(v1beta1, created, subresource="status")
    before = await kube.get(v1beta1, name, ns)
    for path, value in row.v1beta1.items():
        assert _at(before, path) == value, path

    as_v1beta2 = await kube.get(v1beta2, name, ns)
    assert as_v1beta2["apiVersion"] == v1beta2.api_version
    for path, value in row.v1beta2.items():
        assert _at(as_v1beta2, path) == value, path
    for path in row.gone:
        _assert_gone(as_v1beta2, path)
    if row.unchanged:
        assert _sections(as_v1beta2, row) == _sections(before, row)

    for path, value in row.update.items():
        _set(as_v1beta2, path, value)
    status_only = all(p.startswith("status.") for p in row.update)
    await kube.replace(v1beta2, as_v1beta2, subresource="status" if status_only else "")

    after = await kube.get(v1beta1, name, ns)
    expected = copy.deepcopy(before)
    for path, value in row.reads_back.items():
        _set(expected, path, value)
    assert _sections(after, row) == _sections(expected, row)
