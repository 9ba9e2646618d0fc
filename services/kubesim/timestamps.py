"""RFC 3339 timestamps as the API server writes them (second precision, UTC, ``Z``)."""

from __future__ import annotations

import time


def rfc3339(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
