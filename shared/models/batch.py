"""batch/v1 Job: the fields of the current Kubernetes Job API that the job controller reads."""

from __future__ import annotations

import msgspec

from shared.models.base import Condition, Json, LabelSelector, Model, ObjectMeta


class OnExitCodes(Model):
    operator: str
    values: list[int]
    containerName: str | None = None


class OnPodCondition(Model):
    type: str
    status: str = "True"


class PodFailurePolicyRule(Model):
    action: str
    onExitCodes: OnExitCodes | None = None
    onPodConditions: list[OnPodCondition] = []


class PodFailurePolicy(Model):
    rules: list[PodFailurePolicyRule] = []


class SuccessPolicyRule(Model):
    succeededIndexes: str | None = None
    succeededCount: int | None = None


class SuccessPolicy(Model):
    rules: list[SuccessPolicyRule] = []


class JobSpec(Model):
    template: Json = {}
    parallelism: int | None = None
    completions: int | None = None
    activeDeadlineSeconds: int | None = None
    backoffLimit: int | None = None
    backoffLimitPerIndex: int | None = None
    maxFailedIndexes: int | None = None
    podFailurePolicy: PodFailurePolicy | None = None
    successPolicy: SuccessPolicy | None = None
    selector: LabelSelector | None = None
    manualSelector: bool | None = None
    ttlSecondsAfterFinished: int | None = None
    completionMode: str | None = None
    suspend: bool | None = None
    podReplacementPolicy: str | None = None
    managedBy: str | None = None


class UncountedTerminatedPods(Model):
    succeeded: list[str] = []
    failed: list[str] = []


class JobStatus(Model):
    conditions: list[Condition] = []
    startTime: str | None = None
    completionTime: str | None = None
    active: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    terminating: int | None = None
    ready: int | None = None
    completedIndexes: str | None = None
    failedIndexes: str | None = None
    uncountedTerminatedPods: UncountedTerminatedPods | None = None


class Job(Model):
    apiVersion: str = "batch/v1"
    kind: str = "Job"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: JobSpec = msgspec.field(default_factory=JobSpec)
    status: JobStatus = msgspec.field(default_factory=JobStatus)


class JobTemplateSpec(Model):
    """A CronJob's ``jobTemplate``: the metadata and spec its Jobs are made from (the spec kept
    as a dict, so every field passes through to the Job intact)."""

    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: Json = {}


class CronJobSpec(Model):
    schedule: str = ""
    timeZone: str | None = None
    startingDeadlineSeconds: int | None = None
    concurrencyPolicy: str = "Allow"
    suspend: bool | None = None
    jobTemplate: JobTemplateSpec = msgspec.field(default_factory=JobTemplateSpec)
    successfulJobsHistoryLimit: int | None = None
    failedJobsHistoryLimit: int | None = None


class ObjectReference(Model):
    apiVersion: str | None = None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None


class CronJobStatus(Model):
    active: list[ObjectReference] = []
    lastScheduleTime: str | None = None
    lastSuccessfulTime: str | None = None


class CronJob(Model):
    apiVersion: str = "batch/v1"
    kind: str = "CronJob"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: CronJobSpec = msgspec.field(default_factory=CronJobSpec)
    status: CronJobStatus = msgspec.field(default_factory=CronJobStatus)
