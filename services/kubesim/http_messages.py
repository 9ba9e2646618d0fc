"""Requests and responses of kubesim's HTTP/1.1 server (``http_server``).

A request arrives whole (head and body) before its handler runs, so the handler reads the
body without waiting. A handler answers with a ``Response`` (written with a Content-Length),
or takes the connection over with ``Request.stream`` for a chunked stream (a watch) and
answers ``STREAMED``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, unquote


class Headers(dict[str, str]):
    """Request headers by lower-case name; a repeated header's values joined by ", "."""

    def get(self, name: str, default: Any = None) -> Any:
        return dict.get(self, name.lower(), default)


class Query(dict[str, str]):
    """Query parameters: the first value of each name, as aiohttp's ``query.get`` gives it."""

    @classmethod
    def parse(cls, raw: str) -> Query:
        query = cls()
        if raw:
            for name, value in parse_qsl(raw, keep_blank_values=True):
                query.setdefault(name, value)
        return query


class Response:
    """A whole response: status, body, its media type and extra headers."""

    __slots__ = ("body", "content_type", "headers", "status")

    def __init__(
        self, body: bytes = b"", *, status: int = 200, content_type: str = "application/json"
    ) -> None:
        self.body = body
        self.status = status
        self.content_type = content_type
        self.headers: list[tuple[str, str]] = []


class Stream:
    """The body of a chunked response; ``write`` waits while the client reads slowly."""

    def __init__(
        self, write: Callable[[bytes], None], drained: Callable[[], Awaitable[None]]
    ) -> None:
        self._write = write
        self._drained = drained

    async def write(self, data: bytes) -> None:
        if data:
            self._write(b"%x\r\n%b\r\n" % (len(data), data))
            await self._drained()

    async def write_eof(self) -> None:
        self._write(b"0\r\n\r\n")
        await self._drained()


class Request:
    """One parsed request; ``path`` is percent-decoded, ``query`` parsed on first use."""

    __slots__ = ("_query", "_stream", "body", "headers", "method", "path", "raw_query")

    def __init__(
        self,
        method: str,
        target: str,
        headers: Headers,
        body: bytes,
        stream: Callable[[int, str], Stream],
    ) -> None:
        self.method = method
        path, _, self.raw_query = target.partition("?")
        self.path = unquote(path) if "%" in path else path
        self.headers = headers
        self.body = body
        self._query: Query | None = None
        self._stream = stream

    @property
    def query(self) -> Query:
        if self._query is None:
            self._query = Query.parse(self.raw_query)
        return self._query

    @property
    def content_type(self) -> str:
        """The media type without parameters; octet-stream when absent, as aiohttp reports."""
        raw: str = self.headers.get("content-type", "")
        if not raw:
            return "application/octet-stream"
        return raw.partition(";")[0].strip().lower()

    @property
    def has_body(self) -> bool:
        return bool(self.body)

    def stream(self, *, status: int = 200, content_type: str = "application/json") -> Stream:
        """Send the head of a chunked response; the handler then answers ``STREAMED``."""
        return self._stream(status, content_type)


STREAMED: Response = Response(status=0)
"""What a handler returns after streaming its answer with ``Request.stream``."""
