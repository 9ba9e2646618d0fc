"""Warnings for the client, sent as ``Warning: 299 - "<text>"`` headers (as the API server does
for deprecated versions and admission warnings); collected per request in a context variable."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_WARNINGS: ContextVar[list[str] | None] = ContextVar("kubesim_warnings", default=None)


def warn(text: str) -> None:
    """Add a warning to the current request's response (ignored outside a request)."""
    collected = _WARNINGS.get()
    if collected is not None and text not in collected:
        collected.append(text)


@contextmanager
def collecting() -> Iterator[list[str]]:
    collected: list[str] = []
    token = _WARNINGS.set(collected)
    try:
        yield collected
    finally:
        _WARNINGS.reset(token)


def header_value(text: str) -> str:
    """RFC 7234 warn-value with the API server's code 299 and no agent."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'
