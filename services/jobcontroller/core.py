"""The contract of a job reconcile: inputs observed from the cache, actions out.

Every job kind's reconcile is a pure function ``reconcile(job, observed, now) -> Actions``.
The service shell executes the actions against the API server; ``shoal simulate reconcile``
prints them. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.models import Command, Json, Pod, PodGroup, Service


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


@dataclass(slots=True)
class Patch:
    """A patch to one object (e.g. remove a tracking finalizer, adopt an orphan)."""

    kind: str
    key: str
    patch: Json
    patch_type: str = "merge"  # "merge" (RFC 7386) or "strategic"
    # The uid of the pod whose tracking finalizer this patch removes: the shell expects the
    # removal (``Observed.finalizers_removing``) until the cache shows it.
    releases: str = ""


@dataclass(slots=True)
class Actions:
    """What one sync decided. ``status`` is the job's new status in its own API schema."""

    create: list[Json] = field(default_factory=list)  # full manifests, in creation order
    delete: list[str] = field(default_factory=list)  # "namespace/name" of objects to delete
    delete_kinds: list[str] = field(default_factory=list)  # parallel to delete: object kinds
    patch: list[Patch] = field(default_factory=list)
    status: Json | None = None
    delete_job: bool = False  # ttlSecondsAfterFinished elapsed
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)
    requeue_after: float | None = None  # seconds; for back-off, deadlines and TTLs
    consumed_commands: list[str] = field(default_factory=list)  # Command keys to delete
    # Slow-start batch sizes that partition ``create`` in order (sum == len(create)); the shell
    # stops creating after the first batch that had a failure. Empty: one batch of everything.
    create_batches: list[int] = field(default_factory=list)
    # Status to write *before* the patches (e.g. finished pods recorded in
    # uncountedTerminatedPods before their tracking finalizers are removed), so a crash between
    # the two loses no count; ``status`` is the status once every patch succeeded.
    interim_status: Json | None = None

    def delete_object(self, kind: str, key: str) -> None:
        self.delete.append(key)
        self.delete_kinds.append(kind)
