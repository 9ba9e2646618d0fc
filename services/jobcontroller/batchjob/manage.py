"""Bring the number of active pods to what the Job wants (``manageJob`` in Kubernetes).

A suspended Job loses all its active pods. Otherwise the wanted count is parallelism, capped
by the completions still missing; extra pods are deleted (cheapest first, see ``removal``) and
a sync that deletes creates nothing. Missing pods are created unless the pod-failure back-off
is still running, at most 500 per sync, in slow-start batches of 1, 2, 4, ... With
podReplacementPolicy Failed, terminating pods still hold their place.
"""

from __future__ import annotations

from services.jobcontroller.batchjob import backoff, failure_policy, keys
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.context import SyncContext
from services.jobcontroller.batchjob.creation import PodNamer, pod_manifest
from services.jobcontroller.batchjob.intervals import Intervals
from services.jobcontroller.batchjob.removal import pods_for_removal
from services.jobcontroller.core import Patch
from shared.kube.keys import namespaced_key
from shared.models import Pod


def manage(ctx: SyncContext) -> int:
    """Decide deletions or creations; returns the active count after them."""
    active = len(ctx.active)
    if ctx.job.suspend:
        return active - delete_pods(ctx, pods_for_removal(ctx.job, ctx.active, active))
    want = _wanted(ctx, active)
    doomed = pods_for_removal(ctx.job, ctx.active, max(active - want, 0))
    if doomed:
        return active - delete_pods(ctx, doomed[: keys.MAX_POD_CREATE_DELETE_PER_SYNC])
    holding = ctx.terminating if ctx.job.only_replace_failed else 0
    missing = want - holding - active
    if missing <= 0:
        return active
    return active + _create(ctx, min(missing, keys.MAX_POD_CREATE_DELETE_PER_SYNC))


def delete_pods(ctx: SyncContext, pods: list[Pod]) -> int:
    """Delete ``pods`` after removing their tracking finalizers: pods the controller removes
    on purpose are never counted as failed."""
    for pod in pods:
        key = namespaced_key(ctx.job.namespace, pod.metadata.name)
        if podutil.has_finalizer(pod):
            ctx.actions.patch.append(finalizer_removal(key, pod))
        ctx.actions.delete_object("Pod", key)
        if podutil.is_ready(pod):
            ctx.ready -= 1
    ctx.terminating += len(pods)
    return len(pods)


def finalizer_removal(key: str, pod: Pod) -> Patch:
    """The patch that removes ``pod``'s tracking finalizer (a strategic-merge directive)."""
    remove = {"metadata": {"$deleteFromPrimitiveList/finalizers": [keys.TRACKING_FINALIZER]}}
    return Patch("Pod", key, remove, "strategic", releases=pod.metadata.uid)


def _wanted(ctx: SyncContext, active: int) -> int:
    parallelism = ctx.job.parallelism
    if ctx.job.completions is None:
        # A work queue: once any pod succeeded, leave whatever runs running, start nothing.
        return active if ctx.succeeded > 0 else parallelism
    return max(0, min(ctx.job.completions - ctx.succeeded, parallelism))


def _create(ctx: SyncContext, count: int) -> int:
    job = ctx.job
    if not job.per_index_backoff:
        wait = backoff.job_remaining(job, ctx.pods, ctx.now)
        if wait > 0:
            ctx.requeue(max(wait, keys.SYNC_BATCH_PERIOD_SECONDS))
            return 0
    indexes: list[int | None] = [None] * count
    if job.indexed:
        pending = _pending_indexes(ctx, count)
        if job.per_index_backoff:
            pending = _indexes_out_of_backoff(ctx, pending)
        indexes = list(pending)
    if not indexes:
        return 0
    namer = PodNamer(job, ctx.pods, ctx.status.succeeded + ctx.status.failed)
    for index in indexes:
        counts = _failure_counts(ctx, index) if job.per_index_backoff else None
        ctx.actions.create.append(pod_manifest(job, namer.name(index), index, counts))
    ctx.actions.create_batches.extend(slow_start_batches(len(indexes)))
    return len(indexes)


def slow_start_batches(total: int) -> list[int]:
    """Batch sizes 1, 2, 4, ... summing to ``total``."""
    batches: list[int] = []
    size = keys.SLOW_START_INITIAL_BATCH_SIZE
    while total > 0:
        batch = min(size, total)
        batches.append(batch)
        total -= batch
        size *= 2
    return batches


def _pending_indexes(ctx: SyncContext, count: int) -> list[int]:
    """The lowest ``count`` indexes not active, succeeded, failed (nor terminating when only
    failed pods are replaced)."""
    taken = ctx.succeeded_indexes.with_indexes(
        podutil.completion_index(p)
        for p in ctx.active
        if podutil.completion_index(p) != podutil.UNKNOWN_INDEX
    )
    if ctx.job.only_replace_failed:
        taken = taken.with_indexes(
            podutil.completion_index(p)
            for p in ctx.pods
            if podutil.is_terminating(p) and podutil.completion_index(p) != podutil.UNKNOWN_INDEX
        )
    taken = taken.merge(ctx.failed_indexes or Intervals())
    result: list[int] = []
    candidate = 0
    completions = ctx.job.completions or 0
    for interval in taken.items:
        while candidate < min(interval.first, completions) and len(result) < count:
            result.append(candidate)
            candidate += 1
        candidate = max(candidate, interval.last + 1)
    while candidate < completions and len(result) < count:
        result.append(candidate)
        candidate += 1
    return result


def _indexes_out_of_backoff(ctx: SyncContext, indexes: list[int]) -> list[int]:
    ready: list[int] = []
    waits: list[float] = []
    for index in indexes:
        wait = backoff.index_remaining(ctx.delayed_per_index.get(index), ctx.now)
        if wait <= 0:
            ready.append(index)
        else:
            waits.append(wait)
    if not ready and waits:
        ctx.requeue(max(min(waits), keys.SYNC_BATCH_PERIOD_SECONDS))
    return ready


def _failure_counts(ctx: SyncContext, index: int | None) -> tuple[int, int]:
    """The index failure counts for a replacement of the index's last failed pod."""
    replaced = ctx.delayed_per_index.get(index) if index is not None else None
    if replaced is None:
        return 0, 0
    counted = podutil.index_failure_count(replaced)
    ignored = podutil.index_ignored_failure_count(replaced)
    if failure_policy.match(ctx.job.pod_failure_policy, replaced).counts:
        counted += 1
    else:
        ignored += 1
    return counted, ignored
