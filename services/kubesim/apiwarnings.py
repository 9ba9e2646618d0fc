"""Warnings for the client, sent as ``Warning: 299 - "<text>"`` headers (as the API server does
for deprecated versions and admission warnings); collected per request in a context variable."""

from __future__ import annotations

from contextvars import ContextVar, Token
from types import TracebackType

_WARNINGS: ContextVar[list[str] | None] = ContextVar("kubesim_warnings", default=None)


def warn(text: str) -> None:
    """Add a warning to the current request's response (ignored outside a request)."""
    collected = _WARNINGS.get()
    if collected is not None and text not in collected:
        collected.append(text)


class Collecting:
    """``with Collecting() as warnings:`` — the warnings raised within (every API request pays
    for one, so a plain class rather than a generator-based context manager)."""

    __slots__ = ("_token",)

    def __enter__(self) -> list[str]:
        collected: list[str] = []
        self._token: Token[list[str] | None] = _WARNINGS.set(collected)
        return collected

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _WARNINGS.reset(self._token)


def header_value(text: str) -> str:
    """RFC 7234 warn-value with the API server's code 299 and no agent."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'
