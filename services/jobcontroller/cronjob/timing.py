"""A CronJob's schedule against the clock, as Kubernetes' pkg/controller/cronjob/utils.go.

``most_recent_schedule_time`` is ``mostRecentScheduleTime``: from the last schedule time (or
the creation time), and no earlier than ``startingDeadlineSeconds`` before now, the most recent
time a Job should have started, and whether none, a few or many (more than 100) were missed.
``requeue_after`` is ``nextScheduleTimeDuration`` (the next schedule plus 100 ms, for clock
skew). ``job_from_template`` is ``getJobFromTemplate2``. Times are Unix seconds; pure.
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass
from datetime import datetime

from shared.kube.cron import Schedule, ScheduleError, load_location
from shared.kube.timefmt import parse_rfc3339
from shared.models import CronJob, Job, Json
from shared.models.batch import ObjectReference

NEXT_SCHEDULE_DELTA = 0.1
SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"
MANY_MISSED = 100


class Missed(enum.Enum):
    NONE = "none"
    FEW = "few"
    MANY = "many"


@dataclass(frozen=True, slots=True)
class MostRecent:
    earliest: float
    time: float | None
    missed: Missed


def most_recent_schedule_time(
    cj: CronJob, now: float, schedule: Schedule, *, include_starting_deadline: bool
) -> MostRecent:
    """``mostRecentScheduleTime``; raises ``ScheduleError`` for a schedule that never fires
    (two activations less than a second apart, e.g. ``59 23 31 2 *``)."""
    earliest = parse_rfc3339(cj.metadata.creationTimestamp) or 0.0
    last = parse_rfc3339(cj.status.lastScheduleTime)
    if last is not None:
        earliest = last
    deadline = cj.spec.startingDeadlineSeconds
    if include_starting_deadline and deadline is not None:
        earliest = max(earliest, now - deadline)
    t1 = schedule.next(earliest)
    t2 = schedule.next(t1)
    if now < t1:
        return MostRecent(earliest, None, Missed.NONE)
    if now < t2:
        return MostRecent(earliest, t1, Missed.NONE)
    between = round(t2 - t1)
    if between < 1:
        raise ScheduleError("time difference between two schedules is less than 1 second")
    missed_count = int(now - t1) // between + 1
    most_recent: float | None = None
    t = schedule.next(t1 + (missed_count - 2) * between)
    while 0 < t <= now:
        most_recent = t
        t = schedule.next(t)
    missed = Missed.MANY if missed_count > MANY_MISSED else Missed.FEW
    return MostRecent(earliest, most_recent, missed)


def requeue_after(cj: CronJob, now: float, schedule: Schedule) -> float:
    """``nextScheduleTimeDuration``: seconds until the next schedule after the most recent one,
    plus ``NEXT_SCHEDULE_DELTA``."""
    try:
        recent = most_recent_schedule_time(cj, now, schedule, include_starting_deadline=False)
    except ScheduleError:
        base = now
    else:
        if recent.time is not None:
            base = recent.time
        else:
            base = recent.earliest if recent.missed is Missed.NONE else now
    return schedule.next(base) + NEXT_SCHEDULE_DELTA - now


def job_name(cj: CronJob, scheduled: float) -> str:
    """``getJobName``: the CronJob's name and the scheduled time in minutes since the epoch."""
    return f"{cj.metadata.name}-{int(scheduled) // 60}"


def format_rfc3339_in(seconds: float, zone: str) -> str:
    """Go's ``t.In(zone).Format(time.RFC3339)``: ``Z`` for UTC, else the zone's offset."""
    local = datetime.fromtimestamp(int(seconds), load_location(zone))
    offset = local.utcoffset()
    if offset is None or offset.total_seconds() == 0:
        return local.strftime("%Y-%m-%dT%H:%M:%SZ")
    text = local.strftime("%Y-%m-%dT%H:%M:%S%z")
    return f"{text[:-2]}:{text[-2:]}"


def job_from_template(cj: CronJob, scheduled: float) -> Json:
    """``getJobFromTemplate2``: the Job for one scheduled time — the template's labels and
    annotations, the scheduled-timestamp annotation (in the CronJob's time zone), a
    deterministic name and the CronJob as controller."""
    template = cj.spec.jobTemplate
    annotations = dict(template.metadata.annotations)
    annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = format_rfc3339_in(
        scheduled, cj.spec.timeZone or ""
    )
    metadata: Json = {
        "name": job_name(cj, scheduled),
        "namespace": cj.metadata.namespace or "default",
        "annotations": annotations,
        "ownerReferences": [
            {
                "apiVersion": "batch/v1",
                "kind": "CronJob",
                "name": cj.metadata.name,
                "uid": cj.metadata.uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    if template.metadata.labels:
        metadata["labels"] = dict(template.metadata.labels)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": copy.deepcopy(template.spec),
    }


def job_reference(job: Job) -> ObjectReference:
    """``getRef``: the reference ``status.active`` keeps to a Job."""
    meta = job.metadata
    return ObjectReference(
        apiVersion="batch/v1",
        kind="Job",
        namespace=meta.namespace,
        name=meta.name,
        uid=meta.uid or None,
        resourceVersion=meta.resourceVersion or None,
    )


def by_start_time(job: Job) -> tuple[bool, float, str]:
    """``byJobStartTime``: started Jobs first, earliest first; the name breaks ties."""
    started = parse_rfc3339(job.status.startTime)
    return (started is None, started or 0.0, job.metadata.name)
