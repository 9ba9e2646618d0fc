"""A PyTorchJob with the defaults the training operator's webhook applies.

Replica types are canonicalised (``master`` → ``Master``), replicas default to 1, restartPolicy to
``OnFailure``, the ``pytorch`` container gets the ``pytorchjob-port`` (23456) when it has none,
``cleanPodPolicy`` defaults to ``None`` and an elastic policy without bounds takes the worker
count for both.

Gang scheduling (one PodGroup per job, as the operator's ``--gang-scheduler-name``) is on when a
replica template names one of the configured gang schedulers (``Observed.gang_scheduler_names``,
default ``volcano`` and ``shoal``), or when ``schedulingPolicy`` is set; its scheduler is then the
first gang scheduler a template names (``volcano`` when none does), which templates without a
``schedulerName`` get.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import msgspec

from shared.errors import UserError
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES, VOLCANO_SCHEDULER_NAME
from shared.models import Json, PyTorchJob
from shared.models.kubeflow import ElasticPolicy, SchedulingPolicy
from shared.models.volcano import MAX_REPLICAS

MASTER = "Master"
WORKER = "Worker"
DEFAULT_CONTAINER = "pytorch"
DEFAULT_PORT_NAME = "pytorchjob-port"
DEFAULT_PORT = 23456
DEFAULT_RESTART_POLICY = "OnFailure"
DEFAULT_NPROC_PER_NODE = "auto"
OPERATOR_NAME = "pytorchjob-controller"
MANAGED_BY_OPERATOR = "kubeflow.org/training-operator"
DEFAULT_GANG_SCHEDULERS = frozenset(SHOAL_SCHEDULER_NAMES)
# The operator's createNewPod warns when a template keeps its own scheduler under gang scheduling.
SCHEDULER_NAME_REASON = "SetPodTemplateSchedulerName"
SCHEDULER_NAME_MESSAGE = (
    "Another scheduler is specified when gang-scheduling is enabled and it will not be overwritten"
)
# The operator's ``VolcanoControl.GetSchedulerName``.
GANG_SCHEDULER_NAME = VOLCANO_SCHEDULER_NAME


@dataclass(frozen=True, slots=True)
class Replica:
    """One replica type: ``replicas`` pods named ``<job>-<type>-<index>``."""

    type: str
    replicas: int
    restart_policy: str
    template: Json

    @property
    def rt(self) -> str:
        return self.type.lower()

    def containers(self) -> list[Json]:
        spec = self.template.get("spec") or {}
        containers = spec.get("containers") or []
        return containers if isinstance(containers, list) else []

    def ports(self) -> dict[str, int]:
        """Named ports of the ``pytorch`` container (what the headless Service exposes)."""
        for container in self.containers():
            if container.get("name") == DEFAULT_CONTAINER:
                return {
                    str(p.get("name")): int(p["containerPort"])
                    for p in container.get("ports") or []
                    if p.get("name") and "containerPort" in p
                }
        return {}


@dataclass(frozen=True, slots=True)
class PyTorchView:
    name: str
    namespace: str
    uid: str
    labels: dict[str, str]
    replicas: tuple[Replica, ...]  # Master first, then Worker, then any other type by name
    clean_pod_policy: str
    ttl_seconds_after_finished: int | None
    active_deadline_seconds: int | None
    backoff_limit: int | None
    suspend: bool
    managed_by: str | None
    scheduling: SchedulingPolicy | None
    elastic: ElasticPolicy | None
    nproc_per_node: str | None
    gang_scheduler: str | None  # None: no gang scheduling
    annotations: dict[str, str]

    @property
    def gang(self) -> bool:
        return self.gang_scheduler is not None

    @property
    def total_replicas(self) -> int:
        return sum(r.replicas for r in self.replicas)

    def replica(self, type_: str) -> Replica | None:
        return next((r for r in self.replicas if r.type == type_), None)

    def owner_reference(self) -> Json:
        return {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }


def _canonical(type_: str) -> str:
    for known in (MASTER, WORKER):
        if type_.lower() == known.lower():
            return known
    return type_


def _with_default_port(template: Json) -> Json:
    template = copy.deepcopy(template)
    spec = template.setdefault("spec", {})
    containers = spec.setdefault("containers", [])
    if not containers:
        return template
    target = next((c for c in containers if c.get("name") == DEFAULT_CONTAINER), containers[0])
    ports = target.setdefault("ports", [])
    if not any(p.get("name") == DEFAULT_PORT_NAME for p in ports):
        ports.append({"name": DEFAULT_PORT_NAME, "containerPort": DEFAULT_PORT})
    return template


def _order(type_: str) -> tuple[int, str]:
    return ({MASTER: 0, WORKER: 1}.get(type_, 2), type_)


def _elastic(job: PyTorchJob) -> ElasticPolicy | None:
    policy = job.spec.elasticPolicy
    if policy is None:
        return None
    low, high = policy.minReplicas, policy.maxReplicas
    if low is None or high is None:
        workers = next(
            (
                s.replicas
                for t, s in job.spec.pytorchReplicaSpecs.items()
                if _canonical(t) == WORKER
            ),
            None,
        )
        low = low if low is not None else high if high is not None else workers or 1
        high = high if high is not None else low
    return msgspec.structs.replace(policy, minReplicas=low, maxReplicas=high)


def _nproc_per_node(job: PyTorchJob) -> str | None:
    """The webhook's ``setDefaultNprocPerNode``: ``auto`` unless an elastic policy sets its own."""
    elastic = job.spec.elasticPolicy
    if job.spec.nprocPerNode is None and (elastic is None or elastic.nProcPerNode is None):
        return DEFAULT_NPROC_PER_NODE
    return job.spec.nprocPerNode


def pytorch_view(
    job: PyTorchJob, gang_schedulers: frozenset[str] = DEFAULT_GANG_SCHEDULERS
) -> PyTorchView:
    for type_, spec in job.spec.pytorchReplicaSpecs.items():
        if spec.replicas is not None and spec.replicas > MAX_REPLICAS:
            raise UserError(
                f"spec.pytorchReplicaSpecs.{type_}.replicas: {spec.replicas} is more than "
                f"{MAX_REPLICAS} pods, the most Shoal runs per replica type"
            )
    replicas = tuple(
        sorted(
            (
                Replica(
                    type=_canonical(type_),
                    replicas=spec.replicas if spec.replicas is not None else 1,
                    restart_policy=spec.restartPolicy or DEFAULT_RESTART_POLICY,
                    template=_with_default_port(spec.template),
                )
                for type_, spec in job.spec.pytorchReplicaSpecs.items()
            ),
            key=lambda r: _order(r.type),
        )
    )
    run = job.spec.runPolicy
    named = [(r.template.get("spec") or {}).get("schedulerName") or "" for r in replicas]
    gang = next((name for name in named if name in gang_schedulers), None)
    if gang is None and run.schedulingPolicy is not None:
        gang = GANG_SCHEDULER_NAME
    return PyTorchView(
        name=job.metadata.name,
        namespace=job.metadata.namespace or "default",
        uid=job.metadata.uid,
        labels=dict(job.metadata.labels),
        replicas=replicas,
        clean_pod_policy=run.cleanPodPolicy or "None",
        ttl_seconds_after_finished=run.ttlSecondsAfterFinished,
        active_deadline_seconds=run.activeDeadlineSeconds,
        backoff_limit=run.backoffLimit,
        suspend=bool(run.suspend),
        managed_by=run.managedBy,
        scheduling=run.schedulingPolicy,
        elastic=_elastic(job),
        nproc_per_node=_nproc_per_node(job),
        gang_scheduler=gang,
        annotations=dict(job.metadata.annotations),
    )


def other_scheduler(job: PyTorchView) -> bool:
    """``isCustomSchedulerSet``: a template names a scheduler other than the gang's."""
    if job.gang_scheduler is None:
        return False
    named = ((r.template.get("spec") or {}).get("schedulerName") for r in job.replicas)
    return any(name and name != job.gang_scheduler for name in named)
