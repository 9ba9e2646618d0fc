"""core/v1, scheduling.k8s.io/v1 and coordination.k8s.io/v1 objects Shoal reads."""

from __future__ import annotations

import msgspec

from shared.models.base import Json, LabelSelector, Model, ObjectMeta


class ResourceRequirements(Model):
    requests: dict[str, str | int | float] = {}
    limits: dict[str, str | int | float] = {}


class EnvVar(Model):
    name: str
    value: str | None = None
    valueFrom: Json | None = None


class ContainerPort(Model):
    containerPort: int
    name: str | None = None
    protocol: str | None = None


class Container(Model):
    name: str = ""
    image: str | None = None
    command: list[str] = []
    args: list[str] = []
    env: list[EnvVar] = []
    ports: list[ContainerPort] = []
    resources: ResourceRequirements | None = None
    restartPolicy: str | None = None


class NodeSelectorRequirement(Model):
    key: str
    operator: str
    values: list[str] = []


class NodeSelectorTerm(Model):
    matchExpressions: list[NodeSelectorRequirement] = []
    matchFields: list[NodeSelectorRequirement] = []


class NodeSelector(Model):
    nodeSelectorTerms: list[NodeSelectorTerm] = []


class PreferredSchedulingTerm(Model):
    weight: int
    preference: NodeSelectorTerm


class NodeAffinity(Model):
    requiredDuringSchedulingIgnoredDuringExecution: NodeSelector | None = None
    preferredDuringSchedulingIgnoredDuringExecution: list[PreferredSchedulingTerm] = []


class PodAffinityTerm(Model):
    topologyKey: str
    labelSelector: LabelSelector | None = None
    namespaces: list[str] = []
    namespaceSelector: LabelSelector | None = None


class WeightedPodAffinityTerm(Model):
    weight: int
    podAffinityTerm: PodAffinityTerm


class PodAffinity(Model):
    requiredDuringSchedulingIgnoredDuringExecution: list[PodAffinityTerm] = []
    preferredDuringSchedulingIgnoredDuringExecution: list[WeightedPodAffinityTerm] = []


class Affinity(Model):
    nodeAffinity: NodeAffinity | None = None
    podAffinity: PodAffinity | None = None
    podAntiAffinity: PodAffinity | None = None


class Toleration(Model):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    tolerationSeconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """``Toleration.ToleratesTaint`` (k8s.io/api/core/v1): an empty effect or key matches
        any; ``Exists`` matches any value, else the values must be equal."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return (self.value or "") == (taint.value or "")


class Taint(Model):
    key: str
    effect: str
    value: str | None = None


class TopologySpreadConstraint(Model):
    maxSkew: int
    topologyKey: str
    whenUnsatisfiable: str
    labelSelector: LabelSelector | None = None
    minDomains: int | None = None
    nodeAffinityPolicy: str | None = None
    nodeTaintsPolicy: str | None = None
    matchLabelKeys: list[str] = []


class PodSchedulingGate(Model):
    name: str


class PodSpec(Model):
    containers: list[Container] = []
    initContainers: list[Container] = []
    nodeName: str | None = None
    nodeSelector: dict[str, str] = {}
    affinity: Affinity | None = None
    tolerations: list[Toleration] = []
    topologySpreadConstraints: list[TopologySpreadConstraint] = []
    schedulerName: str | None = None
    priorityClassName: str | None = None
    priority: int | None = None
    preemptionPolicy: str | None = None
    restartPolicy: str | None = None
    overhead: dict[str, str | int | float] = {}
    hostname: str | None = None
    subdomain: str | None = None
    terminationGracePeriodSeconds: int | None = None
    schedulingGates: list[PodSchedulingGate] = []


class ContainerState(Model):
    running: Json | None = None
    waiting: Json | None = None
    terminated: Json | None = None


class ContainerStatus(Model):
    name: str = ""
    ready: bool = False
    restartCount: int = 0
    state: ContainerState | None = None
    lastState: ContainerState | None = None

    def exit_code(self) -> int | None:
        if self.state is not None and self.state.terminated is not None:
            code = self.state.terminated.get("exitCode")
            return int(code) if code is not None else None
        return None


class PodCondition(Model):
    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None


class PodStatus(Model):
    phase: str | None = None
    conditions: list[PodCondition] = []
    containerStatuses: list[ContainerStatus] = []
    initContainerStatuses: list[ContainerStatus] = []
    reason: str | None = None
    message: str | None = None
    podIP: str | None = None
    hostIP: str | None = None
    startTime: str | None = None
    nominatedNodeName: str | None = None


class Pod(Model):
    apiVersion: str = "v1"
    kind: str = "Pod"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
    status: PodStatus = msgspec.field(default_factory=PodStatus)


class NodeSpec(Model):
    unschedulable: bool = False
    taints: list[Taint] = []


class ContainerImage(Model):
    names: list[str] = []
    sizeBytes: int = 0


class NodeStatus(Model):
    capacity: dict[str, str | int | float] = {}
    allocatable: dict[str, str | int | float] = {}
    conditions: list[PodCondition] = []
    images: list[ContainerImage] = []


class Node(Model):
    apiVersion: str = "v1"
    kind: str = "Node"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeSpec = msgspec.field(default_factory=NodeSpec)
    status: NodeStatus = msgspec.field(default_factory=NodeStatus)


class PriorityClass(Model):
    apiVersion: str = "scheduling.k8s.io/v1"
    kind: str = "PriorityClass"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    value: int = 0
    globalDefault: bool = False
    preemptionPolicy: str | None = None
    description: str | None = None


class PodDisruptionBudgetSpec(Model):
    minAvailable: int | str | None = None
    maxUnavailable: int | str | None = None
    selector: LabelSelector | None = None
    unhealthyPodEvictionPolicy: str | None = None


class PodDisruptionBudgetStatus(Model):
    observedGeneration: int | None = None
    disruptedPods: dict[str, str] = {}
    disruptionsAllowed: int = 0
    currentHealthy: int = 0
    desiredHealthy: int = 0
    expectedPods: int = 0
    conditions: list[Json] = []


class PodDisruptionBudget(Model):
    apiVersion: str = "policy/v1"
    kind: str = "PodDisruptionBudget"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodDisruptionBudgetSpec = msgspec.field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus = msgspec.field(default_factory=PodDisruptionBudgetStatus)


class ServicePort(Model):
    port: int
    name: str | None = None
    targetPort: int | str | None = None
    protocol: str | None = None


class ServiceSpec(Model):
    selector: dict[str, str] = {}
    ports: list[ServicePort] = []
    clusterIP: str | None = None
    type: str | None = None
    publishNotReadyAddresses: bool | None = None


class Service(Model):
    apiVersion: str = "v1"
    kind: str = "Service"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ServiceSpec = msgspec.field(default_factory=ServiceSpec)


class ObjectReference(Model):
    apiVersion: str | None = None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None
    fieldPath: str | None = None


class Event(Model):
    apiVersion: str = "v1"
    kind: str = "Event"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    involvedObject: ObjectReference = msgspec.field(default_factory=ObjectReference)
    reason: str | None = None
    message: str | None = None
    type: str | None = None
    count: int | None = None
    firstTimestamp: str | None = None
    lastTimestamp: str | None = None
    source: Json | None = None
    reportingComponent: str | None = None


class LeaseSpec(Model):
    holderIdentity: str | None = None
    leaseDurationSeconds: int | None = None
    acquireTime: str | None = None
    renewTime: str | None = None
    leaseTransitions: int | None = None


class Lease(Model):
    apiVersion: str = "coordination.k8s.io/v1"
    kind: str = "Lease"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: LeaseSpec = msgspec.field(default_factory=LeaseSpec)


class ConfigMap(Model):
    apiVersion: str = "v1"
    kind: str = "ConfigMap"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    data: dict[str, str] = {}


class Namespace(Model):
    apiVersion: str = "v1"
    kind: str = "Namespace"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
