"""One sync of a batch/v1 CronJob: ``reconcile(cronjob, observed, now) -> Actions``.

Kubernetes' CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go): first
``cleanupFinishedJobs`` (the oldest finished Jobs beyond successfulJobsHistoryLimit /
failedJobsHistoryLimit), then ``syncCronJob``: bring ``status.active`` and
``lastSuccessfulTime`` up to date from the Jobs it controls, then — unless the CronJob is being
deleted, its time zone is unknown, it is suspended or its schedule does not parse — start the
Job of the most recent unmet schedule time, within ``startingDeadlineSeconds`` and as
``concurrencyPolicy`` allows, and wake at the next schedule time. Events carry upstream's
reasons and messages.

Pure: the Jobs come from the cache (``observed.jobs``); what upstream reads from the API server
when its listers lag comes in ``observed.live_jobs`` (active Jobs the cache lacks) and
``observed.fresh_cronjob`` (the CronJob, when a running Job is missing from its status). The uid
of a Job this sync creates is not known yet: its ``status.active`` reference has none until
the next sync, which fills it in from the cached Job.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from services.jobcontroller.core import Actions, Observed, editable_copy
from services.jobcontroller.cronjob import timing
from shared.kube.cron import Schedule, ScheduleError, load_location, parse_standard
from shared.kube.timefmt import format_rfc3339, parse_rfc3339
from shared.models import CronJob, Job, Json
from shared.models.batch import ObjectReference

Event = tuple[str, str, str]
# Upstream's Warnings for a failed call (jobControl.CreateJob, deleteJob), with its error.
FAILED_WRITE_EVENTS = {
    "create": ("FailedCreate", "Error creating job: "),
    "delete": ("FailedDelete", "Deleted job: "),
}


@dataclass(slots=True)
class CronJobSync:
    """What ``sync_cron_job`` decided: the edited CronJob (its status), whether the status
    must be written, and the writes and Events."""

    cj: CronJob
    update_status: bool = False
    requeue_after: float | None = None
    create: list[Json] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)  # namespace/name of Jobs
    events: list[Event] = field(default_factory=list)
    events_on_success: list[Event] = field(default_factory=list)


def reconcile(cj: CronJob, observed: Observed, now: float) -> Actions:
    result = sync_cron_job(
        cj, observed.jobs, now, live_jobs=observed.live_jobs, fresh=observed.fresh_cronjob
    )
    actions = Actions(
        create=result.create,
        events=result.events,
        events_on_success=result.events_on_success,
        requeue_after=result.requeue_after,
        failed_write_events=FAILED_WRITE_EVENTS,
    )
    for key in result.delete:
        actions.delete_object("Job", key)
    if result.update_status:
        actions.status = result.cj.status
    return actions


def finished_condition(job: Job) -> str | None:
    """``jobutil.FinishedCondition``: ``Complete`` or ``Failed`` once true, else None."""
    for c in job.status.conditions:
        if c.type in ("Complete", "Failed") and c.status == "True":
            return c.type
    return None


def _in_active(cj: CronJob, uid: str) -> bool:
    return any(ref.uid == uid for ref in cj.status.active)


def _remove_active(cj: CronJob, uid: str | None) -> None:
    cj.status.active = [ref for ref in cj.status.active if ref.uid != uid]


def _key(job: Job) -> str:
    return f"{job.metadata.namespace or 'default'}/{job.metadata.name}"


def sync_cron_job(
    cj: CronJob,
    jobs: list[Job],
    now: float,
    *,
    live_jobs: frozenset[str] = frozenset(),
    fresh: CronJob | None = None,
) -> CronJobSync:
    """``sync``: ``cleanupFinishedJobs`` then ``syncCronJob`` on a copy of ``cj``.
    ``live_jobs`` and ``fresh`` are what upstream reads from the API server (see ``Observed``)."""
    result = CronJobSync(cj=editable_copy(cj))
    jobs = jobs_to_be_reconciled(cj, jobs)
    if cleanup_finished_jobs(result, jobs):
        result.update_status = True
    _observe_jobs(result, jobs, live_jobs, fresh)
    _sync(result, now)
    return result


def unexpected_jobs(cj: CronJob, jobs: list[Job]) -> list[Job]:
    """The running Jobs of the CronJob that its ``status.active`` does not name (upstream
    reads the CronJob again before it calls them unexpected)."""
    return [
        j
        for j in jobs_to_be_reconciled(cj, jobs)
        if finished_condition(j) is None
        and not _in_active(cj, j.metadata.uid)
        and not any(not r.uid and r.name == j.metadata.name for r in cj.status.active)
    ]


def jobs_to_be_reconciled(cj: CronJob, jobs: list[Job]) -> list[Job]:
    """``getJobsToBeReconciled``: the Jobs of the CronJob's namespace whose controller
    reference names it, whatever their labels."""
    namespace = cj.metadata.namespace or "default"
    return [
        j
        for j in jobs
        if (j.metadata.namespace or "default") == namespace
        and (ref := j.metadata.controller_ref()) is not None
        and ref.name == cj.metadata.name
    ]


def cleanup_finished_jobs(result: CronJobSync, jobs: list[Job]) -> bool:
    spec = result.cj.spec
    if spec.failedJobsHistoryLimit is None and spec.successfulJobsHistoryLimit is None:
        return False
    succeeded = [j for j in jobs if finished_condition(j) == "Complete"]
    failed = [j for j in jobs if finished_condition(j) == "Failed"]
    removed = False
    if spec.successfulJobsHistoryLimit is not None:
        removed |= _remove_oldest(result, succeeded, spec.successfulJobsHistoryLimit)
    if spec.failedJobsHistoryLimit is not None:
        removed |= _remove_oldest(result, failed, spec.failedJobsHistoryLimit)
    return removed


def _remove_oldest(result: CronJobSync, jobs: list[Job], keep: int) -> bool:
    surplus = len(jobs) - keep
    if surplus <= 0:
        return False
    for job in sorted(jobs, key=timing.by_start_time)[:surplus]:
        _delete_job(result, job)
    return True


def _delete_job(result: CronJobSync, job: Job) -> None:
    """``deleteJob``: the Job (in the background) and its reference in ``status.active``."""
    result.delete.append(_key(job))
    _remove_active(result.cj, job.metadata.uid)
    result.events_on_success.append(
        ("Normal", "SuccessfulDelete", f"Deleted job {job.metadata.name}")
    )


def _observe_jobs(
    result: CronJobSync, jobs: list[Job], live_jobs: frozenset[str], fresh: CronJob | None
) -> None:
    cj = result.cj
    if _complete_references(cj, jobs):
        result.update_status = True
    children = {j.metadata.uid for j in jobs}
    for job in jobs:
        uid, finished = job.metadata.uid, finished_condition(job)
        found = _in_active(cj, uid)
        if not found and finished is None:
            if fresh is not None and _in_active(fresh, uid):
                # The cache was behind: go on with the CronJob the API server has.
                result.cj = cj = editable_copy(fresh)
                continue
            result.events.append(
                (
                    "Warning",
                    "UnexpectedJob",
                    f"Saw a job that the controller did not create or forgot: {job.metadata.name}",
                )
            )
        elif finished is not None:
            if found:
                _remove_active(cj, uid)
                result.events.append(
                    (
                        "Normal",
                        "SawCompletedJob",
                        f"Saw completed job: {job.metadata.name}, condition: {finished}",
                    )
                )
                result.update_status = True
            if finished == "Complete":
                _record_success(result, job)
    for ref in list(cj.status.active):
        if ref.uid in children or ref.name in live_jobs:
            continue
        result.events.append(("Normal", "MissingJob", f"Active job went missing: {ref.name}"))
        cj.status.active = [r for r in cj.status.active if r is not ref]
        result.update_status = True


def _complete_references(cj: CronJob, jobs: list[Job]) -> bool:
    """The Jobs this controller created before their uids were known (or found existing, as
    upstream's AlreadyExists path adopts them): their references get the cached Job's uid."""
    by_name = {j.metadata.name: j for j in jobs}
    completed = False
    for i, ref in enumerate(cj.status.active):
        job = by_name.get(ref.name or "")
        if not ref.uid and job is not None:
            cj.status.active[i] = timing.job_reference(job)
            completed = True
    return completed


def _record_success(result: CronJobSync, job: Job) -> None:
    status = result.cj.status
    completed = parse_rfc3339(job.status.completionTime)
    last = parse_rfc3339(status.lastSuccessfulTime)
    if last is None or (completed is not None and completed > last):
        status.lastSuccessfulTime = job.status.completionTime
        result.update_status = True


def format_schedule(cj: CronJob, events: list[Event] | None) -> str:
    """``formatSchedule``: a ``TZ`` in the schedule wins (with a Warning); else the time zone."""
    schedule, zone = cj.spec.schedule, cj.spec.timeZone
    if "TZ" in schedule:
        if events is not None:
            events.append(
                (
                    "Warning",
                    "UnsupportedSchedule",
                    f"CRON_TZ or TZ used in schedule {_go_quote(schedule)} is not officially "
                    "supported, see https://kubernetes.io/docs/concepts/workloads/controllers/"
                    "cron-jobs/ for more details",
                )
            )
        return schedule
    if zone is not None:
        try:
            load_location(zone)
        except ScheduleError:
            return schedule
        return f"TZ={zone} {schedule}"
    return schedule


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _sync(result: CronJobSync, now: float) -> None:
    """``syncCronJob`` once the Jobs are observed: start the due Job, or say when to wake."""
    cj = result.cj
    if cj.metadata.deletionTimestamp is not None:
        return
    if cj.spec.timeZone is not None:
        try:
            load_location(cj.spec.timeZone)
        except ScheduleError as exc:
            message = f"invalid timeZone: {_go_quote(cj.spec.timeZone)}: {exc}"
            result.events.append(("Warning", "UnknownTimeZone", message))
            return
    if cj.spec.suspend:
        return
    try:
        schedule = parse_standard(format_schedule(cj, result.events))
    except ScheduleError as exc:
        message = f"unparseable schedule: {_go_quote(cj.spec.schedule)} : {exc}"
        result.events.append(("Warning", "UnparseableSchedule", message))
        return
    try:
        scheduled = _next_schedule_time(cj, now, schedule, result.events)
    except ScheduleError as exc:
        message = f"invalid schedule: {cj.spec.schedule} : {exc}"
        result.events.append(("Warning", "InvalidSchedule", message))
        return
    if scheduled is None:
        result.requeue_after = timing.requeue_after(cj, now, schedule)
        return
    _start(result, scheduled, now, schedule)


def _next_schedule_time(
    cj: CronJob, now: float, schedule: Schedule, events: list[Event]
) -> float | None:
    """``nextScheduleTime``: the most recent unmet schedule time within the deadline."""
    recent = timing.most_recent_schedule_time(cj, now, schedule, include_starting_deadline=True)
    if recent.time is None or recent.time > now:
        return None
    if recent.missed is timing.Missed.MANY:
        events.append(
            (
                "Warning",
                "TooManyMissedTimes",
                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                "or check clock skew",
            )
        )
    return recent.time


def _rfc1123z(seconds: float) -> str:
    return time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(int(seconds)))


def _start(result: CronJobSync, scheduled: float, now: float, schedule: Schedule) -> None:
    """Start the Job of ``scheduled`` unless it is too late, already started, or forbidden."""
    cj = result.cj
    deadline = cj.spec.startingDeadlineSeconds
    if deadline is not None and scheduled + deadline < now:
        message = f"Missed scheduled time to start a job: {_rfc1123z(scheduled)}"
        result.events.append(("Warning", "MissSchedule", message))
        result.requeue_after = timing.requeue_after(cj, now, schedule)
        return
    name = timing.job_name(cj, scheduled)
    namespace = cj.metadata.namespace or "default"
    already = any(
        r.name == name and (r.namespace or "default") == namespace for r in cj.status.active
    )
    if already or parse_rfc3339(cj.status.lastScheduleTime) == scheduled:
        result.requeue_after = timing.requeue_after(cj, now, schedule)
        return
    if cj.spec.concurrencyPolicy == "Forbid" and cj.status.active:
        result.events.append(
            (
                "Normal",
                "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy "
                "is Forbid",
            )
        )
        result.requeue_after = timing.requeue_after(cj, now, schedule)
        return
    if cj.spec.concurrencyPolicy == "Replace":
        for ref in list(cj.status.active):
            result.delete.append(f"{ref.namespace or namespace}/{ref.name}")
            cj.status.active = [r for r in cj.status.active if r is not ref]
            result.events_on_success.append(
                ("Normal", "SuccessfulDelete", f"Deleted job {ref.name}")
            )
            result.update_status = True
    result.create.append(timing.job_from_template(cj, scheduled))
    result.events_on_success.append(("Normal", "SuccessfulCreate", f"Created job {name}"))
    cj.status.active.append(
        ObjectReference(apiVersion="batch/v1", kind="Job", namespace=namespace, name=name)
    )
    cj.status.lastScheduleTime = format_rfc3339(scheduled)
    result.update_status = True
    result.requeue_after = timing.requeue_after(cj, now, schedule)
