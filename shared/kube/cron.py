"""Cron schedules as Kubernetes reads them: robfig/cron v3's ``ParseStandard`` and ``Next``.

Kubernetes parses ``spec.schedule`` with ``cron.ParseStandard`` (five fields, the ``@yearly``
… ``@hourly`` descriptors, ``@every <duration>``, an optional ``TZ=``/``CRON_TZ=`` prefix) in
both the API server's validation and the CronJob controller. Written by hand rather than on
croniter because croniter differs from robfig/cron where a manifest can tell: it accepts ``7``
as Sunday (robfig: "end of range (7) above maximum (6)"), has no ``@every``, keeps the star
semantics of ``*/2`` in day-of-month/day-of-week (robfig drops the star bit when a step above 1
is given, which switches the two day fields from AND to OR), walks DST gaps differently, and
its error texts are not robfig's — and the API server's 422 message is robfig's error text.

A schedule's ``next(t)`` takes and returns Unix seconds (whole seconds, as robfig starts at the
upcoming second); a schedule without a zone runs in UTC, the zone of the times Kubernetes passes.
Pure: no clock.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from shared.kube.timefmt import parse_go_duration

STAR_BIT = 1 << 63


class ScheduleError(ValueError):
    """A schedule robfig/cron rejects; the message is robfig's."""


@dataclass(frozen=True, slots=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int] | None = None


_SECONDS = _Bounds(0, 59)
_MINUTES = _Bounds(0, 59)
_HOURS = _Bounds(0, 23)
_DOM = _Bounds(1, 31)
_MONTHS = _Bounds(1, 12, {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_DOW = _Bounds(0, 6, {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6})


class Schedule(Protocol):
    def next(self, t: float) -> float:
        """The first activation strictly after ``t`` (0 when none within five years)."""
        ...


def load_location(name: str) -> tzinfo:
    """Go's ``time.LoadLocation``: "", "UTC" and "Local" are UTC; an unknown name raises
    ``ScheduleError`` with Go's message."""
    if name in ("", "UTC", "Local"):
        return UTC  # Go's Local: the controller's own zone, UTC where Kubernetes runs
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ScheduleError(f"unknown time zone {name}") from None


@dataclass(frozen=True, slots=True)
class ConstantDelaySchedule:
    """``@every <duration>``: ``t`` plus the delay, at whole seconds."""

    delay: int

    def next(self, t: float) -> float:
        return float(int(t // 1) + self.delay)


@dataclass(frozen=True, slots=True)
class SpecSchedule:
    """A crontab schedule as bit sets, one per field (seconds always 0 for the standard parser)."""

    second: int
    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    location: tzinfo = UTC

    def next(self, t: float) -> float:
        return float(_next(self, int(t // 1) + 1))


def _wall(instant: int, loc: tzinfo) -> datetime:
    return datetime.fromtimestamp(instant, loc)


def _date(year: int, month: int, day: int, hour: int, loc: tzinfo) -> int:
    """Go's ``time.Date`` (minutes and seconds 0): the fields normalised, then the instant whose
    wall clock in ``loc`` they are, using the offset in force at that instant."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    day_start = date(year, month, 1) + timedelta(days=day - 1)
    naive = datetime(day_start.year, day_start.month, day_start.day) + timedelta(hours=hour)
    unix = calendar.timegm(naive.timetuple())
    offset = _offset(unix, loc)
    corrected = _offset(unix - offset, loc)
    return unix - corrected


def _offset(instant: int, loc: tzinfo) -> int:
    delta = _wall(instant, loc).utcoffset()
    return int(delta.total_seconds()) if delta is not None else 0


def _day_matches(s: SpecSchedule, w: datetime) -> bool:
    dom_match = bool(1 << w.day & s.dom)
    dow_match = bool(1 << ((w.weekday() + 1) % 7) & s.dow)
    if s.dom & STAR_BIT or s.dow & STAR_BIT:
        return dom_match and dow_match
    return dom_match or dow_match


def _next(s: SpecSchedule, t: int) -> int:
    """robfig's ``SpecSchedule.Next`` from the upcoming second ``t``: one loop per field, each
    wrapping back to the month loop (its ``goto WRAP``) when it rolls over."""
    loc = s.location
    year_limit = _wall(t, loc).year + 5
    added = False
    while True:  # robfig's WRAP label
        w = _wall(t, loc)
        if w.year > year_limit:
            return 0
        wrapped = False
        while not 1 << w.month & s.month:
            if not added:
                added = True
                t = _date(w.year, w.month, 1, 0, loc)
                w = _wall(t, loc)
            t = _date(w.year, w.month + 1, w.day, w.hour, loc) + w.minute * 60 + w.second
            w = _wall(t, loc)
            if w.month == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while not _day_matches(s, w):
            if not added:
                added = True
                t = _date(w.year, w.month, w.day, 0, loc)
                w = _wall(t, loc)
            t = _date(w.year, w.month, w.day + 1, w.hour, loc) + w.minute * 60 + w.second
            w = _wall(t, loc)
            if w.hour != 0:  # midnight skipped or doubled by DST
                t += (24 - w.hour) * 3600 if w.hour > 12 else -w.hour * 3600
                w = _wall(t, loc)
            if w.day == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while not 1 << w.hour & s.hour:
            if not added:
                added = True
                t = _date(w.year, w.month, w.day, w.hour, loc)
            t += 3600
            w = _wall(t, loc)
            if w.hour == 0:
                wrapped = True
                break
        if wrapped:
            continue
        while not 1 << w.minute & s.minute:
            if not added:
                added = True
                t -= t % 60
            t += 60
            w = _wall(t, loc)
            if w.minute == 0:
                wrapped = True
                break
        if wrapped:
            continue
        while not 1 << w.second & s.second:
            if not added:
                added = True
            t += 1
            w = _wall(t, loc)
            if w.second == 0:
                wrapped = True
                break
        if wrapped:
            continue
        return t


def _parse_int(expr: str) -> int:
    try:
        number = int(expr) if expr.strip() == expr and expr else int("x")
    except ValueError:
        raise ScheduleError(
            f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax'
        ) from None
    if number < 0:
        raise ScheduleError(f"negative number ({number}) not allowed: {expr}")
    return number


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _parse_int(expr)


def _bits(low: int, high: int, step: int) -> int:
    return sum(1 << i for i in range(low, high + 1, step))


def _range(expr: str, r: _Bounds) -> int:
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = r.low, r.high, STAR_BIT
    else:
        start = _int_or_name(low_and_high[0], r.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], r.names)
        else:
            raise ScheduleError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _parse_int(range_and_step[1])
        if single:  # "N/step" means "N-max/step"
            end = r.high
        if step > 1:
            extra = 0
    else:
        raise ScheduleError(f"too many slashes: {expr}")
    if start < r.low:
        raise ScheduleError(f"beginning of range ({start}) below minimum ({r.low}): {expr}")
    if end > r.high:
        raise ScheduleError(f"end of range ({end}) above maximum ({r.high}): {expr}")
    if start > end:
        raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise ScheduleError(f"step of range should be a positive number: {expr}")
    return _bits(start, end, step) | extra


def _field(text: str, r: _Bounds) -> int:
    bits = 0
    for expr in (part for part in text.split(",") if part):
        bits |= _range(expr, r)
    return bits


def _all(r: _Bounds) -> int:
    return _bits(r.low, r.high, 1) | STAR_BIT


def _descriptor(spec: str, loc: tzinfo) -> Schedule:
    first = 1
    every_day = _all(_DOM), _all(_MONTHS), _all(_DOW)
    fixed: dict[str, tuple[int, int, int, int, int]] = {
        "@yearly": (first, first, first << 1, first << 1, _all(_DOW)),
        "@annually": (first, first, first << 1, first << 1, _all(_DOW)),
        "@monthly": (first, first, first << 1, _all(_MONTHS), _all(_DOW)),
        "@weekly": (first, first, _all(_DOM), _all(_MONTHS), first),
        "@daily": (first, first, *every_day),
        "@midnight": (first, first, *every_day),
        "@hourly": (first, _all(_HOURS), *every_day),
    }
    if spec in fixed:
        minute, hour, dom, month, dow = fixed[spec]
        return SpecSchedule(
            second=first, minute=minute, hour=hour, dom=dom, month=month, dow=dow, location=loc
        )
    every = "@every "
    if spec.startswith(every):
        text = spec[len(every) :]
        seconds = parse_go_duration(text)
        if seconds is None:
            raise ScheduleError(f'failed to parse duration {spec}: time: invalid duration "{text}"')
        return ConstantDelaySchedule(delay=max(1, int(seconds)))
    raise ScheduleError(f"unrecognized descriptor: {spec}")


def _go_fields(fields: list[str]) -> str:
    return "[" + " ".join(fields) + "]"


def parse_standard(spec: str) -> Schedule:
    """robfig/cron v3 ``ParseStandard``; raises ``ScheduleError`` with robfig's message."""
    if not spec:
        raise ScheduleError("empty spec string")
    loc: tzinfo = UTC
    if spec.startswith(("TZ=", "CRON_TZ=")):
        eq, space = spec.index("="), spec.find(" ")
        name = spec[eq + 1 : space if space >= 0 else len(spec) - 1]
        try:
            loc = load_location(name)
        except ScheduleError as exc:
            raise ScheduleError(f"provided bad location {name}: {exc}") from None
        spec = spec[space:].strip() if space >= 0 else ""
    if spec.startswith("@"):
        return _descriptor(spec, loc)
    fields = spec.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: {_go_fields(fields)}")
    return SpecSchedule(
        second=1,
        minute=_field(fields[0], _MINUTES),
        hour=_field(fields[1], _HOURS),
        dom=_field(fields[2], _DOM),
        month=_field(fields[3], _MONTHS),
        dow=_field(fields[4], _DOW),
        location=loc,
    )
