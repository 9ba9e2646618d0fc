"""Ported from kubernetes pkg/apis/batch/validation/validation_test.go: ``TestValidateCronJob``,
``TestValidateCronJobScheduleTZ`` and ``TestValidateCronJobSpec`` (row ids are upstream's case
names). As upstream, the CronJob is validated as given, without defaults; an error row's name
is ``<field>:<text>`` and the first error must be on that field and contain that text. Also
kubesim's CronJob defaults and printer row."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from services.kubesim import tables
from services.kubesim.cronjob_validation import (
    validate_cron_job,
    validate_job_template,
    validate_time_zone,
)
from services.kubesim.defaulting import apply_defaults, decode_defaults
from services.kubesim.registry import Registry
from shared.kube.fielderrors import Cause

Obj = dict[str, Any]
ABC = {"name": "abc", "image": "image", "imagePullPolicy": "IfNotPresent",
       "terminationMessagePolicy": "File"}  # fmt: skip
VALID_POD_TEMPLATE = {"spec": {"restartPolicy": "OnFailure", "dnsPolicy": "ClusterFirst",
                               "containers": [ABC]}}  # fmt: skip
HOSTNET_POD_TEMPLATE = {
    "spec": {
        "restartPolicy": "OnFailure",
        "dnsPolicy": "ClusterFirst",
        "hostNetwork": True,
        "containers": [{**ABC, "ports": [{"containerPort": 12345, "protocol": "TCP"}]}],
    }
}


def cron_job(name: str = "mycronjob", template: Obj | None = None, **spec: Any) -> Obj:
    job_spec = {"template": template or VALID_POD_TEMPLATE, **spec.pop("job", {})}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": "default", "uid": "1a2b3c"},
        "spec": {
            "schedule": "* * * * ?",
            "concurrencyPolicy": "Allow",
            "jobTemplate": {"spec": job_spec},
            **spec,
        },
    }


def validate(obj: Obj, old: Obj | None = None) -> list[Cause]:
    """``ValidateCronJobCreate`` (``old`` None) or ``ValidateCronJobUpdate``."""
    return validate_cron_job(obj, old) + validate_job_template(obj)


SUCCESS = {
    "basic scheduled job": cron_job(),
    "hostnet job": cron_job(template=HOSTNET_POD_TEMPLATE),
    "non-standard scheduled": cron_job(schedule="@hourly"),
    "correct timeZone value": cron_job(schedule="0 * * * *", timeZone="Europe/Rome"),
}


@pytest.mark.parametrize("obj", SUCCESS.values(), ids=SUCCESS.keys())
def test_validate_cron_job_success(obj: Obj) -> None:
    assert validate(obj) == []
    assert validate(obj, copy.deepcopy(obj)) == []


ERRORS = {
    "spec.schedule: Invalid value": cron_job(schedule="error"),
    "spec.schedule: Required value": cron_job(schedule=""),
    "spec.timeZone: timeZone must be nil or non-empty string": cron_job(
        schedule="0 * * * *", timeZone=""
    ),
    "spec.timeZone: timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones": cron_job(  # noqa: E501
        schedule="0 * * * *", timeZone="LOCAL"
    ),
    'spec.timeZone: Invalid value: " Continent/Zone": unknown time zone  Continent/Zone': cron_job(
        schedule="0 * * * *", timeZone=" Europe/Rome"
    ),
    'spec.timeZone: Invalid value: "Continent/InvalidZone": unknown time zone  Continent/InvalidZone': cron_job(  # noqa: E501
        schedule="0 * * * *", timeZone="Europe/InvalidRome"
    ),
    'spec.timeZone: Invalid value: " ": unknown time zone  ': cron_job(
        schedule="0 * * * *", timeZone=" "
    ),
    'spec.timeZone: Invalid value: "Continent/Zone ": unknown time zone Continent/Zone ': cron_job(
        schedule="0 * * * *", timeZone="Europe/Rome "
    ),
    "spec.startingDeadlineSeconds:must be greater than or equal to 0": cron_job(
        startingDeadlineSeconds=-1
    ),
    "spec.successfulJobsHistoryLimit: must be greater than or equal to 0": cron_job(
        successfulJobsHistoryLimit=-1
    ),
    "spec.failedJobsHistoryLimit: must be greater than or equal to 0": cron_job(
        failedJobsHistoryLimit=-1
    ),
    "spec.concurrencyPolicy: Required value": cron_job(concurrencyPolicy=""),
    "spec.jobTemplate.spec.parallelism:must be greater than or equal to 0": cron_job(
        job={"parallelism": -1}
    ),
    "spec.jobTemplate.spec.completions:must be greater than or equal to 0": cron_job(
        job={"completions": -1}
    ),
    "spec.jobTemplate.spec.activeDeadlineSeconds:must be greater than or equal to 0": cron_job(
        job={"activeDeadlineSeconds": -1}
    ),
    'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated': cron_job(  # noqa: E501
        job={"selector": {"matchLabels": {"a": "b"}}}
    ),
    "metadata.name: must be no more than 52 characters": cron_job(
        "10000000002000000000300000000040000000005000000000123"
    ),
    "spec.jobTemplate.spec.manualSelector: Unsupported value": cron_job(
        job={"manualSelector": True}
    ),
    "spec.jobTemplate.spec.template.spec.restartPolicy: Required value": cron_job(
        template={"spec": {"restartPolicy": "Always", "containers": [ABC]}}
    ),
    "spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value": cron_job(
        template={"spec": {"restartPolicy": "Invalid", "containers": [ABC]}}
    ),
    "spec.jobTemplate.spec.ttlSecondsAfterFinished:must be greater than or equal to 0": cron_job(
        job={"ttlSecondsAfterFinished": -1}
    ),
}


def _first_matches(causes: list[Cause], case: str) -> None:
    field, text = case.split(":")[:2]
    assert causes, f"expected failure for {case}"
    got_field, _, body = causes[0]
    assert got_field == field, causes
    assert text.strip() in f"{got_field}: {body}", causes


@pytest.mark.parametrize(("case", "obj"), ERRORS.items(), ids=ERRORS.keys())
def test_validate_cron_job_errors(case: str, obj: Obj) -> None:
    _first_matches(validate(obj), case)
    # An update fails every case but the 52-character name (old CronJobs keep their names).
    old = copy.deepcopy(obj)
    old["spec"].pop("timeZone", None)
    causes = validate(copy.deepcopy(obj), old)
    if case.startswith("metadata.name"):
        assert causes == []
    else:
        _first_matches(causes, case)


VALID_TZ, INVALID_TZ = "0 * * * *", "TZ=UTC 0 * * * *"
SCHEDULE_TZ = [
    ("update removing TZ should work", INVALID_TZ, "cannot use TZ or CRON_TZ in schedule",
     {"schedule": VALID_TZ}, ""),
    ("update not modifying TZ should work", INVALID_TZ,
     "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
     {"schedule": INVALID_TZ}, ""),
    ("update not modifying TZ but adding .spec.timeZone should fail", INVALID_TZ,
     "cannot use TZ or CRON_TZ in schedule, use timeZone field instead", {"timeZone": "UTC"},
     "cannot use both timeZone field and TZ or CRON_TZ in schedule"),
    ("update adding TZ should fail", VALID_TZ, "", {"schedule": INVALID_TZ},
     "cannot use TZ or CRON_TZ in schedule"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("schedule", "create_err", "update", "update_err"),
    [r[1:] for r in SCHEDULE_TZ],
    ids=[r[0] for r in SCHEDULE_TZ],
)
def test_validate_cron_job_schedule_tz(
    schedule: str, create_err: str, update: Obj, update_err: str
) -> None:
    old = cron_job(schedule=schedule)
    causes = validate(old)
    assert (create_err in causes[0][2]) if create_err else causes == []
    new = copy.deepcopy(old)
    new["spec"].update(update)
    causes = validate(new, old)
    assert (update_err in causes[0][2]) if update_err else causes == []


SPEC_ROWS = [
    ("no validation because timeZone is nil for old and new", None, None, False),
    ("check validation because timeZone is different for new", None, "America/New_York", False),
    ("check validation because timeZone is different for new and invalid", None, "broken", True),
    ("old timeZone and new timeZone are valid", "America/New_York", "America/Chicago", False),
    ("old timeZone is valid, but new timeZone is invalid", "America/New_York", "broken", True),
    ("old timeZone and new timeZone are invalid, but unchanged", "broken", "broken", False),
    ("old timeZone and new timeZone are invalid, but different", "broken", "still broken", True),
    ("old timeZone is invalid, but new timeZone is valid", "broken", "America/New_York", False),
]


@pytest.mark.parametrize(
    ("old_zone", "new_zone", "expect_err"),
    [r[1:] for r in SPEC_ROWS],
    ids=[r[0] for r in SPEC_ROWS],
)
def test_validate_cron_job_spec(
    old_zone: str | None, new_zone: str | None, expect_err: bool
) -> None:
    old = cron_job(schedule="0 * * * *", timeZone=old_zone)
    new = cron_job(schedule="0 * * * *", timeZone=new_zone)
    assert bool(validate_cron_job(new, old)) == expect_err


def test_unknown_zone_message_is_go_load_location_s() -> None:
    """A well-formed name Go's tz database lacks: ``time.LoadLocation``'s error."""
    ((field, _, body),) = validate_time_zone("Europe/InvalidRome")
    assert (field, body) == (
        "spec.timeZone",
        'Invalid value: "Europe/InvalidRome": unknown time zone Europe/InvalidRome',
    )


def test_defaults_as_set_defaults_cron_job() -> None:
    obj = cron_job()
    del obj["spec"]["concurrencyPolicy"]
    decode_defaults("batch/v1", "CronJob", obj)
    apply_defaults("batch/v1", "CronJob", obj, uid="1a2b3c", has_status=True)
    spec = obj["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"]) == ("Allow", False)
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (3, 1)
    assert spec["jobTemplate"]["spec"]["template"]["spec"]["schedulerName"] == "default-scheduler"


def test_printer_row_is_print_cron_job_s() -> None:
    rtype = Registry().by_kind("batch/v1", "CronJob")
    assert rtype is not None
    obj = cron_job(timeZone="Europe/Rome", suspend=False)
    obj["metadata"]["creationTimestamp"] = "2016-05-19T10:00:00Z"
    obj["status"] = {"active": [{"name": "a"}], "lastScheduleTime": "2016-05-19T10:01:00Z"}
    names = [c["name"] for c in tables.columns(rtype) if c["priority"] == 0]
    assert names == ["Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age"]
    now = 1463652120.0  # 2016-05-19T10:02:00Z
    row = tables.table(rtype, [obj], "1", now)["rows"][0]["cells"]
    assert row[:7] == ["mycronjob", "* * * * ?", "Europe/Rome", "False", 1, "60s", "2m"]
