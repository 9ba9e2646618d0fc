"""Executing one sync's ``Actions`` against the API server, with expectations.

Order: interim status, patches, deletions, creations (slow-start batches), the patches that
need the created objects, status, consumed Commands, the job's own deletion, Events; a failure
skips the steps after it (but not Events). Events that report a write (``events_on_success``)
are posted only when every step succeeded; a failed create or delete call posts the Warning
its ``failed_write_events`` names, with the API server's error (a CronJob's ``FailedCreate``).
A reconcile returns the job's whole new status (typed); it is written as the merge patch from
the cached status (``status_patches``: the interim one first, then the final one from the
interim), so fields that went back to their default (``pending: 0``, an emptied list) are
removed on the server too. No change: no write.
Expectations are raised before each deletion (by uid) and creation batch (by count) and
lowered again at once when the call fails or answers AlreadyExists (no event will follow);
otherwise the cache lowers them when it observes the ADDED/DELETED event.

Idempotency: a create answered 409 AlreadyExists is success (names are deterministic, so it is
the object a previous sync created); a delete answered 404 is success. A failed creation batch
stops the remaining batches (slow start, as the Kubernetes Job controller); a batch's
consecutive Pods are created concurrently. Transient errors (429, 5xx, connection) and all
other failures make the sync fail, so the key is requeued with back-off; Events are best
effort and never fail a sync.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
import structlog

from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.core import Actions, Patch
from services.jobcontroller.sshkeys import wants_keypair, with_keypair
from services.jobcontroller.workkeys import JOB_TYPES, OWNED_TYPES, WorkKey, expectation_key
from shared.kube import ApiError, ResourceType, resource_for
from shared.kube.errors import CALL_ERRORS, is_transient
from shared.kube.events import event_manifest, involved_object
from shared.kube.keys import split_key
from shared.kube.patch import merge_diff
from shared.kube.recording import EventRecorder
from shared.models import Json, Model

# Kinds the watcher never mirrors: read before deleting to check ownership.
_log = structlog.get_logger()
_UNMIRRORED_KINDS = frozenset({"Secret", "NetworkPolicy"})
_TYPE_OF_KIND = {
    "Pod": "v1/Pod",
    "PodGroup": "scheduling.volcano.sh/v1beta1/PodGroup",
    "Job": "batch/v1/Job",
}
# Kinds deleted with their dependents in the background, as their upstream controllers do (a
# CronJob's Jobs; batch/v1 Jobs otherwise orphan their pods when no policy is named).
_BACKGROUND_DELETE = frozenset({"Job"})
_API_VERSION_OF_KIND = {
    "Pod": "v1",
    "Service": "v1",
    "PodGroup": "scheduling.volcano.sh/v1beta1",
    "Command": "bus.volcano.sh/v1alpha1",
    "ConfigMap": "v1",
    "Secret": "v1",
    "NetworkPolicy": "networking.k8s.io/v1",
    "Workload": "kueue.x-k8s.io/v1beta2",
    "Job": "batch/v1",
}


class KubeApi(Protocol):
    """The verbs of ``shared.kube.KubeClient`` the job controller uses (a fake in unit tests)."""

    async def get(self, rt: ResourceType, name: str, namespace: str | None = None) -> Json: ...

    async def create(self, rt: ResourceType, obj: Json, namespace: str | None = None) -> Json: ...

    async def create_unread(
        self, rt: ResourceType, obj: Json, namespace: str | None = None
    ) -> None: ...

    async def patch(
        self,
        rt: ResourceType,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> Json: ...

    async def delete(
        self,
        rt: ResourceType,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: str | None = None,
        uid: str | None = None,
    ) -> Json: ...


@dataclass(slots=True)
class Outcome:
    """What executing one sync's actions did; ``errors`` non-empty means requeue with back-off."""

    created: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)
    errors: list[BaseException] = field(default_factory=list)
    # ("create" | "delete", the error) of each failed create or delete call, in order.
    failed_writes: list[tuple[str, BaseException]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    @property
    def transient_only(self) -> bool:
        return all(is_transient(e) for e in self.errors)


@dataclass(frozen=True, slots=True)
class StatusPatches:
    """The status subresource writes of one sync: before the patches, and at the end."""

    interim: Json | None = None
    final: Json | None = None


NO_STATUS = StatusPatches()


def status_patches(cached: Model, actions: Actions) -> StatusPatches:
    """The merge patches that turn the cached status into the reconcile's new status; the one
    place a status becomes JSON."""
    current = msgspec.to_builtins(cached)
    interim: Json | None = None
    if actions.interim_status is not None:
        wanted = msgspec.to_builtins(actions.interim_status)
        interim = merge_diff(current, wanted) or None
        current = wanted
    final: Json | None = None
    if actions.status is not None:
        final = merge_diff(current, msgspec.to_builtins(actions.status)) or None
    return StatusPatches(interim, final)


def _rt_of(obj: Json) -> ResourceType:
    return resource_for(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))


def _kind_type(obj: Json) -> str:
    return f"{obj.get('apiVersion', '')}/{obj.get('kind', '')}"


def _type_key(kind: str) -> str:
    return _TYPE_OF_KIND.get(kind, f"{_API_VERSION_OF_KIND.get(kind, 'v1')}/{kind}")


class ActionExecutor:
    """Runs ``Actions`` for one job at a time (one worker per key, see ``queue``)."""

    def __init__(
        self,
        kube: KubeApi,
        cache: ControllerCache,
        *,
        component: str = "shoal-jobcontroller",
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        post_events: bool = True,
    ) -> None:
        self._kube = kube
        self._events = EventRecorder(kube)
        self._cache = cache
        self._component = component
        self._clock = clock
        self._wall_clock = wall_clock
        self._post_events = post_events

    async def execute(
        self, job: WorkKey, job_obj: Json, actions: Actions, status: StatusPatches = NO_STATUS
    ) -> Outcome:
        """``job_obj``: the object synced — a job's apiVersion, kind and metadata (for its
        status and Events) or a pod; ``status``: the job's status writes."""
        outcome = Outcome()
        rt = _rt_of(job_obj)
        if status.interim is not None:
            await self._status(rt, job.key, status.interim, outcome)
        if not outcome.failed:
            await self._patches(job, actions.patch, outcome)
        if not outcome.failed:
            await self._deletions(job, job_obj, actions, outcome)
            await self._creations(job, job_obj, actions, outcome)
        if not outcome.failed:
            await self._patches(job, actions.patch_after_create, outcome)
        # The status (and a consumed Command) records what the sync achieved: after a failure
        # it would claim objects that do not exist (e.g. a Volcano plugin's controlledResources),
        # so it is left to the requeued sync, which recomputes it from what does.
        if not outcome.failed:
            if status.final is not None:
                await self._status(rt, job.key, status.final, outcome)
            await self._consume_commands(actions, outcome)
            if actions.delete_job:
                await self._delete(rt, job.key, outcome, propagation="Background")
        events = actions.events + ([] if outcome.failed else actions.events_on_success)
        for verb, exc in outcome.failed_writes:
            if verb in actions.failed_write_events:
                reason, prefix = actions.failed_write_events[verb]
                error = exc.message if isinstance(exc, ApiError) else str(exc)
                events.append(("Warning", reason, f"{prefix}{error}"))
        for event_type, reason, message in events:
            await self.post_event(job_obj, event_type, reason, message)
        return outcome

    async def _status(self, rt: ResourceType, key: str, status: Json, outcome: Outcome) -> None:
        namespace, name = split_key(key)
        try:
            written = await self._kube.patch(
                rt, name, {"status": status}, namespace=namespace, subresource="status"
            )
        except CALL_ERRORS as exc:
            if not (isinstance(exc, ApiError) and exc.status == 404):
                outcome.errors.append(exc)
            return
        # Use what the API server returned at once, as Kubernetes controllers do: the pod events
        # this sync causes (finalizers removed) can reach the cache before the watcher's copy of
        # this status does, and a stale completedIndexes would make the next sync re-create the
        # pod of an index that already succeeded.
        self._cache.observe_written(written)

    async def _patches(self, job: WorkKey, patches: list[Patch], outcome: Outcome) -> None:
        """Every patch concurrently (they touch different objects). A job's tracking-finalizer
        removal is expected before its call and no longer once the call failed (no event will
        show it); 404 counts as done (the pod is gone, which the cache observes). A plain pod's
        sync (an orphan's finalizer) expects nothing: no job sync waits for it."""
        if not patches:
            return
        tracked = job.type_key in JOB_TYPES
        if tracked:
            self._cache.finalizers.expect(str(job), [p.releases for p in patches if p.releases])
        await asyncio.gather(*(self._patch(job, p, outcome, tracked=tracked) for p in patches))

    async def _patch(self, job: WorkKey, patch: Patch, outcome: Outcome, *, tracked: bool) -> None:
        namespace, name = split_key(patch.key)
        api_version = patch.api_version or _API_VERSION_OF_KIND.get(patch.kind, "v1")
        rt = resource_for(api_version, patch.kind)
        try:
            written = await self._kube.patch(
                rt,
                name,
                patch.patch,
                namespace=namespace,
                patch_type=patch.patch_type,
                subresource=patch.subresource,
            )
        except CALL_ERRORS as exc:
            status = exc.status if isinstance(exc, ApiError) else 0
            guarded = "resourceVersion" in (patch.patch.get("metadata") or {})
            # Gone, or (for a write guarded by a resourceVersion) changed since: the cache
            # shows the newer object and the job syncs again from it.
            if not (status == 404 or (status == 409 and guarded)):
                outcome.errors.append(exc)
                if patch.releases and tracked:
                    self._cache.finalizers.observed(str(job), patch.releases)
            return
        if patch.api_version:
            # A job or Workload written by Kueue's step: its next sync must see the write.
            self._cache.observe_written(written)

    async def _deletions(
        self, job: WorkKey, job_obj: Json, actions: Actions, outcome: Outcome
    ) -> None:
        kinds = actions.delete_kinds or ["Pod"] * len(actions.delete)
        for kind, key in zip(kinds, actions.delete, strict=True):
            type_key = _type_key(kind)
            cached = self._cache.objects.get(type_key, key)
            uid = cached.metadata.uid if cached is not None else ""
            if kind in _UNMIRRORED_KINDS:
                owned = await self._owned_uid(job_obj, kind, key, outcome)
                if owned is None:
                    continue
                uid = owned
            exp_key = expectation_key(job, type_key)
            if uid:
                self._cache.expectations.expect_deletions(exp_key, [uid], self._clock())
            try:
                rt = resource_for(_API_VERSION_OF_KIND.get(kind, "v1"), kind)
            except KeyError as exc:
                outcome.errors.append(exc)
                gone = False
            else:
                propagation = "Background" if kind in _BACKGROUND_DELETE else None
                gone = await self._delete(
                    rt, key, outcome, uid=uid or None, propagation=propagation
                )
            if gone:
                outcome.deleted[kind] = outcome.deleted.get(kind, 0) + 1
            elif uid:  # the call failed: no DELETED event will come for this attempt
                self._cache.expectations.deletion_observed(exp_key, uid)

    async def _owned_uid(self, job_obj: Json, kind: str, key: str, outcome: Outcome) -> str | None:
        """The uid of ``key`` when the synced job is its controller owner; None when it is gone
        or belongs to someone else (then it is left alone, with a Warning Event). Objects the
        watcher does not mirror (Secrets, NetworkPolicies) are read first, so a name clash — a
        user's own ``<job>-ssh`` Secret or ``<job>`` NetworkPolicy — is never deleted; the uid
        precondition covers a replacement between the read and the delete."""
        namespace, name = split_key(key)
        try:
            rt = resource_for(_API_VERSION_OF_KIND[kind], kind)
            current = await self._kube.get(rt, name, namespace)
        except CALL_ERRORS as exc:
            if not (isinstance(exc, ApiError) and exc.status == 404):
                outcome.errors.append(exc)
            return None
        job_uid = (job_obj.get("metadata") or {}).get("uid")
        meta = current.get("metadata") or {}
        owners = meta.get("ownerReferences") or []
        if job_uid and any(o.get("uid") == job_uid and o.get("controller") for o in owners):
            return str(meta.get("uid") or "") or None
        await self.post_event(
            job_obj,
            "Warning",
            "NotOwned",
            f"{kind} {name} is not controlled by this job; it was left in place",
        )
        return None

    async def _delete(
        self,
        rt: ResourceType,
        key: str,
        outcome: Outcome,
        *,
        uid: str | None = None,
        propagation: str | None = None,
    ) -> bool:
        """True when the object is gone or going (404 and a failed uid precondition count)."""
        namespace, name = split_key(key)
        try:
            await self._kube.delete(rt, name, namespace, uid=uid, propagation_policy=propagation)
        except CALL_ERRORS as exc:
            if isinstance(exc, ApiError) and exc.status == 404:
                return True
            if isinstance(exc, ApiError) and exc.status == 409 and uid:
                return True  # a different object of that name: ours is gone
            outcome.errors.append(exc)
            outcome.failed_writes.append(("delete", exc))
            return False
        return True

    async def _creations(
        self, job: WorkKey, job_obj: Json, actions: Actions, outcome: Outcome
    ) -> None:
        batches = actions.create_batches or ([len(actions.create)] if actions.create else [])
        start = 0
        for size in batches:
            if not self._still_wanted(job, job_obj):
                return  # the job went meanwhile: what it owns would outlive it
            batch = actions.create[start : start + size]
            start += size
            if not await self._create_batch(job, batch, outcome):
                return  # slow start: a failure stops the batches after it

    def _still_wanted(self, job: WorkKey, job_obj: Json) -> bool:
        """False once the cache shows the synced job deleted, being deleted or replaced by a
        job of the same name (its objects go by the uid it had when the sync began)."""
        if job.type_key not in JOB_TYPES:
            return True
        uid = str((job_obj.get("metadata") or {}).get("uid") or "")
        if uid and self._cache.is_gone(uid):
            return False
        cached = self._cache.job(job)
        if cached is None:
            return True  # never seen here: nothing says it went
        meta = cached.metadata
        return meta.deletionTimestamp is None and (not uid or meta.uid == uid)

    async def _create_batch(self, job: WorkKey, batch: list[Json], outcome: Outcome) -> bool:
        # Only the kinds the cache indexes can be observed, so only they carry expectations;
        # and only a job's sync waits for them (a plain pod's PodGroup is owned by its workload).
        tracked = job.type_key in JOB_TYPES
        expected = [
            expectation_key(job, t) if tracked and t in OWNED_TYPES else None
            for t in map(_kind_type, batch)
        ]
        now = self._clock()
        for wanted in expected:
            if wanted is not None:
                self._cache.expectations.expect_creations(wanted, 1, now)
        # A batch's consecutive Pods are created concurrently, as the Kubernetes Job
        # controller's slow start does: one call after another made a sync's latency grow
        # with its pod count, which capped pods/s at workers x pods / sync latency. Other
        # kinds (PodGroup, Service, ConfigMap, Secret) are created alone and in order, since
        # the Pods after them may depend on them.
        ok = True
        run: list[tuple[Json, str | None]] = []
        for obj, exp_key in [*zip(batch, expected, strict=True), (None, None)]:
            if obj is not None and obj.get("kind") == "Pod":
                run.append((obj, exp_key))
                continue
            if run:
                results = await asyncio.gather(*(self._create(o, k, outcome) for o, k in run))
                ok = all(results) and ok
                run = []
            if obj is not None:
                ok = await self._create(obj, exp_key, outcome) and ok
        return ok

    async def _create(self, obj: Json, exp_key: str | None, outcome: Outcome) -> bool:
        kind = str(obj.get("kind", ""))
        try:
            await self._kube.create_unread(
                _rt_of(obj), with_keypair(obj) if wants_keypair(obj) else obj
            )
        except (*CALL_ERRORS, KeyError) as exc:
            # No ADDED event follows a failed or already-satisfied create.
            if exp_key is not None:
                self._cache.expectations.creation_observed(exp_key)
            if isinstance(exc, ApiError) and exc.status == 409:
                # AlreadyExists: a deterministic name a previous sync created, which the cache
                # does not show yet (it is behind the API server, or an event was lost).
                meta = obj.get("metadata") or {}
                _log.info(
                    "create found the object already there",
                    kind=kind,
                    namespace=meta.get("namespace"),
                    name=meta.get("name"),
                )
                return True
            outcome.errors.append(exc)
            outcome.failed_writes.append(("create", exc))
            return False
        outcome.created[kind] = outcome.created.get(kind, 0) + 1
        return True

    async def _consume_commands(self, actions: Actions, outcome: Outcome) -> None:
        rt = resource_for("bus.volcano.sh/v1alpha1", "Command")
        for key in actions.consumed_commands:
            await self._delete(rt, key, outcome)

    async def read(self, kind: str, namespace: str, name: str) -> Json | None:
        """A batch/v1 object (``Job``, ``CronJob``) as the API server has it; None once it is
        gone (404). Another error answers an empty object: nothing says it is gone."""
        try:
            return await self._kube.get(resource_for("batch/v1", kind), name, namespace)
        except CALL_ERRORS as exc:
            return None if isinstance(exc, ApiError) and exc.status == 404 else {}

    async def post_event(self, obj: Json, event_type: str, reason: str, message: str) -> None:
        """Record an Event on ``obj`` (best effort: failures are ignored)."""
        if not self._post_events:
            return
        event = event_manifest(
            involved_object(obj),
            type_=event_type,
            reason=reason,
            message=message,
            component=self._component,
            now=self._wall_clock(),
        )
        await self._events.post(event)
