"""Times as the Kubernetes API writes them: RFC 3339 in UTC at second precision with ``Z``
(``metav1.Time``), and Go ``time.Duration`` strings (Volcano's policy timeouts, ages).

Pure functions of the value passed in: the clock belongs to the caller.
"""

from __future__ import annotations

import functools
import time
from datetime import UTC, datetime


def format_rfc3339(seconds: float) -> str:
    """``2024-01-02T03:04:05Z`` for a Unix time (sub-second precision dropped, as the API does)."""
    return _format_second(int(seconds // 1))


@functools.lru_cache(maxsize=4)
def _format_second(whole: int) -> str:
    # Most calls in a burst fall in the same second as the one before: format it once.
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(whole))


def parse_datetime(value: str | None) -> datetime | None:
    """An aware datetime from an RFC 3339 (or ISO 8601) text; one without an offset is UTC, as
    the API server means it. None when absent or unreadable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_rfc3339(value: str | None) -> float | None:
    """A Unix time from an RFC 3339 timestamp; None when absent or unreadable."""
    parsed = parse_datetime(value)
    return None if parsed is None else parsed.timestamp()


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String()`` prints it (``1h2m3s``), whole seconds."""
    total = max(int(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
# Longest first, so "ms" is not read as "m" then "s".
_UNIT_NAMES = ("ns", "us", "µs", "ms", "h", "m", "s")


def parse_go_duration(value: str) -> float | None:
    """Seconds in a Go duration string (``90s``, ``1h30m``, ``2.5m``); None if malformed."""
    text = value.strip()
    if not text:
        return None
    total, number, i = 0.0, "", 0
    while i < len(text):
        ch = text[i]
        if ch.isdigit() or ch == ".":
            number += ch
            i += 1
            continue
        unit = next((u for u in _UNIT_NAMES if text.startswith(u, i)), None)
        if unit is None or not number:
            return None
        total += float(number) * _UNITS[unit]
        number, i = "", i + len(unit)
    return None if number else total
