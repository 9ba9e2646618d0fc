"""Requests and responses of kubesim's HTTP/1.1 server (``http_server``), and reading a
request's head (``parse_head``, strict: a malformed line is ``BadRequest``).

A request arrives whole (head and body) before its handler runs, so the handler reads the
body without waiting. A handler answers with a ``Response`` (written with a Content-Length),
or takes the connection over with ``Request.stream`` for a chunked stream (a watch) and
answers ``STREAMED``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple
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


# kube-apiserver's MaxRequestBodyBytes (bodies.py reads the same limit); the server buffers no
# more than this of any request.
MAX_BODY = 3 * 1024 * 1024


def too_large_message(limit: int) -> str:
    """kube-apiserver's ``NewRequestEntityTooLargeError`` message."""
    return f"Request entity too large: limit is {limit}"


class BadRequest(Exception):
    """A request that cannot be read: answered with 400 (or ``status``) and a close."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Head(NamedTuple):
    """A request's line and headers, and how its body and the connection go on."""

    method: str
    target: str
    headers: Headers
    length: int  # of the body, unless chunked
    chunked: bool
    expects_continue: bool
    keep_alive: bool


def parse_head(raw: bytes, *, max_body: int = MAX_BODY) -> Head:
    """The request line and headers (without the blank line that ends them); BadRequest when
    they cannot be read, 413 for a Content-Length over ``max_body``."""
    lines = raw.decode("latin-1").lstrip("\r\n").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.1", "HTTP/1.0") or not parts[0]:
        raise BadRequest(f"not an HTTP/1.x request line: {lines[0][:80]!r}")
    headers = Headers()
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or " " in name or "\t" in name:
            raise BadRequest(f"malformed header line: {line[:80]!r}")
        key = name.lower()
        if key in headers:
            headers[key] = f"{headers[key]}, {value.strip()}"
        else:
            headers[key] = value.strip()
    length = 0
    chunked = "transfer-encoding" in headers
    if chunked:
        if headers["transfer-encoding"].lower().rsplit(",", 1)[-1].strip() != "chunked":
            raise BadRequest("unsupported Transfer-Encoding", 501)
        if "content-length" in headers:
            raise BadRequest("both Content-Length and Transfer-Encoding")
    elif "content-length" in headers:
        raw_length = headers["content-length"]
        if not raw_length.isdigit():
            raise BadRequest("invalid Content-Length")
        length = int(raw_length)
        if length > max_body:
            raise BadRequest(too_large_message(max_body), 413)
    connection = headers.get("connection", "").lower()
    # HTTP/1.1 keeps the connection unless told not to; HTTP/1.0 closes it unless asked.
    keep_alive = "keep-alive" in connection if parts[2] == "HTTP/1.0" else "close" not in connection
    expects = headers.get("expect", "").lower() == "100-continue"
    return Head(parts[0], parts[1], headers, length, chunked, expects, keep_alive)


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
        self,
        write: Callable[[bytes], None],
        drained: Callable[[], Awaitable[None]],
        abort_if_stalled: Callable[[], None] = lambda: None,
    ) -> None:
        self._write = write
        self._drained = drained
        # Close the connection if the client has stopped taking what was written (a write
        # waits for it): nothing more can reach that client, and the wait holds the memory.
        self.abort_if_stalled = abort_if_stalled

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
