"""kubernetes ``pkg/controller/cronjob/utils_test.go``, ported: ``TestGetJobFromTemplate2``,
``TestNextScheduleTime``, ``TestByJobStartTime``, ``TestMostRecentScheduleTime`` and
``TestNextScheduleTimeDuration``, each row under its upstream name."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import msgspec
import pytest

from services.jobcontroller.cronjob import timing
from services.jobcontroller.cronjob.sync import _next_schedule_time
from services.jobcontroller.cronjob.timing import Missed
from shared.kube.cron import ScheduleError, parse_standard
from shared.models import CronJob, Job
from tests.unit.jobcontroller.conformance.k8s_cronjob_cases import (
    HOUR,
    MINUTE,
    NEXT_SCHEDULE_DELTA,
    TOP,
    stamp,
)

D = NEXT_SCHEDULE_DELTA
DAY = 24 * HOUR


def _cj(
    schedule: str,
    created: float,
    last: float | None = None,
    deadline: int | None = None,
    **spec: Any,
) -> CronJob:
    manifest = {
        "metadata": {"name": "mycronjob", "namespace": "default", "uid": "1a2b3c"},
        "spec": {"schedule": schedule, "startingDeadlineSeconds": deadline, **spec},
        "status": {"lastScheduleTime": stamp(last) if last is not None else None},
    }
    manifest["metadata"]["creationTimestamp"] = stamp(created)
    return msgspec.convert(manifest, CronJob)


TEMPLATE_ROWS = [
    ("UTC timezone and one annotation", "UTC", {"x": "y"}, "2016-05-19T10:00:00Z", 2),
    ("nil timezone and one annotation", None, {"x": "y"}, "2016-05-19T10:00:00Z", 2),
    (
        "correct timezone and multiple annotation",
        "Europe/Rome",
        {"x": "y", "z": "x"},
        "2016-05-19T12:00:00+02:00",
        3,
    ),
]


@pytest.mark.parametrize(
    ("zone", "annotations", "stamped", "count"),
    [r[1:] for r in TEMPLATE_ROWS],
    ids=[r[0] for r in TEMPLATE_ROWS],
)
def test_get_job_from_template2(
    zone: str | None, annotations: dict[str, str], stamped: str, count: int
) -> None:
    manifest = {
        "metadata": {"name": "mycronjob", "namespace": "snazzycats", "uid": "1a2b3c"},
        "spec": {
            "schedule": "* * * * ?",
            "concurrencyPolicy": "Allow",
            "timeZone": zone,
            "jobTemplate": {
                "metadata": {"labels": {"a": "b"}, "annotations": annotations},
                "spec": {
                    "activeDeadlineSeconds": 1,
                    "manualSelector": False,
                    "template": {
                        "metadata": {"labels": {"foo": "bar"}},
                        "spec": {"containers": [{"image": "foo/bar"}]},
                    },
                },
            },
        },
    }
    job = timing.job_from_template(msgspec.convert(manifest, CronJob), TOP)
    meta = job["metadata"]
    assert meta["name"].startswith("mycronjob-")
    assert len(meta["labels"]) == 1
    assert len(meta["annotations"]) == count
    assert meta["annotations"][timing.SCHEDULED_TIMESTAMP_ANNOTATION] == stamped
    assert job["spec"]["activeDeadlineSeconds"] == 1


T1, T2 = TOP, TOP + HOUR
NEXT_ROWS = [
    (
        "no known start times, and none needed yet",
        T1 - 10 * MINUTE,
        None,
        None,
        T1 - 7 * MINUTE,
        None,
    ),
    ("no known start times, and one needed", T1 - 10 * MINUTE, None, None, T1 + 2, T1),
    ("known LastScheduleTime, no start needed", T1 - 10 * MINUTE, T1, None, T1 + 2 * MINUTE, None),
    ("known LastScheduleTime, a start needed", T1 - 10 * MINUTE, T1, None, T2 + 5 * MINUTE, T2),
    (
        "known LastScheduleTime, two starts needed",
        T1 - 2 * HOUR,
        T1 - HOUR,
        None,
        T2 + 5 * MINUTE,
        T2,
    ),
    (
        "now is way way ahead of last start time, and there is no deadline",
        T1 - 2 * HOUR,
        T1 - HOUR,
        None,
        T2 + 10 * DAY,
        "some",
    ),
    (
        "now is way way ahead of last start time, but there is a short deadline",
        T1 - 2 * HOUR,
        T1 - HOUR,
        2 * 60 * 60,
        T2 + 10 * DAY,
        "some",
    ),
]


@pytest.mark.parametrize(
    ("created", "last", "deadline", "now", "expected"),
    [r[1:] for r in NEXT_ROWS],
    ids=[r[0] for r in NEXT_ROWS],
)
def test_next_schedule_time(
    created: float, last: float | None, deadline: int | None, now: float, expected: Any
) -> None:
    """``TestNextScheduleTime``'s cases 1 to 7 (hourly on the hour)."""
    cj = _cj("0 * * * ?", created, last, deadline)
    got = _next_schedule_time(cj, now, parse_standard(cj.spec.schedule), [])
    if expected == "some":
        assert got is not None
    else:
        assert got == expected


def test_next_schedule_time_error_of_most_recent_schedule_time() -> None:
    """``TestNextScheduleTime`` case 8: the rogue schedule's error reaches the caller."""
    cj = _cj("0 * * * ?", T1 + 10)
    with pytest.raises(ScheduleError):
        _next_schedule_time(cj, T1 + HOUR, parse_standard("59 23 31 2 *"), [])


def _started(name: str, start: float | None) -> Job:
    status = {"startTime": stamp(start)} if start is not None else {}
    return msgspec.convert({"metadata": {"name": name}, "status": status}, Job)


NOW = datetime(2018, 1, 1, 2, 3, 4, tzinfo=UTC).timestamp()
LATER = datetime(2019, 1, 1, 2, 3, 4, tzinfo=UTC).timestamp()
SORT_ROWS = [
    ("both have nil start times", [("b", None), ("a", None)], ["a", "b"]),
    ("only the first has a nil start time", [("a", None), ("b", NOW)], ["b", "a"]),
    ("only the second has a nil start time", [("a", NOW), ("b", None)], ["a", "b"]),
    ("both have non-nil, equal start time", [("b", NOW), ("a", NOW)], ["a", "b"]),
    ("both have non-nil, different start time", [("a", LATER), ("b", NOW)], ["b", "a"]),
]


@pytest.mark.parametrize(
    ("jobs", "expected"), [r[1:] for r in SORT_ROWS], ids=[r[0] for r in SORT_ROWS]
)
def test_by_job_start_time(jobs: list[tuple[str, float | None]], expected: list[str]) -> None:
    ordered = sorted((_started(n, s) for n, s in jobs), key=timing.by_start_time)
    assert [j.metadata.name for j in ordered] == expected


def after(seconds: float) -> float:
    return TOP + seconds


RECENT_ROWS: list[tuple[str, CronJob, bool, float, float | None, float | None, Missed]] = [
    ("now before next schedule", _cj("0 * * * *", TOP), False, after(30), None, TOP, Missed.NONE),
    (
        "now just after next schedule",
        _cj("0 * * * *", TOP),
        False,
        after(61 * MINUTE),
        after(60 * MINUTE),
        TOP,
        Missed.NONE,
    ),
    (
        "missed 5 schedules",
        _cj("0 * * * *", after(10)),
        False,
        after(301 * MINUTE),
        after(300 * MINUTE),
        after(10),
        Missed.FEW,
    ),
    (
        "complex schedule",
        _cj("30 6-16/4 * * 1-5", TOP, after(30 * MINUTE)),
        False,
        after(DAY + 31 * MINUTE),
        after(DAY + 30 * MINUTE),
        after(30 * MINUTE),
        Missed.FEW,
    ),
    (
        "another complex schedule",
        _cj("30 10,11,12 * * 1-5", TOP, after(30 * MINUTE)),
        False,
        after(30 * HOUR + 30 * MINUTE),
        None,
        after(30 * MINUTE),
        Missed.FEW,
    ),
    (
        "complex schedule with longer diff between executions",
        _cj("30 6-16/4 * * 1-5", TOP, after(30 * MINUTE)),
        False,
        after(96 * HOUR + 31 * MINUTE),
        after(96 * HOUR + 30 * MINUTE),
        after(30 * MINUTE),
        Missed.FEW,
    ),
    (
        "complex schedule with shorter diff between executions",
        _cj("30 6-16/4 * * 1-5", TOP),
        False,
        after(DAY + 31 * MINUTE),
        after(DAY + 30 * MINUTE),
        TOP,
        Missed.FEW,
    ),
    (
        "@every schedule",
        _cj("@every 1h", after(-59 * MINUTE), after(MINUTE), 10),
        False,
        after(7 * DAY),
        after(6 * DAY + 23 * HOUR + MINUTE),
        after(MINUTE),
        Missed.MANY,
    ),
    (
        "earliestTime being CreationTimestamp and LastScheduleTime",
        _cj("0 * * * *", TOP, TOP),
        False,
        after(30),
        None,
        TOP,
        Missed.NONE,
    ),
    (
        "earliestTime being LastScheduleTime",
        _cj("*/5 * * * *", TOP, after(30 * MINUTE)),
        False,
        after(31 * MINUTE),
        None,
        after(30 * MINUTE),
        Missed.NONE,
    ),
    (
        "earliestTime being LastScheduleTime (within StartingDeadlineSeconds)",
        _cj("*/5 * * * *", TOP, after(30 * MINUTE), 60),
        False,
        after(31 * MINUTE),
        None,
        after(30 * MINUTE),
        Missed.NONE,
    ),
    (
        "earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)",
        _cj("*/5 * * * *", TOP, after(30 * MINUTE), 60),
        True,
        after(32 * MINUTE),
        None,
        after(31 * MINUTE),
        Missed.NONE,
    ),
]


@pytest.mark.parametrize(
    ("cj", "include_sds", "now", "recent", "earliest", "missed"),
    [r[1:] for r in RECENT_ROWS],
    ids=[r[0] for r in RECENT_ROWS],
)
def test_most_recent_schedule_time(
    cj: CronJob,
    include_sds: bool,
    now: float,
    recent: float | None,
    earliest: float,
    missed: Missed,
) -> None:
    got = timing.most_recent_schedule_time(
        cj, now, parse_standard(cj.spec.schedule), include_starting_deadline=include_sds
    )
    assert (got.earliest, got.time, got.missed) == (earliest, recent, missed)


def test_most_recent_schedule_time_rogue_cronjob() -> None:
    """``TestMostRecentScheduleTime`` "rogue cronjob": February 31st never comes."""
    cj = _cj("59 23 31 2 *", after(10))
    with pytest.raises(ScheduleError, match="less than 1 second"):
        timing.most_recent_schedule_time(
            cj, after(HOUR), parse_standard(cj.spec.schedule), include_starting_deadline=False
        )


DURATION_ROWS = [
    (
        "complex schedule skipping weekend",
        _cj("30 6-16/4 * * 1-5", TOP, after(30 * MINUTE)),
        after(DAY + 31 * MINUTE),
        3 * HOUR + 59 * MINUTE + D,
    ),
    (
        "another complex schedule skipping weekend",
        _cj("30 10,11,12 * * 1-5", TOP, after(30 * MINUTE)),
        after(30 * HOUR + 30 * MINUTE),
        66 * HOUR + D,
    ),
    (
        "once a week cronjob, missed two runs",
        _cj("0 12 * * 4", TOP, after(2 * HOUR)),
        after(19 * DAY + HOUR + 30 * MINUTE),
        48 * HOUR + 30 * MINUTE + D,
    ),
    ("no previous run of a cronjob", _cj("0 12 * * 5", TOP), after(6 * HOUR), 20 * HOUR + D),
]


@pytest.mark.parametrize(
    ("cj", "now", "expected"), [r[1:] for r in DURATION_ROWS], ids=[r[0] for r in DURATION_ROWS]
)
def test_next_schedule_time_duration(cj: CronJob, now: float, expected: float) -> None:
    got = timing.requeue_after(cj, now, parse_standard(cj.spec.schedule))
    assert got >= 0
    assert got == pytest.approx(expected, abs=1e-6)


def test_scheduled_timestamp_is_written_in_the_cronjob_zone() -> None:
    """The annotation ``getJobFromTemplate2`` writes, for a zone with a negative offset."""
    cj = _cj("0 * * * *", TOP, timeZone="America/New_York")
    job = timing.job_from_template(cj, TOP)
    local = datetime.fromtimestamp(TOP, ZoneInfo("America/New_York")).isoformat()
    assert job["metadata"]["annotations"][timing.SCHEDULED_TIMESTAMP_ANNOTATION] == local
