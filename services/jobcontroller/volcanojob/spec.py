"""A Volcano Job with the defaults its admission webhook would have filled in.

Volcano's mutating webhook sets ``queue: default``, ``schedulerName: volcano``, ``maxRetry: 3``,
``minAvailable`` = the sum of task replicas and each task's ``minAvailable`` = its replicas; the
controller relies on those values being present. Shoal has no webhook in front of the reconcile,
so it applies the same defaults here, once, into a frozen view the rest of the package reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.errors import UserError
from shared.kube.keys import namespaced_key
from shared.kube.schedulers import VOLCANO_SCHEDULER_NAME
from shared.models import Json, VolcanoJob, convert
from shared.models.volcano import (
    MAX_REPLICAS,
    PARTITION_ID_KEY,
    TASK_SPEC_KEY,
    LifecyclePolicy,
    NetworkTopologySpec,
    TaskSpec,
    VolcanoJobSpec,
)

DEFAULT_QUEUE = "default"
DEFAULT_MAX_RETRY = 3
JOB_API_VERSION = "batch.volcano.sh/v1alpha1"


@dataclass(frozen=True, slots=True)
class Task:
    """One task of the job: ``replicas`` pods from ``template``."""

    name: str
    replicas: int
    min_available: int
    template: Json
    policies: tuple[LifecyclePolicy, ...]
    max_retry: int
    # dependsOn: the tasks whose pods must be ready before this task's pods are created, and
    # whether all of them ("All", the default) or any one ("Any") must be.
    depends_on: tuple[str, ...] = ()
    depends_on_any: bool = False
    # The PodGroup's minTaskMember for this task (``getMinTaskMember``): minAvailable, else
    # partitionPolicy's minPartitions x partitionSize, else replicas.
    min_task_member: int = 0
    # ``partitionPolicy``: the PodGroup's subGroupPolicy for this task and the pods per
    # partition (upstream ``getSubGroupPolicy`` and the partition-id label); None without one.
    sub_group_policy: Json | None = None
    partition_size: int | None = None

    def pod_spec(self) -> Json:
        spec = self.template.get("spec")
        return spec if isinstance(spec, dict) else {}


@dataclass(frozen=True, slots=True)
class JobView:
    """The defaulted spec and identity of one Volcano Job."""

    name: str
    namespace: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    creation_timestamp: str | None
    tasks: tuple[Task, ...]
    min_available: int
    min_success: int | None
    queue: str
    scheduler_name: str
    priority_class_name: str | None
    max_retry: int
    policies: tuple[LifecyclePolicy, ...]
    plugins: dict[str, list[str]]
    ttl_seconds_after_finished: int | None
    # ``spec.networkTopology`` as the PodGroup gets it (upstream ``createOrUpdatePodGroup``).
    network_topology: Json | None = None

    @property
    def key(self) -> str:
        return namespaced_key(self.namespace, self.name)

    @property
    def podgroup_name(self) -> str:
        return f"{self.name}-{self.uid}"

    @property
    def total_replicas(self) -> int:
        return sum(task.replicas for task in self.tasks)

    def task(self, name: str) -> Task | None:
        return next((task for task in self.tasks if task.name == name), None)

    def owner_reference(self) -> Json:
        """The controller reference every object the job creates carries."""
        return {
            "apiVersion": JOB_API_VERSION,
            "kind": "Job",
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }


def _depends_on(raw: Json | None) -> tuple[str, ...]:
    names = (raw or {}).get("name") or []
    return tuple(str(n) for n in names) if isinstance(names, list) else ()


def _min_task_member(task: TaskSpec) -> int:
    if task.minAvailable is not None:
        return task.minAvailable
    partitions = task.partitionPolicy or {}
    min_partitions, size = (
        partitions.get("minPartitions") or 0,
        partitions.get("partitionSize") or 0,
    )
    if isinstance(min_partitions, int) and isinstance(size, int) and min_partitions and size:
        return min_partitions * size
    return task.replicas


def job_view(job: VolcanoJob) -> JobView:
    spec = job.spec
    for task in spec.tasks:
        if task.replicas > MAX_REPLICAS:
            raise UserError(
                f"spec.tasks[{task.name}].replicas: {task.replicas} is more than "
                f"{MAX_REPLICAS} pods, the most Shoal runs per task"
            )
    max_retry = spec.maxRetry if spec.maxRetry else DEFAULT_MAX_RETRY
    tasks = tuple(
        Task(
            name=task.name,
            replicas=task.replicas,
            min_available=task.minAvailable if task.minAvailable is not None else task.replicas,
            template=task.template,
            policies=tuple(task.policies),
            max_retry=task.maxRetry if task.maxRetry else max_retry,
            depends_on=_depends_on(task.dependsOn),
            depends_on_any=(task.dependsOn or {}).get("iteration") == "Any",
            min_task_member=_min_task_member(task),
            sub_group_policy=_sub_group_policy(task),
            partition_size=_partition_size(task),
        )
        for task in spec.tasks
    )
    total = sum(task.replicas for task in tasks)
    return JobView(
        name=job.metadata.name,
        namespace=job.metadata.namespace or "default",
        uid=job.metadata.uid,
        labels=dict(job.metadata.labels),
        annotations=dict(job.metadata.annotations),
        creation_timestamp=job.metadata.creationTimestamp,
        tasks=tasks,
        min_available=spec.minAvailable if spec.minAvailable is not None else total,
        min_success=spec.minSuccess,
        queue=spec.queue or DEFAULT_QUEUE,
        scheduler_name=spec.schedulerName or VOLCANO_SCHEDULER_NAME,
        priority_class_name=spec.priorityClassName or None,
        max_retry=max_retry,
        policies=tuple(spec.policies),
        plugins={name: list(args) for name, args in spec.plugins.items()},
        ttl_seconds_after_finished=spec.ttlSecondsAfterFinished,
        network_topology=_network_topology(spec),
    )


def _partition_size(task: TaskSpec) -> int | None:
    if task.partitionPolicy is None:
        return None
    size = task.partitionPolicy.get("partitionSize")
    return size if isinstance(size, int) else 0


def _sub_group_policy(task: TaskSpec) -> Json | None:
    """Upstream ``getSubGroupPolicy``: a sub-group per partition of the task's pods (by the
    task-spec label and the partition-id label key), sized ``partitionSize``, at least
    ``minPartitions`` of them, with the partition's network topology copied as it is."""
    partitions = task.partitionPolicy
    if partitions is None:
        return None
    size, minimum = partitions.get("partitionSize"), partitions.get("minPartitions")
    policy: Json = {
        "name": task.name,
        "subGroupSize": size if isinstance(size, int) else 0,
        "minSubGroups": minimum if isinstance(minimum, int) else 0,
        "labelSelector": {"matchLabels": {TASK_SPEC_KEY: task.name}},
        "matchLabelKeys": [PARTITION_ID_KEY],
    }
    raw = partitions.get("networkTopology")
    if isinstance(raw, dict):
        topology = convert(raw, NetworkTopologySpec, document=f"task {task.name} partitionPolicy")
        copied: Json = {"mode": topology.mode}
        if topology.highestTierAllowed is not None:
            copied["highestTierAllowed"] = topology.highestTierAllowed
        if topology.highestTierName:
            copied["highestTierName"] = topology.highestTierName
        policy["networkTopology"] = copied
    return policy


def _network_topology(spec: VolcanoJobSpec) -> Json | None:
    """Upstream copies the mode and either ``highestTierAllowed`` or, without it,
    ``highestTierName``."""
    topology = spec.networkTopology
    if topology is None:
        return None
    out: Json = {"mode": topology.mode}
    if topology.highestTierAllowed is not None:
        out["highestTierAllowed"] = topology.highestTierAllowed
    elif topology.highestTierName:
        out["highestTierName"] = topology.highestTierName
    return out
