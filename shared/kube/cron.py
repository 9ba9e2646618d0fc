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


@dataclass(slots=True)
class _Walk:
    """robfig's ``Next`` state: the candidate instant, and whether a field was advanced (the
    first advance resets the smaller fields to their start)."""

    t: int
    loc: tzinfo
    added: bool = False

    @property
    def wall(self) -> datetime:
        return _wall(self.t, self.loc)

    def reset(self, to: int) -> None:
        if not self.added:
            self.added = True
            self.t = to


def _months(s: SpecSchedule, w: _Walk) -> bool:
    while not 1 << w.wall.month & s.month:
        now = w.wall
        w.reset(_date(now.year, now.month, 1, 0, w.loc))
        now = w.wall
        w.t = (
            _date(now.year, now.month + 1, now.day, now.hour, w.loc) + now.minute * 60 + now.second
        )
        if w.wall.month == 1:
            return False
    return True


def _days(s: SpecSchedule, w: _Walk) -> bool:
    while not _day_matches(s, w.wall):
        now = w.wall
        w.reset(_date(now.year, now.month, now.day, 0, w.loc))
        now = w.wall
        w.t = (
            _date(now.year, now.month, now.day + 1, now.hour, w.loc) + now.minute * 60 + now.second
        )
        hour = w.wall.hour
        if hour != 0:  # midnight skipped or doubled by DST
            w.t += (24 - hour) * 3600 if hour > 12 else -hour * 3600
        if w.wall.day == 1:
            return False
    return True


def _hours(s: SpecSchedule, w: _Walk) -> bool:
    while not 1 << w.wall.hour & s.hour:
        now = w.wall
        w.reset(_date(now.year, now.month, now.day, now.hour, w.loc))
        w.t += 3600
        if w.wall.hour == 0:
            return False
    return True


def _minutes(s: SpecSchedule, w: _Walk) -> bool:
    while not 1 << w.wall.minute & s.minute:
        w.reset(w.t - w.t % 60)
        w.t += 60
        if w.wall.minute == 0:
            return False
    return True


def _seconds(s: SpecSchedule, w: _Walk) -> bool:
    while not 1 << w.wall.second & s.second:
        w.reset(w.t)
        w.t += 1
        if w.wall.second == 0:
            return False
    return True


_FIELDS = (_months, _days, _hours, _minutes, _seconds)


def _next(s: SpecSchedule, t: int) -> int:
    """robfig's ``SpecSchedule.Next`` from the upcoming second ``t``: each field advanced until
    it matches; one that rolls over starts the walk again from the month (its ``goto WRAP``).
    0 when nothing matches within five years."""
    walk = _Walk(t, s.location)
    year_limit = walk.wall.year + 5
    while walk.wall.year <= year_limit:
        if all(advance(s, walk) for advance in _FIELDS):
            return walk.t
    return 0


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
