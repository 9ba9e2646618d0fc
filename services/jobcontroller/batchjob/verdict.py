"""Whether a sync finds the Job finished, and why: the failure and success criteria.

Checked in Kubernetes' order. A Job that already met its success criteria stays successful; a
recorded FailureTarget becomes Failed; a FailJob pod-failure-policy match, the backoff limit
(or, with restartPolicy OnFailure, container restarts), the active deadline, too many failed
indexes and the success policy each yield an interim condition (FailureTarget or
SuccessCriteriaMet). The terminal Failed/Complete is only written once no pod is left running.
"""

from __future__ import annotations

from services.jobcontroller.batchjob import failure_policy, keys, success_policy
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.context import SyncContext
from services.jobcontroller.batchjob.intervals import Intervals
from services.jobcontroller.batchjob.status import new_condition
from shared.kube.timefmt import parse_rfc3339
from shared.models import Condition, Pod


def decide(ctx: SyncContext) -> None:
    """Set ``ctx.finished`` (and, for Indexed Jobs, the succeeded/failed indexes)."""
    ctx.finished = _already_decided(ctx) or _failure_by_policy(ctx)
    if ctx.finished is None:
        ctx.finished = _failure_by_limits(ctx)
    if ctx.job.indexed:
        _decide_indexes(ctx)


def _failure_target(ctx: SyncContext, reason: str, message: str) -> Condition:
    return new_condition(keys.FAILURE_TARGET, "True", reason, message, ctx.now)


def _already_decided(ctx: SyncContext) -> Condition | None:
    if ctx.status.has_true(keys.SUCCESS_CRITERIA_MET):
        return ctx.status.find(keys.SUCCESS_CRITERIA_MET)
    target = ctx.status.find(keys.FAILURE_TARGET)
    if target is not None and target.status == "True":
        return new_condition(
            keys.FAILED, "True", target.reason or "", target.message or "", ctx.now
        )
    return None


def _failure_by_policy(ctx: SyncContext) -> Condition | None:
    if ctx.job.pod_failure_policy is None:
        return None
    for pod in ctx.pods:
        if podutil.is_failed(pod, ctx.job):
            verdict = failure_policy.match(ctx.job.pod_failure_policy, pod)
            if verdict.fail_job_message is not None:
                return _failure_target(
                    ctx, keys.REASON_POD_FAILURE_POLICY, verdict.fail_job_message
                )
    return None


def _failure_by_limits(ctx: SyncContext) -> Condition | None:
    job = ctx.job
    if ctx.failed > job.backoff_limit or _past_backoff_limit_on_failure(ctx):
        return _failure_target(
            ctx, keys.REASON_BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit"
        )
    started = parse_rfc3339(ctx.status.start_time)
    if job.active_deadline_seconds is None or started is None or job.suspend:
        return None
    left = job.active_deadline_seconds - (ctx.now - started)
    if left <= 0:
        return _failure_target(
            ctx, keys.REASON_DEADLINE_EXCEEDED, "Job was active longer than specified deadline"
        )
    ctx.requeue(left)
    return None


def _past_backoff_limit_on_failure(ctx: SyncContext) -> bool:
    """With restartPolicy OnFailure, container restarts of live pods count as failures."""
    if ctx.job.restart_policy != "OnFailure":
        return False
    restarts = sum(
        podutil.total_restarts(p) for p in ctx.pods if p.status.phase in ("Running", "Pending")
    )
    limit = ctx.job.backoff_limit
    return restarts > 0 if limit == 0 else restarts >= limit


def _decide_indexes(ctx: SyncContext) -> None:
    job = ctx.job
    completions = job.completions or 0
    ctx.prev_succeeded_indexes = Intervals.parse(ctx.status.completed_indexes, completions)
    ctx.succeeded_indexes = ctx.prev_succeeded_indexes.with_indexes(
        podutil.completion_index(p)
        for p in ctx.tracked_pods()
        if p.status.phase == podutil.SUCCEEDED
    )
    ctx.succeeded = ctx.succeeded_indexes.total()
    if job.per_index_backoff:
        ctx.failed_indexes = _failed_indexes(ctx, completions)
        failed = ctx.failed_indexes.total()
        if ctx.finished is None:
            if job.max_failed_indexes is not None and failed > job.max_failed_indexes:
                ctx.finished = _failure_target(
                    ctx,
                    keys.REASON_MAX_FAILED_INDEXES_EXCEEDED,
                    "Job has exceeded the specified maximal number of failed indexes",
                )
            elif failed > 0 and failed + ctx.succeeded >= completions:
                ctx.finished = _failure_target(
                    ctx, keys.REASON_FAILED_INDEXES, "Job has failed indexes"
                )
        ctx.delayed_per_index = _delayed_per_index(ctx)
    if ctx.finished is None:
        message = success_policy.matched_rule(
            job.success_policy, completions, ctx.succeeded_indexes
        )
        if message:
            ctx.finished = new_condition(
                keys.SUCCESS_CRITERIA_MET, "True", keys.REASON_SUCCESS_POLICY, message, ctx.now
            )


def _failed_indexes(ctx: SyncContext, completions: int) -> Intervals:
    previous = Intervals.parse(ctx.status.failed_indexes, completions)
    return previous.with_indexes(
        podutil.completion_index(p) for p in ctx.tracked_pods() if _index_failed(ctx, p)
    )


def _index_failed(ctx: SyncContext, pod: Pod) -> bool:
    if not podutil.is_failed(pod, ctx.job):
        return False
    verdict = failure_policy.match(ctx.job.pod_failure_policy, pod)
    if verdict.action == keys.ACTION_FAIL_INDEX:
        return True
    limit = ctx.job.backoff_limit_per_index or 0
    return verdict.counts and podutil.index_failure_count(pod) >= limit


def _delayed_per_index(ctx: SyncContext) -> dict[int, Pod]:
    active = {podutil.completion_index(p) for p in ctx.active}
    failed = ctx.failed_indexes or Intervals()
    delayed: dict[int, Pod] = {}
    for pod in ctx.tracked_pods():
        if not podutil.is_failed(pod, ctx.job):
            continue
        index = podutil.completion_index(pod)
        if ctx.succeeded_indexes.has(index) or failed.has(index) or index in active:
            continue
        last = delayed.get(index)
        if last is None or (
            _absolute_failures(last) <= _absolute_failures(pod)
            and podutil.finished_time(pod) >= podutil.finished_time(last)
        ):
            delayed[index] = pod
    return delayed


def _absolute_failures(pod: Pod) -> int:
    return podutil.index_failure_count(pod) + podutil.index_ignored_failure_count(pod)
