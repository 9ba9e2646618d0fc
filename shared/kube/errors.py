"""Which API call failures are worth retrying: the one classification every service uses.

Transient: 429 TooManyRequests and the 5xx a busy or restarting API server (or a proxy in
front of it) answers, and any connection-level failure (aiohttp, timeouts, sockets). Anything
else (404, 409, 422, ...) is a fact about the request that retrying will not change.
"""

from __future__ import annotations

import aiohttp

from shared.kube.client import ApiError

TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})

# Everything one API call can raise short of a bug: catch this, then ask ``is_transient``.
CALL_ERRORS = (ApiError, aiohttp.ClientError, TimeoutError, OSError)


def is_transient(exc: BaseException) -> bool:
    """Whether retrying the call that raised ``exc`` may succeed."""
    if isinstance(exc, ApiError):
        return exc.status in TRANSIENT_STATUS
    return isinstance(exc, aiohttp.ClientError | TimeoutError | OSError)
