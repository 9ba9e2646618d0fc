"""robfig/cron ``spec_test.go`` (``TestActivation``, ``TestNext``), ported to the standard
parser Kubernetes uses: each row's six-field spec without its seconds field (``0`` in every
row kept), its time read as upstream's ``getTime`` reads it. Rows whose seconds field is not 0
need robfig's seconds parser, which Kubernetes never uses. Two rows follow v3's rule that a
step above 1 drops a field's star (so the day fields are OR-ed): ``*/10`` and ``*/5`` in
day-of-month. Also ``ParseStandard``'s errors, with robfig v3's messages (they reach users as
kube-apiserver's 422 on ``spec.schedule``)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from shared.kube.cron import ScheduleError, parse_standard

NEW_YORK = ZoneInfo("America/New_York")


def get_time(value: str) -> float:
    """``getTime``: ``Mon Jan 2 15:04[:05] 2006`` in UTC, or an offset time in New York."""
    if not value:
        return 0.0
    for layout in ("%a %b %d %H:%M %Y", "%a %b %d %H:%M:%S %Y"):
        try:
            return datetime.strptime(value, layout).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").timestamp()


ACTIVATION = [
    # Every fifteen minutes.
    ("Mon Jul 9 15:00 2012", "0/15 * * * *", True),
    ("Mon Jul 9 15:45 2012", "0/15 * * * *", True),
    ("Mon Jul 9 15:40 2012", "0/15 * * * *", False),
    # Every fifteen minutes, starting at 5 minutes.
    ("Mon Jul 9 15:05 2012", "5/15 * * * *", True),
    ("Mon Jul 9 15:20 2012", "5/15 * * * *", True),
    ("Mon Jul 9 15:50 2012", "5/15 * * * *", True),
    # Named months
    ("Sun Jul 15 15:00 2012", "0/15 * * Jul *", True),
    ("Sun Jul 15 15:00 2012", "0/15 * * Jun *", False),
    # Everything set.
    ("Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", True),
    ("Sun Jul 15 08:30 2012", "30 08 15 Jul ?", True),
    ("Mon Jul 16 08:30 2012", "30 08 ? Jul Sun", False),
    ("Mon Jul 16 08:30 2012", "30 08 15 Jul ?", False),
    # Predefined schedules
    ("Mon Jul 9 15:00 2012", "@hourly", True),
    ("Mon Jul 9 15:04 2012", "@hourly", False),
    ("Mon Jul 9 15:00 2012", "@daily", False),
    ("Mon Jul 9 00:00 2012", "@daily", True),
    ("Mon Jul 9 00:00 2012", "@weekly", False),
    ("Sun Jul 8 00:00 2012", "@weekly", True),
    ("Sun Jul 8 01:00 2012", "@weekly", False),
    ("Sun Jul 8 00:00 2012", "@monthly", False),
    ("Sun Jul 1 00:00 2012", "@monthly", True),
    # If both DOW and DOM are specified, then only one needs to match.
    ("Sun Jul 15 00:00 2012", "* * 1,15 * Sun", True),
    ("Fri Jun 15 00:00 2012", "* * 1,15 * Sun", True),
    ("Wed Aug 1 00:00 2012", "* * 1,15 * Sun", True),
    # However, if one has a star, then both need to match.
    ("Sun Jul 15 00:00 2012", "* * * * Mon", False),
    ("Sun Jul 15 00:00 2012", "* * */10 * Sun", True),  # v3: */10 has no star
    ("Mon Jul 9 00:00 2012", "* * 1,15 * *", False),
    ("Sun Jul 15 00:00 2012", "* * 1,15 * *", True),
    ("Sun Jul 15 00:00 2012", "* * */2 * Sun", True),
]


@pytest.mark.parametrize(
    ("at", "spec", "expected"), ACTIVATION, ids=[f"{a}|{s}" for a, s, _ in ACTIVATION]
)
def test_activation(at: str, spec: str, expected: bool) -> None:
    t = get_time(at)
    assert (parse_standard(spec).next(t - 1) == t) == expected


NEXT = [
    # Simple cases
    ("Mon Jul 9 14:45 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"),
    # Wrap around hours
    ("Mon Jul 9 15:45 2012", "20-35/15 * * * *", "Mon Jul 9 16:20 2012"),
    # Wrap around days
    ("Mon Jul 9 23:46 2012", "*/15 * * * *", "Tue Jul 10 00:00 2012"),
    ("Mon Jul 9 23:45 2012", "20-35/15 * * * *", "Tue Jul 10 00:20 2012"),
    # Wrap around months
    ("Mon Jul 9 23:35 2012", "0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 */5 Apr,Aug,Oct Mon", "Wed Aug 1 00:00 2012"),  # v3: OR
    ("Mon Jul 9 23:35 2012", "0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"),
    # Wrap around years
    ("Mon Jul 9 23:35 2012", "0 0 * Feb Mon", "Mon Feb 4 00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"),
    # Wrap around minute, hour, day, month, and year
    ("Mon Dec 31 23:59:45 2012", "* * * * *", "Tue Jan 1 00:00:00 2013"),
    # Leap year
    ("Mon Jul 9 23:35 2012", "0 0 29 Feb ?", "Mon Feb 29 00:00 2016"),
    # Daylight savings time EST -> EDT
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 30 2 11 Mar ?", "2013-03-11T02:30:00-0400"),
    # Daylight savings time EDT -> EST
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 30 2 04 Nov ?", "2012-11-04T02:30:00-0500"),
    ("2012-11-04T01:45:00-0400", "TZ=America/New_York 30 1 04 Nov ?", "2012-11-04T01:30:00-0500"),
    # Unsatisfiable
    ("Mon Jul 9 23:35 2012", "0 0 30 Feb ?", ""),
    ("Mon Jul 9 23:35 2012", "0 0 31 Apr ?", ""),
]


@pytest.mark.parametrize(("at", "spec", "expected"), NEXT, ids=[f"{a}|{s}" for a, s, _ in NEXT])
def test_next(at: str, spec: str, expected: str) -> None:
    assert parse_standard(spec).next(get_time(at)) == get_time(expected)


ERRORS = [
    ("", "empty spec string"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
    ("* * * * 7", "end of range (7) above maximum (6): 7"),
    ("60 * * * *", "end of range (60) above maximum (59): 60"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/2/3 * * * *", "too many slashes: */2/3"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
    ("@every 1x", 'failed to parse duration @every 1x: time: invalid duration "1x"'),
    (
        "TZ=Nowhere/Land * * * * *",
        "provided bad location Nowhere/Land: unknown time zone Nowhere/Land",
    ),
]


@pytest.mark.parametrize(("spec", "message"), ERRORS, ids=[e[0] or "empty" for e in ERRORS])
def test_parse_standard_errors(spec: str, message: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_standard(spec)
    assert str(caught.value) == message


def test_every_is_a_constant_delay_from_the_given_time() -> None:
    """``@every``: ``t`` plus the delay at whole seconds (``ConstantDelaySchedule.Next``)."""
    t = get_time("Mon Jul 9 14:45:30 2012") + 0.25
    assert parse_standard("@every 90m").next(t) == get_time("Mon Jul 9 16:15:30 2012")


def test_time_zone_prefix_schedules_in_that_zone() -> None:
    """``CRON_TZ=`` as ``TZ=``: 9:00 in New York is 13:00 UTC in summer."""
    t = datetime(2016, 5, 19, 10, 0, tzinfo=UTC).timestamp()
    got = parse_standard("CRON_TZ=America/New_York 0 9 * * *").next(t)
    assert datetime.fromtimestamp(got, NEW_YORK).isoformat() == "2016-05-19T09:00:00-04:00"
