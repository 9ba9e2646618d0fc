"""Kueue objects (kueue.x-k8s.io v1beta1 and v1beta2): ResourceFlavor, ClusterQueue, LocalQueue,
Workload, Cohort.

The services list, watch and write these as v1beta2, the version Kueue's CRDs store, so none of
their reads or writes goes through the conversion webhook; a user's v1beta1 object is converted
once, by the API server, when it is written. Manifests given to the tools (``simulate``,
``explain``) may still be v1beta1, so where v1beta2 renamed a field both names are fields here
(``cohort``/``cohortName``, ``priorityClassName``/``priorityClassRef``) and the readers take
either: that is simpler than converting at the boundary, which would need the webhook's
conversion core in every service."""

from __future__ import annotations

import msgspec

from shared.models.base import Condition, Json, LabelSelector, Model, ObjectMeta
from shared.models.core import Taint, Toleration


class ResourceFlavorSpec(Model):
    nodeLabels: dict[str, str] = {}
    nodeTaints: list[Taint] = []
    tolerations: list[Toleration] = []


class ResourceFlavor(Model):
    apiVersion: str = "kueue.x-k8s.io/v1beta2"
    kind: str = "ResourceFlavor"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceFlavorSpec = msgspec.field(default_factory=ResourceFlavorSpec)


class ResourceQuota(Model):
    name: str
    nominalQuota: str | int | float = 0
    borrowingLimit: str | int | float | None = None
    lendingLimit: str | int | float | None = None


class FlavorQuotas(Model):
    name: str
    resources: list[ResourceQuota] = []


class ResourceGroup(Model):
    coveredResources: list[str] = []
    flavors: list[FlavorQuotas] = []


class ClusterQueuePreemption(Model):
    reclaimWithinCohort: str = "Never"
    withinClusterQueue: str = "Never"
    borrowWithinCohort: Json | None = None


class ClusterQueueSpec(Model):
    resourceGroups: list[ResourceGroup] = []
    cohort: str | None = None
    cohortName: str | None = None
    queueingStrategy: str = "BestEffortFIFO"
    namespaceSelector: LabelSelector | None = None
    preemption: ClusterQueuePreemption | None = None
    flavorFungibility: Json | None = None
    stopPolicy: str | None = None
    fairSharing: Json | None = None


class ClusterQueue(Model):
    apiVersion: str = "kueue.x-k8s.io/v1beta2"
    kind: str = "ClusterQueue"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ClusterQueueSpec = msgspec.field(default_factory=ClusterQueueSpec)
    status: Json = {}


class CohortSpec(Model):
    parentName: str | None = None
    resourceGroups: list[ResourceGroup] = []
    fairSharing: Json | None = None


class Cohort(Model):
    """A node of the cohort tree: quota of its own shared by its subtree, and a parent."""

    apiVersion: str = "kueue.x-k8s.io/v1beta2"
    kind: str = "Cohort"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CohortSpec = msgspec.field(default_factory=CohortSpec)
    status: Json = {}


class LocalQueueSpec(Model):
    clusterQueue: str = ""
    stopPolicy: str | None = None


class LocalQueue(Model):
    apiVersion: str = "kueue.x-k8s.io/v1beta2"
    kind: str = "LocalQueue"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: LocalQueueSpec = msgspec.field(default_factory=LocalQueueSpec)
    status: Json = {}


class PodSet(Model):
    name: str = "main"
    count: int = 1
    minCount: int | None = None
    template: Json = {}


class WorkloadSpec(Model):
    podSets: list[PodSet] = []
    queueName: str | None = None
    priorityClassName: str | None = None
    priorityClassRef: Json | None = None
    priority: int | None = None
    active: bool | None = None


class PodSetAssignment(Model):
    name: str
    flavors: dict[str, str] = {}
    resourceUsage: dict[str, str | int | float] = {}
    count: int | None = None


class Admission(Model):
    clusterQueue: str
    podSetAssignments: list[PodSetAssignment] = []


class ReclaimablePod(Model):
    name: str
    count: int = 0


class WorkloadStatus(Model):
    admission: Admission | None = None
    conditions: list[Condition] = []
    reclaimablePods: list[ReclaimablePod] = []


class Workload(Model):
    apiVersion: str = "kueue.x-k8s.io/v1beta2"
    kind: str = "Workload"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)
    status: WorkloadStatus = msgspec.field(default_factory=WorkloadStatus)
