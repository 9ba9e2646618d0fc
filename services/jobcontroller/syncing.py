"""One sync of one work key: observe the cache, run the pure reconcile, execute its actions.

A job key runs its kind's reconcile (``kinds.reconciler_for``) on what the cache holds for it;
a plain-pod key gets its PodGroup (``podgroups.podgroup_for_pod``) and the annotation joining it.
Bad input never escapes: a job that does not decode, or whose reconcile rejects its spec
(``UserError`` and subclasses), gets one Warning Event per distinct message and, for a Volcano
Job, the message in ``status.state``; then the key is done until the job changes. Status writes
that would not change the cached status are skipped, so a sync does not wake itself up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from services.jobcontroller import kinds
from services.jobcontroller.batchjob import orphans
from services.jobcontroller.cache import (
    OWNED_TYPES,
    POD,
    PODGROUP,
    SERVICE,
    VOLCANO_JOB,
    ControllerCache,
    WorkKey,
    expectation_key,
)
from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.executor import ActionExecutor, KubeApi, Outcome
from services.jobcontroller.podgroups import podgroup_for_pod
from shared.errors import UserError
from shared.kube import ApiError
from shared.kube.errors import CALL_ERRORS
from shared.kube.patch import merge_patch
from shared.kube.resources import POD as POD_RT
from shared.kube.resources import PODGROUP as PODGROUP_RT
from shared.models import Json, to_dict

_log = structlog.get_logger()


@dataclass(slots=True)
class SyncResult:
    """``outcome.failed``: requeue with back-off; else requeue after ``requeue_after`` if set."""

    outcome: Outcome
    requeue_after: float | None = None
    reconciled: bool = False


def merge_diff(old: Any, new: Any) -> Any:
    """The RFC 7386 merge patch that turns ``old`` into ``new``: changed keys with their new
    value (dicts recursively), ``None`` for keys ``new`` lacks; ``{}`` when they are equal."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    patch: dict[str, Any] = {key: None for key in old if key not in new}
    for key, value in new.items():
        if key not in old:
            patch[key] = value
        elif old[key] != value:
            patch[key] = merge_diff(old[key], value)
    return patch


def _normalized(status: Json, model: type[Any]) -> Json:
    """``status`` as the cache models it (defaults omitted), so that ``active: 0`` and an
    absent ``active`` compare equal; unchanged if it does not fit the model."""
    try:
        normal: Json = msgspec.to_builtins(msgspec.convert(status, model, strict=False))
    except msgspec.ValidationError:
        return status
    return normal


def status_unchanged(job: Any, status: Json) -> bool:
    """Whether merge-patching ``status`` would leave the job's (modelled) status as it is."""
    current = msgspec.to_builtins(job.status)
    try:
        after = msgspec.convert(merge_patch(current, status), type(job.status), strict=False)
    except msgspec.ValidationError:
        return False
    return bool(msgspec.to_builtins(after) == current)


def _head(job: Any) -> Json:
    return {"apiVersion": job.apiVersion, "kind": job.kind, "metadata": to_dict(job.metadata)}


class Syncer:
    """Syncs work keys; one call per key at a time (the queue guarantees it)."""

    def __init__(
        self,
        *,
        cache: ControllerCache,
        kube: KubeApi,
        executor: ActionExecutor,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache = cache
        self._kube = kube
        self._executor = executor
        self._clock = clock
        self._wall_clock = wall_clock
        self._reported: dict[WorkKey, str] = {}
        # PodGroups of plain pods being (or just) created, until the cache shows them.
        self._creating: dict[str, asyncio.Future[None]] = {}

    async def sync(self, key: WorkKey) -> SyncResult:
        if key.type_key == POD:
            return await self._sync_pod(key)
        bad = self._cache.invalid.get(key)
        if bad is not None:
            await self._report_invalid(key, bad.raw, bad.error)
            return SyncResult(Outcome())
        job = self._cache.job(key)
        if job is None:
            self._reported.pop(key, None)
            return SyncResult(Outcome())
        try:
            reconcile = kinds.reconciler_for(job.apiVersion, job.kind)
        except kinds.ReconcileUnavailable as exc:
            await self._report_invalid(key, _head(job), str(exc), reason="ReconcileUnavailable")
            return SyncResult(Outcome())
        try:
            actions = reconcile(job, self.observe(key, job), self._wall_clock())
        except UserError as exc:
            await self._report_invalid(key, _head(job), str(exc), job=job)
            return SyncResult(Outcome())
        self._reported.pop(key, None)
        self._status_as_patches(job, actions)
        outcome = await self._executor.execute(key, _head(job), actions)
        return SyncResult(outcome, requeue_after=actions.requeue_after, reconciled=True)

    def observe(self, key: WorkKey, job: Any) -> Observed:
        cache = self._cache
        namespace = key.key.partition("/")[0]
        now = self._clock()
        satisfied = all(
            cache.expectations.satisfied(expectation_key(key, t), now) for t in OWNED_TYPES
        )
        return Observed(
            pods=cache.owned(key, POD),
            podgroups=cache.owned(key, PODGROUP) + cache.loose(PODGROUP, namespace),
            services=cache.owned(key, SERVICE) + cache.loose(SERVICE, namespace),
            commands=cache.owned(key, "bus.volcano.sh/v1alpha1/Command"),
            expectations_satisfied=satisfied,
            orphans=cache.loose(POD, namespace),
            finalizers_removing=cache.finalizers.pending(str(key)),
        )

    @staticmethod
    def _status_as_patches(job: Any, actions: Actions) -> None:
        """A reconcile returns the job's whole new status; it is written as the merge patch
        from the cached status (the interim one first, then the final one from the interim),
        so fields that went back to their default (``pending: 0``, an emptied list) are
        removed on the server too instead of keeping their old value. No change: no write."""
        model = type(job.status)
        current = msgspec.to_builtins(job.status)
        if actions.interim_status is not None:
            interim = _normalized(actions.interim_status, model)
            actions.interim_status = merge_diff(current, interim) or None
            current = interim
        if actions.status is not None:
            actions.status = merge_diff(current, _normalized(actions.status, model)) or None

    async def _report_invalid(
        self,
        key: WorkKey,
        head: Json,
        message: str,
        *,
        reason: str = "InvalidJobSpec",
        job: Any = None,
    ) -> None:
        """One Warning Event per distinct message; Volcano Jobs also get it in their state."""
        if self._reported.get(key) == message:
            return
        self._reported[key] = message
        _log.warning("job cannot be reconciled", job=key.key, kind=key.type_key, error=message)
        await self._executor.post_event(head, "Warning", reason, message)
        if key.type_key != VOLCANO_JOB:
            return
        phase = job.status.state.phase if job is not None else ""
        state = {"phase": phase or "Pending", "reason": reason, "message": message[:1024]}
        if job is not None and status_unchanged(job, {"state": state}):
            return
        actions = Actions(status={"state": state})
        await self._executor.execute(key, head, actions)

    async def _sync_pod(self, key: WorkKey) -> SyncResult:
        """A pod outside any job sync: release a tracking finalizer no Job will remove, and
        give a plain pod its PodGroup."""
        pod = self._cache.pod(key.key)
        release = orphans.release(pod, self._cache.controller_job(pod)) if pod else None
        if release is not None:
            outcome = await self._executor.execute_patch(release)
            if outcome.failed:
                return SyncResult(outcome)
        return await self._sync_plain_pod(key)

    async def _sync_plain_pod(self, key: WorkKey) -> SyncResult:
        outcome = Outcome()
        pod = self._cache.pod(key.key)
        plan = (
            podgroup_for_pod(pod, scheduler_names=self._cache.scheduler_names)
            if pod is not None
            else None
        )
        if plan is None:
            return SyncResult(outcome)
        try:
            if await self._ensure_podgroup(plan.podgroup):
                outcome.created["PodGroup"] = 1
        except CALL_ERRORS as exc:
            outcome.errors.append(exc)
            return SyncResult(outcome)
        namespace, _, name = key.key.partition("/")
        try:
            await self._kube.patch(POD_RT, name, plan.pod_patch, namespace=namespace)
        except CALL_ERRORS as exc:
            if not (isinstance(exc, ApiError) and exc.status == 404):
                outcome.errors.append(exc)
        return SyncResult(outcome)

    async def _ensure_podgroup(self, podgroup: Json) -> bool:
        """Create the PodGroup unless it exists; True if this call created it.

        Pods of one workload are synced concurrently and all want the same PodGroup: the
        first creates it, the others wait for that creation instead of racing it into 409s.
        """
        meta = podgroup["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        if self._cache.objects.get(PODGROUP, key) is not None:
            self._creating.pop(key, None)
            return False
        pending = self._creating.get(key)
        if pending is not None:
            await asyncio.shield(pending)
            return False
        pending = asyncio.ensure_future(self._create_podgroup(podgroup))
        self._creating[key] = pending
        try:
            await asyncio.shield(pending)
        except BaseException:
            self._creating.pop(key, None)
            raise
        return True

    async def _create_podgroup(self, podgroup: Json) -> None:
        try:
            await self._kube.create(PODGROUP_RT, podgroup)
        except ApiError as exc:
            if exc.status != 409:
                raise
