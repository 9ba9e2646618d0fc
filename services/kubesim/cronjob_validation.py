"""batch/v1 CronJob validation as Kubernetes' pkg/apis/batch/validation/validation.go.

``validate_cron_job`` is ``validateCronJobSpec``'s own rules (the schedule as robfig/cron's
``ParseStandard`` reads it, no ``TZ``/``CRON_TZ`` in it unless the old schedule had one,
``validateTimeZone`` when the zone is new or changed, the concurrency policy, non-negative
deadline and history limits) and, on create, the 52-character name the controller's
``-<minutes>`` suffix leaves room for; ``validate_job_template`` is ``ValidateJobTemplateSpec``
(``validateJobSpec`` on the template, no selector, no manualSelector), run once defaults are
applied, as for a Job.
"""

from __future__ import annotations

import re
from typing import Any

from services.kubesim import batch_validation
from shared.kube.cron import ScheduleError, load_location, parse_standard
from shared.kube.fielderrors import Cause, invalid, not_supported, required

Obj = dict[str, Any]
# The controller appends "-<minutes since the epoch>" (11 characters) to name a Job.
MAX_NAME_LENGTH = 63 - 11
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
NEGATIVE = "must be greater than or equal to 0"
TEMPLATE = "spec.jobTemplate.spec"
_TIME_ZONE_PART = re.compile(r"^[A-Za-z\.\-_0-9+]{1,14}$")


def _schedule(spec: Obj, allow_tz: bool) -> list[Cause]:
    schedule, path = spec.get("schedule") or "", "spec.schedule"
    if not schedule:
        return [required(path)]
    causes: list[Cause] = []
    try:
        parse_standard(schedule)
    except ScheduleError as exc:
        causes.append(invalid(path, schedule, str(exc)))
    if allow_tz and "TZ" in schedule and spec.get("timeZone") is not None:
        causes.append(
            invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule")
        )
    elif not allow_tz and "TZ" in schedule:
        causes.append(
            invalid(
                path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
            )
        )
    return causes


def validate_time_zone(zone: Any, path: str = "spec.timeZone") -> list[Cause]:
    """``validateTimeZone``: an IANA name Go's ``time.LoadLocation`` knows, never ``Local``."""
    if zone is None:
        return []
    if zone == "":
        return [invalid(path, zone, "timeZone must be nil or non-empty string")]
    for part in str(zone).split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.match(part):
            return [invalid(path, zone, f"unknown time zone {zone}")]
    causes: list[Cause] = []
    if str(zone).lower() == "local":
        causes.append(
            invalid(
                path,
                zone,
                "timeZone must be an explicit time zone as defined in "
                "https://www.iana.org/time-zones",
            )
        )
    try:
        load_location(str(zone))
    except ScheduleError as exc:
        causes.append(invalid(path, zone, str(exc)))
    return causes


def _nonnegative(spec: Obj, name: str) -> list[Cause]:
    value = spec.get(name)
    if isinstance(value, int) and value < 0:
        return [invalid(f"spec.{name}", value, NEGATIVE)]
    return []


def validate_cron_job(obj: Obj, old: Obj | None = None) -> list[Cause]:
    spec = obj.get("spec") or {}
    old_spec = (old or {}).get("spec") or {}
    causes = _schedule(spec, allow_tz="TZ" in str(old_spec.get("schedule") or ""))
    causes += _nonnegative(spec, "startingDeadlineSeconds")
    if old is None or old_spec.get("timeZone") != spec.get("timeZone"):
        causes += validate_time_zone(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        causes.append(required("spec.concurrencyPolicy"))
    elif policy not in CONCURRENCY_POLICIES:
        causes.append(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
    causes += _nonnegative(spec, "successfulJobsHistoryLimit")
    causes += _nonnegative(spec, "failedJobsHistoryLimit")
    name = str((obj.get("metadata") or {}).get("name") or "")
    if old is None and len(name) > MAX_NAME_LENGTH:
        causes.append(invalid("metadata.name", name, "must be no more than 52 characters"))
    return causes


def validate_job_template(obj: Obj) -> list[Cause]:
    """``ValidateJobTemplateSpec``: ``validateJobSpec`` on ``spec.jobTemplate.spec`` (its paths
    under the template), then no selector and no manualSelector: the Job's are generated."""
    template = ((obj.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    found = batch_validation.validate_job_spec({"metadata": {}, "spec": template})
    causes = [
        (f"{TEMPLATE}.{field.removeprefix('spec.')}", kind, body)
        for field, kind, body in found
        if field.startswith("spec.")  # ValidateJob's hostname rule is not the template's
    ]
    if template.get("selector") is not None:
        selector = template["selector"]
        causes.append(
            invalid(f"{TEMPLATE}.selector", selector, "`selector` will be auto-generated")
        )
    if template.get("manualSelector"):
        causes.append(not_supported(f"{TEMPLATE}.manualSelector", True, ("nil", "false")))
    return causes
