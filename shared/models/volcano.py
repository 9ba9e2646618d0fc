"""Volcano objects: PodGroup and Queue (scheduling.volcano.sh/v1beta1), Job
(batch.volcano.sh/v1alpha1) and Command (bus.volcano.sh/v1alpha1)."""

from __future__ import annotations

import msgspec

from shared.models.base import (
    Condition,
    Json,
    LabelSelector,
    Model,
    ObjectMeta,
    OwnerReference,
)

# Pods per Volcano task or PyTorchJob replica type that Shoal runs (kubesim refuses more at
# admission, as Kubernetes bounds an Indexed Job's completions): a sync stays bounded.
MAX_REPLICAS = 100_000
GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
QUEUE_NAME_ANNOTATION = "scheduling.volcano.sh/queue-name"
TASK_SPEC_KEY = "volcano.sh/task-spec"
JOB_NAME_KEY = "volcano.sh/job-name"
JOB_NAMESPACE_KEY = "volcano.sh/job-namespace"
JOB_VERSION_KEY = "volcano.sh/job-version"
QUEUE_NAME_KEY = "volcano.sh/queue-name"
TASK_INDEX_KEY = "volcano.sh/task-index"
JOB_RETRY_COUNT_KEY = "volcano.sh/job-retry-count"
# A task pod's partition (index // partitionSize) under a task's partitionPolicy (upstream
# ``batch.TaskPartitionID``): the label its PodGroup's subGroupPolicy groups pods by.
PARTITION_ID_KEY = "volcano.sh/partition-id"


# PodGroup ``spec.networkTopology.mode`` values (upstream ``NetworkTopologyMode``); the CRD
# defaults the mode to hard.
HARD_NETWORK_TOPOLOGY_MODE = "hard"
SOFT_NETWORK_TOPOLOGY_MODE = "soft"
# The HyperNode a job's placed tasks lie in, kept on its PodGroup by the scheduler.
JOB_ALLOCATED_HYPERNODE = "volcano.sh/job-allocated-hypernode"


class NetworkTopologySpec(Model):
    mode: str = HARD_NETWORK_TOPOLOGY_MODE
    highestTierAllowed: int | None = None
    highestTierName: str = ""


class SubGroupPolicySpec(Model):
    """A PodGroup's sub-groups (upstream ``SubGroupPolicySpec``): the pods matching
    ``labelSelector`` are grouped by their values of ``matchLabelKeys``; each group is a
    sub-gang of ``subGroupSize`` pods (CRD default 1), at least ``minSubGroups`` of them
    (default 0) for the job to run, each placed within its own ``networkTopology``."""

    name: str = ""
    networkTopology: NetworkTopologySpec | None = None
    subGroupSize: int | None = None
    minSubGroups: int | None = None
    labelSelector: LabelSelector | None = None
    matchLabelKeys: list[str] = []


class PodGroupSpec(Model):
    minMember: int = 0
    minTaskMember: dict[str, int] = {}
    queue: str = "default"
    priorityClassName: str | None = None
    minResources: dict[str, str | int | float] = {}
    networkTopology: NetworkTopologySpec | None = None
    subGroupPolicy: list[SubGroupPolicySpec] = []


class PodGroupStatus(Model):
    phase: str = "Pending"
    conditions: list[Condition] = []
    running: int = 0
    succeeded: int = 0
    failed: int = 0


class PodGroup(Model):
    apiVersion: str = "scheduling.volcano.sh/v1beta1"
    kind: str = "PodGroup"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodGroupSpec = msgspec.field(default_factory=PodGroupSpec)
    status: PodGroupStatus = msgspec.field(default_factory=PodGroupStatus)


class Guarantee(Model):
    resource: dict[str, str | int | float] = {}


class NodeGroupAffinity(Model):
    """Node groups (``volcano.sh/nodegroup-name`` label values) a queue's pods go to."""

    requiredDuringSchedulingIgnoredDuringExecution: list[str] = []
    preferredDuringSchedulingIgnoredDuringExecution: list[str] = []


class NodeGroupAntiAffinity(Model):
    """Node groups a queue's pods avoid."""

    requiredDuringSchedulingIgnoredDuringExecution: list[str] = []
    preferredDuringSchedulingIgnoredDuringExecution: list[str] = []


class QueueAffinity(Model):
    """A Queue's ``spec.affinity`` (Volcano scheduling/v1beta1 ``Affinity``)."""

    nodeGroupAffinity: NodeGroupAffinity | None = None
    nodeGroupAntiAffinity: NodeGroupAntiAffinity | None = None


class QueueSpec(Model):
    weight: int = 1
    capability: dict[str, str | int | float] = {}
    deserved: dict[str, str | int | float] = {}
    guarantee: Guarantee | None = None
    reclaimable: bool | None = None
    parent: str | None = None
    priority: int | None = None
    affinity: QueueAffinity | None = None


class QueueStatus(Model):
    state: str = ""  # not set yet: Open to the scheduler; the job controller opens it
    pending: int = 0
    running: int = 0
    inqueue: int = 0
    completed: int = 0
    unknown: int = 0
    allocated: dict[str, str | int | float] = {}


class Queue(Model):
    apiVersion: str = "scheduling.volcano.sh/v1beta1"
    kind: str = "Queue"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: QueueSpec = msgspec.field(default_factory=QueueSpec)
    status: QueueStatus = msgspec.field(default_factory=QueueStatus)


class LifecyclePolicy(Model):
    action: str | None = None
    event: str | None = None
    events: list[str] = []
    exitCode: int | None = None
    timeout: str | None = None


class TaskSpec(Model):
    name: str = ""
    replicas: int = 0
    minAvailable: int | None = None
    template: Json = {}
    policies: list[LifecyclePolicy] = []
    maxRetry: int | None = None
    dependsOn: Json | None = None
    partitionPolicy: Json | None = None


class VolcanoJobSpec(Model):
    tasks: list[TaskSpec] = []
    minAvailable: int | None = None
    minSuccess: int | None = None
    schedulerName: str | None = None
    queue: str | None = None
    priorityClassName: str | None = None
    policies: list[LifecyclePolicy] = []
    plugins: dict[str, list[str]] = {}
    maxRetry: int | None = None
    ttlSecondsAfterFinished: int | None = None
    runningEstimate: str | None = None
    volumes: list[Json] = []
    networkTopology: NetworkTopologySpec | None = None


class JobState(Model):
    phase: str = ""
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None


class TaskState(Model):
    phase: dict[str, int] = {}


class JobCondition(Model):
    status: str
    lastTransitionTime: str | None = None


class VolcanoJobStatus(Model):
    state: JobState = msgspec.field(default_factory=JobState)
    minAvailable: int = 0
    pending: int = 0
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    terminating: int = 0
    unknown: int = 0
    version: int = 0
    retryCount: int = 0
    runningDuration: str | None = None
    taskStatusCount: dict[str, TaskState] = {}
    conditions: list[JobCondition] = []
    controlledResources: dict[str, str] = {}


class VolcanoJob(Model):
    apiVersion: str = "batch.volcano.sh/v1alpha1"
    kind: str = "Job"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: VolcanoJobSpec = msgspec.field(default_factory=VolcanoJobSpec)
    status: VolcanoJobStatus = msgspec.field(default_factory=VolcanoJobStatus)


class Command(Model):
    apiVersion: str = "bus.volcano.sh/v1alpha1"
    kind: str = "Command"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    action: str = ""
    target: OwnerReference | None = None
    reason: str | None = None
    message: str | None = None
