"""Counting finished pods with tracking finalizers (``trackJobStatusAndRemoveFinalizers``).

Every pod the controller creates carries the ``batch.kubernetes.io/job-tracking`` finalizer,
so a finished pod cannot vanish before it is counted. A finished pod is first recorded in
``status.uncountedTerminatedPods`` (Indexed successes: in ``completedIndexes``), then its
finalizer is removed by a patch, then it moves into the ``succeeded``/``failed`` counters.
The reconcile returns the status to write before the patches (``Actions.interim_status``)
and the status once they succeeded (``Actions.status``). The interim FailureTarget or
SuccessCriteriaMet condition is recorded first; the terminal Failed or Complete condition is
added only when nothing is uncounted and no pod is terminating.
"""

from __future__ import annotations

from services.jobcontroller.batchjob import keys
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.context import SyncContext
from services.jobcontroller.batchjob.manage import finalizer_removal
from services.jobcontroller.batchjob.status import StatusDraft, new_condition
from shared.kube.keys import namespaced_key
from shared.kube.timefmt import format_rfc3339
from shared.models import Pod


def track(ctx: SyncContext) -> bool:
    """Count finished pods, remove their finalizers; returns whether the Job finished now."""
    status = ctx.status
    with_finalizer = {p.metadata.uid for p in ctx.pods if podutil.has_finalizer(p)}
    _count_released(status, with_finalizer)
    releasing, reached_max = _record_finished(ctx)
    _record_interim_condition(ctx)
    if releasing:
        ctx.actions.interim_status = status.to_status()
    for pod in releasing:
        key = namespaced_key(ctx.job.namespace, pod.metadata.name)
        ctx.actions.patch.append(finalizer_removal(key, pod))
        with_finalizer.discard(pod.metadata.uid)
    _count_released(status, with_finalizer)
    return not reached_max and _enact_finished(ctx)


def _record_finished(ctx: SyncContext) -> tuple[list[Pod], bool]:
    """Record finished pods as uncounted; returns the pods whose finalizer goes and whether
    the per-sync limit stopped the scan."""
    job, status = ctx.job, ctx.status
    pods = ctx.pods
    if job.indexed:
        pods = sorted(pods, key=podutil.completion_index)
    releasing: list[Pod] = []
    new_indexes: list[int] = []
    fail_everything = ctx.finished is not None and ctx.finished.type != keys.SUCCESS_CRITERIA_MET
    reached_max = False
    for pod in pods:
        if not podutil.has_finalizer(pod):
            continue
        failed = podutil.is_failed(pod, job)
        if not _can_remove_finalizer(ctx, pod, failed):
            continue
        releasing.append(pod)
        uid, index = pod.metadata.uid, podutil.completion_index(pod)
        valid = podutil.valid_index(pod, job.completions)
        if pod.status.phase == podutil.SUCCEEDED and uid not in ctx.uncounted_failed:
            if job.indexed:
                if valid and not ctx.prev_succeeded_indexes.has(index):
                    new_indexes.append(index)
            elif uid not in ctx.uncounted_succeeded:
                status.uncounted_succeeded.append(uid)
        elif (
            # Once the Job is failing, every pod that did not succeed counts as failed.
            (failed or fail_everything)
            and uid not in ctx.uncounted_failed
            and (not job.indexed or valid)
            and ctx.counts_failure(pod)
        ):
            status.uncounted_failed.append(uid)
        uncounted = len(status.uncounted_succeeded) + len(status.uncounted_failed)
        if len(new_indexes) + uncounted >= keys.MAX_UNCOUNTED_PODS:
            # Stop here, but still record the indexes whose pods lose their finalizer.
            reached_max = True
            break
    if job.indexed:
        ctx.succeeded_indexes = ctx.succeeded_indexes.with_indexes(new_indexes)
        status.succeeded = ctx.succeeded_indexes.total()
        status.completed_indexes = str(ctx.succeeded_indexes)
        if ctx.failed_indexes is not None:
            status.failed_indexes = str(ctx.failed_indexes)
    return releasing, reached_max


def _can_remove_finalizer(ctx: SyncContext, pod: Pod, failed: bool) -> bool:
    if ctx.job.deleting or ctx.finished is not None or pod.status.phase == podutil.SUCCEEDED:
        return True
    if not failed:
        return False
    delayed = ctx.delayed_per_index.get(podutil.completion_index(pod))
    # Keep the last failed pod of an index until its replacement carries the failure count.
    return not (
        ctx.job.per_index_backoff
        and delayed is not None
        and delayed.metadata.uid == pod.metadata.uid
    )


def _record_interim_condition(ctx: SyncContext) -> None:
    finished, status = ctx.finished, ctx.status
    if finished is None:
        return
    reason, message = finished.reason or "", finished.message or ""
    if finished.type == keys.FAILURE_TARGET:
        status.conditions.append(finished)
        ctx.finished = new_condition(keys.FAILED, "True", reason, message, ctx.now)
    elif finished.type == keys.SUCCESS_CRITERIA_MET:
        if not status.has_true(keys.SUCCESS_CRITERIA_MET):
            status.conditions.append(finished)
        ctx.finished = new_condition(keys.COMPLETE, "True", reason, message, ctx.now)


def _count_released(status: StatusDraft, with_finalizer: set[str]) -> None:
    """Move uncounted pods whose finalizer is gone into the counters."""
    still = [uid for uid in status.uncounted_succeeded if uid in with_finalizer]
    status.succeeded += len(status.uncounted_succeeded) - len(still)
    status.uncounted_succeeded = still
    still = [uid for uid in status.uncounted_failed if uid in with_finalizer]
    status.failed += len(status.uncounted_failed) - len(still)
    status.uncounted_failed = still


def _enact_finished(ctx: SyncContext) -> bool:
    finished, status = ctx.finished, ctx.status
    if finished is None or status.uncounted_succeeded or status.uncounted_failed:
        return False
    if ctx.terminating > 0:
        return False
    status.ensure(
        finished.type, finished.status, finished.reason or "", finished.message or "", ctx.now
    )
    if finished.type == keys.COMPLETE:
        status.completion_time = format_rfc3339(ctx.now)
        ctx.actions.events.append(("Normal", "Completed", "Job completed"))
    else:
        ctx.actions.events.append(("Warning", finished.reason or "", finished.message or ""))
    return True
