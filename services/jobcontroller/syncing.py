"""One sync of one work key: observe the cache, run the pure reconcile, execute its actions.

A job key runs its kind's reconcile (``kinds.reconciler_for``) on what the cache holds for it
(``observing.observe``); a plain-pod key runs ``podgroups.reconcile_pod`` (its PodGroup and
the annotation joining it, or an orphan's tracking finalizer), after Kueue's pod integration
(``kueue_pods``) for a pod Kueue's webhook took in; a Kueue pod-group key runs that integration
over the group's pods. Both are executed by the same
``ActionExecutor.execute``. Bad input never escapes: a job that does not decode, or whose
reconcile rejects its spec (``UserError`` and subclasses), gets one Warning Event per distinct
message and, for a Volcano Job, the message in ``status.state``; then the key is done until the
job changes. Status writes that would not change the cached status are skipped, so a sync does
not wake itself up. Before its reconcile, a job key's sync deletes what a deleted job of that
name still controls (``ControllerCache.dangling``), deleted or not yet re-created: objects a
sync created while the job was being deleted must not outlive it (and an Inqueue PodGroup
would keep counting against its queue).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from services.jobcontroller import (
    cronjob,
    kinds,
    kueue,
    kueue_pod_workloads,
    kueue_pods,
    observing,
    podgroups,
)
from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.executor import ActionExecutor, Outcome, status_patches
from services.jobcontroller.workkeys import (
    CRON_JOB,
    KUEUE_POD_GROUP,
    OWNED_TYPES,
    POD,
    PODGROUP,
    PRIORITY_CLASS,
    RESOURCE_FLAVOR,
    VOLCANO_JOB,
    WORKLOAD,
    WorkKey,
    expectation_key,
    kind_of,
)
from shared.errors import UserError
from shared.kube.keys import key_of, object_key, split_key
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.models import CronJob, Json, Pod, to_dict
from shared.models.volcano import VolcanoJobStatus

_log = structlog.get_logger()
# A sync that still waits this long for the cache to show its own creations or deletions says so:
# the events it waits for are late or lost (expectations expire after five minutes).
STALE_EXPECTATION_S = 30.0


@dataclass(slots=True)
class SyncResult:
    """``outcome.failed``: requeue with back-off; else requeue after ``requeue_after`` if set."""

    outcome: Outcome
    requeue_after: float | None = None
    reconciled: bool = False


def _head(job: Any) -> Json:
    return {"apiVersion": job.apiVersion, "kind": job.kind, "metadata": to_dict(job.metadata)}


def _is_ours(job: Json, cj: CronJob, ref_uid: str | None) -> bool:
    meta = job.get("metadata") or {}
    if ref_uid:
        return bool(meta.get("uid") == ref_uid)
    owners = meta.get("ownerReferences") or []
    return any(o.get("controller") and o.get("uid") == cj.metadata.uid for o in owners)


class Syncer:
    """Syncs work keys; one call per key at a time (the queue guarantees it)."""

    def __init__(
        self,
        *,
        cache: ControllerCache,
        executor: ActionExecutor,
        gang_scheduler_names: frozenset[str] = frozenset(SHOAL_SCHEDULER_NAMES),
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache = cache
        self._executor = executor
        self._gang_scheduler_names = gang_scheduler_names
        self._clock = clock
        self._wall_clock = wall_clock
        self._reported: dict[WorkKey, str] = {}
        # PodGroups of plain pods being (or just) created, until the cache shows them: whether
        # the creating sync succeeded.
        self._creating: dict[str, asyncio.Future[bool]] = {}

    async def sync(self, key: WorkKey) -> SyncResult:
        if key.type_key == POD:
            return await self._sync_pod(key)
        if key.type_key == KUEUE_POD_GROUP:
            return SyncResult(await self._sync_kueue_pods(key, self._cache.pod_group(key.key)))
        collected = await self._collect_garbage(key)
        if collected.failed:
            return SyncResult(collected)
        bad = self._cache.invalid.get(key)
        if bad is not None:
            await self._report_invalid(key, bad.raw, bad.error)
            return SyncResult(collected)
        job = self._cache.job(key)
        if job is None:
            self._reported.pop(key, None)
            return SyncResult(collected)
        try:
            reconciler = kinds.reconciler_for(job.apiVersion, job.kind)
        except kinds.ReconcileUnavailable as exc:
            await self._report_invalid(key, _head(job), str(exc), reason="ReconcileUnavailable")
            return SyncResult(Outcome())
        observed = self._observe(key)
        if key.type_key == CRON_JOB:
            observed.live_jobs = await self._live_jobs(job, observed)
            observed.fresh_cronjob = await self._fresh_cronjob(job, observed)
        try:
            actions = kueue.sync(reconciler.reconcile, job, observed, self._wall_clock())
        except UserError as exc:
            await self._report_invalid(key, _head(job), str(exc), job=job)
            return SyncResult(Outcome())
        self._reported.pop(key, None)
        status = status_patches(job.status, actions)
        outcome = await self._executor.execute(key, _head(job), actions, status)
        for kind, count in collected.deleted.items():
            outcome.deleted[kind] = outcome.deleted.get(kind, 0) + count
        return SyncResult(outcome, requeue_after=actions.requeue_after, reconciled=True)

    async def _collect_garbage(self, key: WorkKey) -> Outcome:
        """Delete what a deleted job of this key's name still controls (see the module doc)."""
        garbage = Actions()
        for type_key, obj in self._cache.dangling(key):
            if obj.metadata.deletionTimestamp is None:
                garbage.delete_object(kind_of(type_key), key_of(obj))
        if not garbage.delete:
            return Outcome()
        _log.info("deleting objects of a deleted job", job=key.key, objects=garbage.delete)
        api_version, _, kind = key.type_key.rpartition("/")
        namespace, name = split_key(key.key)
        head = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"namespace": namespace, "name": name},
        }
        return await self._executor.execute(key, head, garbage)

    def _observe(self, key: WorkKey) -> Observed:
        cache, now = self._cache, self._clock()
        waiting = [
            (t, exp)
            for t in OWNED_TYPES
            if not cache.expectations.satisfied(expectation_key(key, t), now)
            and (exp := cache.expectations.get(expectation_key(key, t))) is not None
        ]
        for type_key, exp in waiting:
            if now - exp.set_at >= STALE_EXPECTATION_S:  # an event that should have come by now
                _log.warning(
                    "sync still waits for its own creations or deletions to be seen",
                    job=key.key,
                    kind=type_key,
                    creations=exp.add,
                    deletions=exp.delete,
                    waited_s=round(now - exp.set_at, 1),
                )
        return observing.observe(
            cache,
            key,
            expectations_satisfied=not waiting,
            finalizers_removing=cache.finalizers.pending(str(key)),
            gang_scheduler_names=self._gang_scheduler_names,
            batch_managed_by=cache.batch_managed_by,
        )

    async def _live_jobs(self, cj: CronJob, observed: Observed) -> frozenset[str]:
        """The Jobs in a CronJob's ``status.active`` that the cache lacks but the API server
        has: upstream reads each from the API server before calling it missing (a slow watch
        must not make a Forbid CronJob start a second Job). A reference without a uid (a Job
        this controller asked to create) counts only if the Job found is the CronJob's: a Job
        of that name that someone else made is not adopted, as upstream does not."""
        cached = {j.metadata.name for j in observed.jobs}
        namespace = cj.metadata.namespace or "default"
        refs = [r for r in cj.status.active if r.name and r.name not in cached]
        found = await asyncio.gather(
            *(self._executor.read("Job", namespace, str(r.name)) for r in refs)
        )
        return frozenset(
            str(ref.name)
            for ref, job in zip(refs, found, strict=True)
            if job is not None and (not job or _is_ours(job, cj, ref.uid))
        )

    async def _fresh_cronjob(self, cj: CronJob, observed: Observed) -> CronJob | None:
        """The CronJob as the API server has it, when a running Job of it is missing from the
        cached ``status.active`` (upstream's ``GetCronJob`` before it calls the Job
        unexpected); None when all are there or the read fails."""
        if not cronjob.unexpected_jobs(cj, observed.jobs):
            return None
        found = await self._executor.read("CronJob", cj.metadata.namespace or "default",
                                          cj.metadata.name)  # fmt: skip
        if not found:
            return None
        try:
            return msgspec.convert(found, CronJob)
        except msgspec.ValidationError:
            return None

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
        # A job that did not decode: its status is unknown, only the state is written.
        current: VolcanoJobStatus = job.status if job is not None else VolcanoJobStatus()
        state = msgspec.structs.replace(
            current.state,
            phase=current.state.phase or "Pending",
            reason=reason,
            message=message[:1024],
        )
        wanted = msgspec.structs.replace(current, state=state)
        status = status_patches(current, Actions(status=wanted))
        if status.final is not None:
            await self._executor.execute(key, head, Actions(), status)

    async def _sync_pod(self, key: WorkKey) -> SyncResult:
        """A pod outside any job sync (``podgroups.reconcile_pod``).

        Pods of one workload are synced concurrently and all want the same PodGroup: the
        first creates it, the others wait for that creation instead of racing it into 409s.
        """
        pod = self._cache.pod(key.key)
        if pod is None:
            return SyncResult(Outcome())
        if kueue_pod_workloads.is_kueue_pod(pod) and not kueue_pod_workloads.group_name(pod):
            kueued = await self._sync_kueue_pods(key, [pod])
            if kueued.failed:
                return SyncResult(kueued)
        group = podgroups.podgroup_key(pod)
        actions = podgroups.reconcile_pod(
            pod,
            job=self._cache.controller_job(pod),
            podgroup_exists=await self._podgroup_exists(group),
            scheduler_names=self._cache.scheduler_names,
            batch_managed_by=self._cache.batch_managed_by,
        )
        if not actions.create:
            return SyncResult(await self._executor.execute(key, _head(pod), actions))
        creating: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._creating[group] = creating
        created = False
        try:
            outcome = await self._executor.execute(key, _head(pod), actions)
            created = not outcome.failed
        finally:
            creating.set_result(created)
            if not created:
                self._creating.pop(group, None)
        return SyncResult(outcome)

    async def _sync_kueue_pods(self, key: WorkKey, pods: list[Pod]) -> Outcome:
        """Kueue's pod integration for one pod or a pod group (``kueue_pods.reconcile``); the
        Events go on the first pod."""
        if not pods:
            return Outcome()
        group = key.type_key == KUEUE_POD_GROUP
        namespace = pods[0].metadata.namespace
        if group:
            name = kueue_pod_workloads.group_name(pods[0])
        else:
            name = kueue_pod_workloads.workload_name_for_pod(
                pods[0].metadata.name, pods[0].metadata.uid
            )
        workload = self._cache.objects.get(WORKLOAD, object_key(namespace, name))
        cache = self._cache
        step = kueue_pods.reconcile(
            pods,
            [workload] if workload is not None else [],
            {f.metadata.name: f for f in cache.cluster_scoped(RESOURCE_FLAVOR)},
            group=group,
            now=self._wall_clock(),
            priority_classes={c.metadata.name: c for c in cache.cluster_scoped(PRIORITY_CLASS)},
        )
        if not step.actions.changes_objects() and not step.actions.events:
            return Outcome()
        return await self._executor.execute(key, _head(pods[0]), step.actions)

    async def _podgroup_exists(self, key: str) -> bool:
        """The cache holds the PodGroup, or another pod's sync created it (waiting for it)."""
        if self._cache.objects.get(PODGROUP, key) is not None:
            self._creating.pop(key, None)
            return True
        creating = self._creating.get(key)
        return creating is not None and await asyncio.shield(creating)
