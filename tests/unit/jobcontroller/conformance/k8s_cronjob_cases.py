"""The fixtures of kubernetes ``pkg/controller/cronjob``'s tests: its clock readings around
2016-05-19T10:00:00Z and its ``cronJob()`` / ``jobSpec()`` builders."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from shared.kube.timefmt import format_rfc3339
from shared.models import CronJob, Job

TOP = datetime(2016, 5, 19, 10, 0, tzinfo=UTC).timestamp()  # topOfTheHour
MINUTE, HOUR = 60.0, 3600.0
JUST_BEFORE_THE_HOUR = TOP - MINUTE
JUST_AFTER_THE_PRIOR_HOUR = TOP - 59 * MINUTE
JUST_BEFORE_THE_PRIOR_HOUR = TOP - 61 * MINUTE
JUST_AFTER_THE_HOUR = TOP + MINUTE
JUST_BEFORE_THE_NEXT_HOUR = TOP + 59 * MINUTE
JUST_A_SECOND_BEFORE_THE_HOUR = TOP - 1
WEEK_AFTER_THE_HOUR = TOP + 7 * 24 * HOUR
NEXT_SCHEDULE_DELTA = 0.1

SHORT_DEAD = 10
MEDIUM_DEAD = 2 * 60 * 60
LONG_DEAD = 1_000_000
ERROR_SCHEDULE = "obvious error schedule"
ON_THE_HOUR = "0 * * * ?"
EVERY_HOUR = "@every 1h"
ERROR_TIME_ZONE = "bad timezone"
NEW_YORK = "America/New_York"


def stamp(seconds: float) -> str:
    return format_rfc3339(seconds)


def job_spec() -> dict[str, Any]:
    return {
        "parallelism": 1,
        "completions": 1,
        "template": {
            "metadata": {"labels": {"foo": "bar"}},
            "spec": {"containers": [{"image": "foo/bar"}]},
        },
    }


def cron_job(**spec: Any) -> CronJob:
    """``cronJob()``: mycronjob in snazzycats, created just before the hour, every minute."""
    manifest = {
        "metadata": {
            "name": "mycronjob",
            "namespace": "snazzycats",
            "uid": "1a2b3c",
            "creationTimestamp": stamp(JUST_BEFORE_THE_HOUR),
        },
        "spec": {
            "schedule": "* * * * ?",
            "concurrencyPolicy": "Allow",
            "jobTemplate": {
                "metadata": {"labels": {"a": "b"}, "annotations": {"x": "y"}},
                "spec": job_spec(),
            },
            **spec,
        },
    }
    return msgspec.convert(manifest, CronJob)


def as_job(manifest: dict[str, Any], *, uid: str, created: float, **status: Any) -> Job:
    """A Job made by ``getJobFromTemplate2`` as the API server would store it."""
    meta = {**manifest["metadata"], "uid": uid, "creationTimestamp": stamp(created)}
    return msgspec.convert({**manifest, "metadata": meta, "status": status}, Job)
