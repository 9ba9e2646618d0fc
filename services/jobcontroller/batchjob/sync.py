"""One sync of a batch/v1 Job: ``reconcile(job, observed, now) -> Actions`` (``syncJob``).

Pure: the cache snapshot and the clock come in, the decisions go out; the service shell and
``shoal simulate reconcile`` execute or print them. The steps follow Kubernetes: skip Jobs
managed elsewhere; a finished Job only waits for its TTL; claim pods; count; decide whether
the Job is finished; then either delete the remaining active pods (finished) or manage the
active count (suspend/resume included); finally count finished pods and remove their
tracking finalizers. While expectations are unsatisfied nothing is created or deleted and the
Job is not finished, but its status is still brought up to date.
"""

from __future__ import annotations

from services.jobcontroller.batchjob import keys, manage, spec, tracking, verdict
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.claiming import claim_pods
from services.jobcontroller.batchjob.context import SyncContext
from services.jobcontroller.batchjob.status import StatusDraft, new_condition
from services.jobcontroller.core import Actions, Observed
from shared.kube.keys import namespaced_key
from shared.kube.timefmt import format_rfc3339, parse_rfc3339
from shared.models import Condition, Job


def reconcile(job: Job, observed: Observed, now: float) -> Actions:
    actions = Actions()
    if spec.managed_externally(job, observed.batch_managed_by):
        return actions
    problems = spec.validate(job)
    if problems:
        actions.events.append(("Warning", "InvalidJobSpec", "; ".join(problems)))
        return actions
    if is_finished(job):
        _expire(job, now, actions)
        return actions
    ctx = _start(job, observed, now, actions)
    verdict.decide(ctx)
    if ctx.finished is not None:
        _terminate(ctx)
        active = len(ctx.active) - _deleted_count(ctx)
    else:
        active = _manage(ctx)
    status = ctx.status
    status.active, status.ready, status.terminating = active, ctx.ready, ctx.terminating
    if tracking.track(ctx):
        _expire_after_finish(ctx)
    actions.status = status.to_status()
    return actions


def is_finished(job: Job) -> bool:
    return any(
        c.type in (keys.COMPLETE, keys.FAILED) and c.status == "True" for c in job.status.conditions
    )


def _start(job: Job, observed: Observed, now: float, actions: Actions) -> SyncContext:
    view = spec.view(job)
    pods = claim_pods(view, observed, actions)
    status = StatusDraft.of(job.status)
    ctx = SyncContext(
        job=view,
        now=now,
        pods=pods,
        status=status,
        actions=actions,
        expectations_satisfied=observed.expectations_satisfied,
        active=[p for p in pods if podutil.is_active(p)],
        uncounted_succeeded=set(status.uncounted_succeeded),
        uncounted_failed=set(status.uncounted_failed),
        terminating=sum(1 for p in pods if podutil.is_terminating(p)),
    )
    ctx.ready = sum(1 for p in ctx.active if podutil.is_ready(p))
    new_succeeded, new_failed = ctx.new_finished_pods()
    counted_failures = sum(1 for p in new_failed if ctx.counts_failure(p))
    ctx.succeeded = status.succeeded + len(new_succeeded) + len(ctx.uncounted_succeeded)
    ctx.failed = status.failed + counted_failures + len(ctx.uncounted_failed)
    if status.start_time is None and not view.suspend:
        status.start_time = format_rfc3339(now)
    return ctx


def _terminate(ctx: SyncContext) -> None:
    """The Job is finishing: delete its active pods (their finalizers go with the count)."""
    if not ctx.expectations_satisfied:
        ctx.finished = None  # the cache may be missing pods: decide again next sync
        return
    for pod in ctx.active:
        ctx.actions.delete_object("Pod", namespaced_key(ctx.job.namespace, pod.metadata.name))
        if podutil.is_ready(pod):
            ctx.ready -= 1
    ctx.terminating += len(ctx.active)


def _deleted_count(ctx: SyncContext) -> int:
    return len(ctx.active) if ctx.finished is not None else 0


def _manage(ctx: SyncContext) -> int:
    active = len(ctx.active)
    managed = ctx.expectations_satisfied and not ctx.job.deleting
    if managed:
        active = manage.manage(ctx)
    completions = ctx.job.completions
    # Without completions (a work queue) one success finishes the Job once nothing runs.
    reached = ctx.succeeded > 0 if completions is None else ctx.succeeded >= completions
    # Unlike Kubernetes, a stale cache (unsatisfied expectations) never finishes a Job: a
    # creation in flight may still be missing from it.
    if reached and active == 0 and ctx.expectations_satisfied:
        ctx.finished = _completions_reached(ctx)
    elif managed:
        _record_suspension(ctx)
    return active


def _completions_reached(ctx: SyncContext) -> Condition:
    return new_condition(
        keys.SUCCESS_CRITERIA_MET,
        "True",
        keys.REASON_COMPLETIONS_REACHED,
        "Reached expected number of succeeded pods",
        ctx.now,
    )


def _record_suspension(ctx: SyncContext) -> None:
    status, events = ctx.status, ctx.actions.events
    if ctx.job.suspend:
        if status.ensure(keys.SUSPENDED, "True", "JobSuspended", "Job suspended", ctx.now):
            events.append(("Normal", "Suspended", "Job suspended"))
    elif status.ensure(keys.SUSPENDED, "False", "JobResumed", "Job resumed", ctx.now):
        events.append(("Normal", "Resumed", "Job resumed"))
        # activeDeadlineSeconds counts continuous activity: it restarts on resume.
        status.start_time = format_rfc3339(ctx.now)


def _expire(job: Job, now: float, actions: Actions) -> None:
    """ttlSecondsAfterFinished: delete the finished Job once elapsed, else wake up then."""
    ttl = job.spec.ttlSecondsAfterFinished
    if ttl is None:
        return
    finished_at = _finish_time(job)
    left = ttl - (now - finished_at) if finished_at is not None else 0.0
    if left <= 0:
        actions.delete_job = True
    else:
        actions.requeue_after = left


def _finish_time(job: Job) -> float | None:
    for cond in job.status.conditions:
        if cond.type in (keys.COMPLETE, keys.FAILED) and cond.status == "True":
            return parse_rfc3339(cond.lastTransitionTime) or parse_rfc3339(
                job.status.completionTime
            )
    return None


def _expire_after_finish(ctx: SyncContext) -> None:
    ttl = ctx.job.ttl_seconds_after_finished
    if ttl is None:
        return
    if ttl <= 0:
        ctx.actions.delete_job = True
    else:
        ctx.requeue(float(ttl))
