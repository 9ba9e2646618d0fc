"""Timestamps of job reconciles: RFC 3339 in UTC, derived only from the ``now`` passed in."""

from __future__ import annotations

from datetime import UTC, datetime


def rfc3339(seconds: float) -> str:
    """``2024-01-02T03:04:05Z`` for a Unix time (sub-second precision dropped, as the API does)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(value: str | None) -> float | None:
    """A Unix time from an RFC 3339 timestamp; None when absent or unreadable."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


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
        unit = next(
            (u for u in ("ns", "us", "µs", "ms", "h", "m", "s") if text.startswith(u, i)), None
        )
        if unit is None or not number:
            return None
        total += float(number) * _UNITS[unit]
        number, i = "", i + len(unit)
    return None if number else total
