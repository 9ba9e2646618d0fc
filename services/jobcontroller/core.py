"""The contract of a job reconcile: inputs observed from the cache, actions out.

Every job kind's reconcile is a pure function ``reconcile(job, observed, now) -> Actions``.
The service shell executes the actions against the API server; ``shoal simulate reconcile``
prints them. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

import msgspec

from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.models import (
    Command,
    CronJob,
    Job,
    Json,
    Model,
    Pod,
    PodGroup,
    PriorityClass,
    ResourceFlavor,
    Service,
    Workload,
)

# Kubernetes' own Job controller: what an unset batch/v1 ``spec.managedBy`` means.
BATCH_CONTROLLER_NAME = "kubernetes.io/job-controller"

M = TypeVar("M", bound=Model)


def editable_copy(model: M) -> M:
    """A deep copy of a cached model (e.g. the job's status) for a reconcile to edit in place;
    the cached object itself is shared and must not change. Round-tripping through builtins is
    msgspec's fastest deep copy (about ten times ``copy.deepcopy``)."""
    return msgspec.convert(msgspec.to_builtins(model), type(model))


@dataclass(slots=True)
class Observed:
    """What the controller's cache holds for one job when it syncs."""

    pods: list[Pod] = field(default_factory=list)
    podgroups: list[PodGroup] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    # False while creations/deletions are in flight: no creates, deletes or finishing.
    expectations_satisfied: bool = True
    # Orphan pods in the job's namespace whose labels match its selector (adoption candidates).
    orphans: list[Pod] = field(default_factory=list)
    # Uids of pods whose tracking-finalizer removal is in flight: an earlier sync counted them
    # and wrote that count, the cache has not yet shown the patch (``expectedRmFinalizers``).
    finalizers_removing: frozenset[str] = frozenset()
    # Kueue: the job's Workloads, and the ResourceFlavors by name (their labels and
    # tolerations go into the pod templates when the Workload is admitted).
    workloads: list[Workload] = field(default_factory=list)
    flavors: dict[str, ResourceFlavor] = field(default_factory=dict)
    # Kueue: the PriorityClasses by name (a new Workload's ``spec.priority`` is its class's
    # value, or the global default's).
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    # The controller's setting, not the cache: the schedulerName values for which a training
    # job (PyTorchJob) gets one PodGroup for all its pods, as the training operator does with
    # ``--gang-scheduler-name``.
    gang_scheduler_names: frozenset[str] = frozenset(SHOAL_SCHEDULER_NAMES)
    # The controller's setting: the batch/v1 ``spec.managedBy`` it answers to.
    batch_managed_by: str = BATCH_CONTROLLER_NAME
    # A CronJob's: the batch/v1 Jobs it controls, and the names of those in its
    # ``status.active`` that the cache lacks but the API server still has (a slow watch); the
    # CronJob as the API server has it, read when a running Job of it is not in the cached
    # ``status.active`` (upstream's ``GetCronJob`` before an UnexpectedJob).
    jobs: list[Job] = field(default_factory=list)
    live_jobs: frozenset[str] = frozenset()
    fresh_cronjob: CronJob | None = None


@dataclass(slots=True)
class Patch:
    """A patch to one object (e.g. remove a tracking finalizer, adopt an orphan)."""

    kind: str
    key: str
    patch: Json
    patch_type: str = "merge"  # "merge" (RFC 7386) or "strategic"
    api_version: str = ""  # when the kind alone is ambiguous (a job, a Kueue Workload)
    subresource: str = ""  # e.g. "status"
    # The uid of the pod whose tracking finalizer this patch removes: the shell expects the
    # removal (``Observed.finalizers_removing``) until the cache shows it.
    releases: str = ""


@dataclass(slots=True)
class Actions:
    """What one sync decided. ``status`` is the job's whole new status, typed as its kind's
    status model (the shell writes it as the merge patch from the cached status)."""

    create: list[Json] = field(default_factory=list)  # full manifests, in creation order
    delete: list[str] = field(default_factory=list)  # "namespace/name" of objects to delete
    delete_kinds: list[str] = field(default_factory=list)  # parallel to delete: object kinds
    patch: list[Patch] = field(default_factory=list)
    # Patches that need the created objects first (a pod joining the PodGroup just created).
    patch_after_create: list[Patch] = field(default_factory=list)
    status: Model | None = None
    delete_job: bool = False  # ttlSecondsAfterFinished elapsed
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)
    # Events that report a write (SuccessfulCreate): posted only when every write succeeded.
    events_on_success: list[tuple[str, str, str]] = field(default_factory=list)
    # A Warning Event per failed create or delete call: verb → (reason, message before the
    # API server's error), e.g. {"create": ("FailedCreate", "Error creating job: ")}.
    failed_write_events: dict[str, tuple[str, str]] = field(default_factory=dict)
    requeue_after: float | None = None  # seconds; for back-off, deadlines and TTLs
    consumed_commands: list[str] = field(default_factory=list)  # Command keys to delete
    # Slow-start batch sizes that partition ``create`` in order (sum == len(create)); the shell
    # stops creating after the first batch that had a failure. Empty: one batch of everything.
    create_batches: list[int] = field(default_factory=list)
    # Status to write *before* the patches (e.g. finished pods recorded in
    # uncountedTerminatedPods before their tracking finalizers are removed), so a crash between
    # the two loses no count; ``status`` is the status once every patch succeeded.
    interim_status: Model | None = None

    def delete_object(self, kind: str, key: str) -> None:
        self.delete.append(key)
        self.delete_kinds.append(kind)

    def changes_objects(self) -> bool:
        """Whether executing these actions would create, delete or patch anything."""
        return bool(self.create or self.delete or self.patch or self.patch_after_create)
