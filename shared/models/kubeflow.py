"""Kubeflow PyTorchJob (kubeflow.org/v1)."""

from __future__ import annotations

import msgspec

from shared.models.base import Condition, Json, Model, ObjectMeta


class ReplicaSpec(Model):
    replicas: int | None = None
    template: Json = {}
    restartPolicy: str | None = None


class SchedulingPolicy(Model):
    minAvailable: int | None = None
    queue: str | None = None
    minResources: dict[str, str | int | float] = {}
    priorityClass: str | None = None
    scheduleTimeoutSeconds: int | None = None


class RunPolicy(Model):
    cleanPodPolicy: str | None = None
    ttlSecondsAfterFinished: int | None = None
    activeDeadlineSeconds: int | None = None
    backoffLimit: int | None = None
    schedulingPolicy: SchedulingPolicy | None = None
    suspend: bool | None = None
    managedBy: str | None = None


class ElasticPolicy(Model):
    minReplicas: int | None = None
    maxReplicas: int | None = None
    rdzvBackend: str | None = None
    rdzvPort: int | None = None
    rdzvHost: str | None = None
    rdzvId: str | None = None
    rdzvConf: list[Json] = []
    standalone: bool | None = None
    nProcPerNode: int | None = None
    maxRestarts: int | None = None
    metrics: list[Json] = []


class PyTorchJobSpec(Model):
    pytorchReplicaSpecs: dict[str, ReplicaSpec] = {}
    runPolicy: RunPolicy = msgspec.field(default_factory=RunPolicy)
    elasticPolicy: ElasticPolicy | None = None
    nprocPerNode: str | None = None


class ReplicaStatus(Model):
    active: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    labelSelector: Json | None = None
    selector: str | None = None


class PyTorchJobStatus(Model):
    conditions: list[Condition] = []
    replicaStatuses: dict[str, ReplicaStatus] = {}
    startTime: str | None = None
    completionTime: str | None = None
    lastReconcileTime: str | None = None


class PyTorchJob(Model):
    apiVersion: str = "kubeflow.org/v1"
    kind: str = "PyTorchJob"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PyTorchJobSpec = msgspec.field(default_factory=PyTorchJobSpec)
    status: PyTorchJobStatus = msgspec.field(default_factory=PyTorchJobStatus)
