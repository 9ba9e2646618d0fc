"""kubesim's HTTP/1.1 server: keep-alive connections, one request at a time each.

During a burst the API server answers ~33,000 small requests per 10,000 pods, and aiohttp's
server spent about as much CPU per request as kubesim's handlers (a request object, a
StreamReader and a task each, header multidicts, URL objects, response preparation). This
server speaks what API clients send — kubectl (Go's net/http), kubernetes_asyncio (aiohttp's
client), Shoal's lean pool (``shared.kube.transport``): requests with a Content-Length or
chunked body, ``Expect: 100-continue``, keep-alive and pipelining; responses with a
Content-Length, or chunked for a watch. A malformed request gets 400 and the connection is
closed. A handler runs at once in ``data_received``; only one that suspends (a watch, an
injected latency) becomes a task.

A client cannot hold the server's resources (``ServerLimits``, kube-apiserver's values where it
has one): a request head must arrive whole within ``read_header_timeout`` and within
``max_header_bytes`` (counted in one read and across reads: 431), a keep-alive connection waits
``idle_timeout`` for its next request, a body (Content-Length or chunked, each chunk checked
on its size line before its data is read) stays within ``max_body_bytes`` (413), and beyond
``max_connections`` a new connection is closed at once. Timeouts close the connection without
an answer, as Go's server does; an error answer is followed by a
half-close and 0.5 s of reading (Go's lingering close) so that the client gets to read it.

Why by hand: parsing a typical kubernetes_asyncio create (6 headers, a 500-byte body) into
what a handler gets took 5.5-6.1 us here and 6.7-7.3 us with aiohttp's C parser (llhttp,
``aiohttp._http_parser.HttpRequestParser``, already a dependency; best of 5 x 50,000 on the
shared 2-core machine) — and that parser feeds aiohttp's ``StreamReader`` per request, the
per-request objects that moved kubesim off aiohttp's server. It gives header-size limits, not
the deadlines and the connection cap, which live in the server either way: here they are a
few comparisons on paths that already exist and a sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from typing import Any, cast

from services.kubesim.http_messages import (
    MAX_BODY,
    STREAMED,
    BadRequest,
    Head,
    Request,
    Response,
    Stream,
    parse_head,
    too_large_message,
)
from shared.kube.chunked import ChunkedBody, ChunkedError

Handler = Callable[[Request], Coroutine[Any, Any, Response]]

_LINGER = 0.5  # seconds an error answer waits before the close (Go's rstAvoidanceDelay)
_MAX_PENDING = 1024 * 1024  # bytes read ahead of the request in hand before reading pauses
_log = logging.getLogger(__name__)
_REASONS = {status.value: status.phrase.encode() for status in HTTPStatus}


@dataclass(frozen=True, kw_only=True)
class ServerLimits:
    """What one client may hold; defaults from kube-apiserver's ``http.Server``
    (``staging/src/k8s.io/apiserver/pkg/server/secure_serving.go``) where it sets one."""

    # Seconds from a connection's start, or from the first byte of a later request, until its
    # head is whole; then the connection is closed (ReadHeaderTimeout: 32 s).
    read_header_timeout: float = 32.0
    # Seconds an idle keep-alive connection waits for its next request (IdleTimeout: 90 s).
    idle_timeout: float = 90.0
    # Bytes of a request line and headers; more is 431 (MaxHeaderBytes: 1 << 20).
    max_header_bytes: int = 1 << 20
    # Bytes of a request body; more is 413 (the API server's MaxRequestBodyBytes: 3 MiB).
    max_body_bytes: int = MAX_BODY
    # Open connections; one more is closed at once. Neither Go nor kube-apiserver caps them
    # (the process's file limit does); 4,096 bounds kubesim's memory well above the
    # connections a local stack opens (~50) and 300 watchers.
    max_connections: int = 4096


class _Date:
    """The Date header, formatted once a second."""

    def __init__(self) -> None:
        self._second = -1
        self._value = b""

    def header(self) -> bytes:
        now = int(time.time())
        if now != self._second:
            self._second = now
            self._value = b"Date: " + formatdate(now, usegmt=True).encode() + b"\r\n"
        return self._value


class _Resumed:
    """The rest of a coroutine that already ran up to its first suspension, as an awaitable
    (so a handler that finishes at once never costs a task)."""

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, Response], first: Any) -> None:
        self._coro = coro
        self._first = first

    def __await__(self) -> Generator[Any, Any, Response]:
        coro, yielded = self._coro, self._first
        while True:
            sent: Any = None
            error: BaseException | None = None
            try:
                sent = yield yielded
            except BaseException as exc:  # cancellation and the like go to the handler
                error = exc
            try:
                yielded = coro.throw(error) if error is not None else coro.send(sent)
            except StopIteration as stop:
                return cast(Response, stop.value)


async def _finish(rest: _Resumed) -> Response:
    return await rest


class _Connection(asyncio.Protocol):
    """One client connection: parse, dispatch, answer, next."""

    def __init__(self, server: HttpServer) -> None:
        self._server = server
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._head: Head | None = None
        self._chunks = ChunkedBody(max_size=server.limits.max_body_bytes)
        self._continued = False
        self._busy = False
        self._keep_alive = True
        self._streaming = False
        self._task: asyncio.Task[Response] | None = None
        self._write_paused = False
        self._drain: asyncio.Future[None] | None = None
        self.closed = False
        self.last_active = 0.0
        self._reading_paused = False
        self._failed = False
        # Set by the server's sweep: since when a head is being waited for (None: not now).
        self.head_since: float | None = None
        self.fresh = True  # no request served yet: its head is due from the connection's start
        self._scanned = 0  # bytes of the buffer already searched for the end of the head

    # ---- transport callbacks ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses
        if len(self._server.connections) >= self._server.limits.max_connections:
            self._transport.abort()
            return
        self._server.connections.add(self)
        self.last_active = self.head_since = self._server.now()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._server.connections.discard(self)
        self._wake_drain()
        if self._streaming and self._task is not None:
            self._task.cancel()  # a watch of a client that left: stop it now

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        self._wake_drain()

    def data_received(self, data: bytes) -> None:
        if self._failed:
            return  # the rest of a refused request, read and dropped until the close
        self.last_active = self._server.now()
        if not self._buffer and not self._busy and self._head is None:
            try:
                data = self._serve_in_place(data)
            except BadRequest as exc:
                self._fail(exc)
                return
            if not data and self._head is None:
                return  # (a head whose body is still to come goes on: it may want a 100)
        self._buffer += data
        if not self._busy:
            self._serve_buffered()
        elif len(self._buffer) > _MAX_PENDING and self._transport is not None:
            self._reading_paused = True  # a client pipelining far ahead: let TCP hold it
            self._transport.pause_reading()

    # ---- requests -----------------------------------------------------------------------------

    def _serve_in_place(self, data: bytes) -> bytes:
        """The usual case, one whole request in one read: serve it without copying it into the
        buffer. What is left for the buffer."""
        end = data.find(b"\r\n\r\n")
        limit = self._server.limits.max_header_bytes
        if end < 0:
            if len(data) > limit:
                raise BadRequest("request headers too large", 431)
            return data
        if end > limit:
            raise BadRequest("request headers too large", 431)
        head = self._read_head(data[:end])
        start = end + 4
        if head.chunked or len(data) - start < head.length:
            self._head = head
            return data[start:]
        stop = start + head.length
        body = data[start:stop]
        self._dispatch(Request(head.method, head.target, head.headers, body, self._stream))
        return data[stop:]

    def _serve_buffered(self) -> None:
        while not self._busy and not self.closed:
            try:
                request = self._parse()
            except BadRequest as exc:
                self._fail(exc)
                return
            if request is None:
                return
            self._dispatch(request)

    def _dispatch(self, request: Request) -> None:
        self._busy = True
        coro = self._server.handler(request)
        # The handler's own context, kept by the task if it suspends (context variables set
        # before the suspension are still there after it).
        context = contextvars.copy_context()
        try:
            yielded = context.run(coro.send, None)
        except StopIteration as stop:
            self._answer(request, stop.value)
            return
        except Exception:
            _log.exception("handler failed: %s %s", request.method, request.path)
            self._answer(request, _internal_error())
            return
        task = asyncio.get_running_loop().create_task(
            _finish(_Resumed(coro, yielded)), context=context
        )
        self._task = task
        self._server.tasks.add(task)
        task.add_done_callback(lambda done: self._task_done(request, done))

    def _task_done(self, request: Request, task: asyncio.Task[Response]) -> None:
        self._server.tasks.discard(task)
        self._task = None
        if task.cancelled():
            self.close()
            return
        error = task.exception()
        if error is not None:
            if not isinstance(error, ConnectionError):
                _log.error("handler failed: %s %s", request.method, request.path, exc_info=error)
            response = _internal_error()
        else:
            response = task.result()
        self._answer(request, response)
        self._serve_buffered()

    def _answer(self, request: Request, response: Response) -> None:
        self._busy = False
        self.fresh = False
        self.last_active = self._server.now()
        if self._reading_paused and self._transport is not None:
            self._reading_paused = False
            self._transport.resume_reading()
        self._streaming = False
        if self.closed or self._transport is None:
            return
        if response is not STREAMED:
            head = [
                b"HTTP/1.1 %d %b\r\n" % (response.status, _REASONS.get(response.status, b"")),
                self._server.date.header(),
                b"Content-Type: %b\r\nContent-Length: %d\r\n"
                % (response.content_type.encode(), len(response.body)),
            ]
            head += [f"{name}: {value}\r\n".encode() for name, value in response.headers]
            if not self._keep_alive:
                head.append(b"Connection: close\r\n")
            head.append(b"\r\n")
            if request.method != "HEAD":
                head.append(response.body)
            self._transport.write(b"".join(head))
        if not self._keep_alive:
            self.close()

    def _stream(self, status: int, content_type: str) -> Stream:
        assert self._transport is not None
        self._streaming = True
        head = b"HTTP/1.1 %d %b\r\n%bContent-Type: %b\r\nTransfer-Encoding: chunked\r\n" % (
            status,
            _REASONS.get(status, b""),
            self._server.date.header(),
            content_type.encode(),
        )
        if not self._keep_alive:
            head += b"Connection: close\r\n"
        self._write(head + b"\r\n")
        return Stream(self._write, self._drained, self._abort_if_stalled)

    def _abort_if_stalled(self) -> None:
        if self._write_paused and self._transport is not None:
            self._transport.abort()

    def _write(self, data: bytes) -> None:
        if self.closed or self._transport is None:
            raise ConnectionResetError("the client closed the connection")
        self._transport.write(data)

    async def _drained(self) -> None:
        if self.closed:
            raise ConnectionResetError("the client closed the connection")
        if self._write_paused:
            self._drain = asyncio.get_running_loop().create_future()
            await self._drain
            if self.closed:
                raise ConnectionResetError("the client closed the connection")

    def _wake_drain(self) -> None:
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        self._drain = None

    def _fail(self, exc: BadRequest) -> None:
        if self._transport is not None and not self.closed:
            body, media = str(exc).encode(), b"text/plain; charset=utf-8"
            if exc.status == 413:  # the API server's Status, as its body reader answers
                body, media = _too_large(self._server.limits.max_body_bytes), b"application/json"
            self._transport.write(
                b"HTTP/1.1 %d %b\r\nContent-Type: %b\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%b"
                % (exc.status, _REASONS.get(exc.status, b""), media, len(body), body)
            )
            self._linger()
            return
        self.close()

    def _linger(self) -> None:
        """Close after an error answer without losing it: a close with unread bytes would
        reset the connection and the client's kernel would drop the answer. As Go's
        ``closeWriteAndWait``: send FIN, read and drop for ``_LINGER`` seconds, then close."""
        assert self._transport is not None
        self._failed = True
        self._buffer.clear()
        if self._reading_paused:
            self._reading_paused = False
            self._transport.resume_reading()
        if self._transport.can_write_eof():
            self._transport.write_eof()
        asyncio.get_running_loop().call_later(_LINGER, self.close)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    @property
    def idle(self) -> bool:
        return not self._busy

    @property
    def awaiting_head(self) -> bool:
        """Between requests with part of the next head in (or none yet, on a new connection)."""
        return not self._busy and self._head is None and (bool(self._buffer) or self.fresh)

    def cancel_stream(self) -> None:
        if self._streaming and self._task is not None:
            self._task.cancel()

    # ---- parsing ------------------------------------------------------------------------------

    def _parse(self) -> Request | None:
        buffer = self._buffer
        if self._head is None:
            limit = self._server.limits.max_header_bytes
            end = buffer.find(b"\r\n\r\n", max(0, self._scanned - 3))
            if end < 0:
                self._scanned = len(buffer)
                if len(buffer) > limit:
                    raise BadRequest("request headers too large", 431)
                return None
            if end > limit:
                raise BadRequest("request headers too large", 431)
            self._scanned = 0
            self._head = self._read_head(bytes(buffer[:end]))
            del buffer[: end + 4]
        head = self._head
        if head.chunked:
            body = self._read_chunks()
        elif len(buffer) >= head.length:
            body = bytes(buffer[: head.length])
            del buffer[: head.length]
        else:
            body = None
        if body is None:
            if head.expects_continue and not self._continued and self._transport is not None:
                self._continued = True
                self._transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            return None
        self._head = None
        self._chunks.reset()
        self._continued = False
        return Request(head.method, head.target, head.headers, body, self._stream)

    def _read_head(self, raw: bytes) -> Head:
        head = parse_head(raw, max_body=self._server.limits.max_body_bytes)
        self._keep_alive = head.keep_alive
        return head

    def _read_chunks(self) -> bytes | None:
        try:
            return self._chunks.read(self._buffer)
        except ChunkedError as exc:
            if exc.too_large:
                raise BadRequest("request body too large", 413) from None
            raise BadRequest(str(exc)) from None


def _too_large(limit: int) -> bytes:
    return (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"%b",'
        b'"reason":"RequestEntityTooLarge","code":413}' % too_large_message(limit).encode()
    )


def _internal_error() -> Response:
    body = (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"internal error","reason":"InternalError","code":500}'
    )
    return Response(body, status=500)


class HttpServer:
    """Listens on ``host:port`` and serves every request with ``handler``."""

    def __init__(self, handler: Handler, limits: ServerLimits | None = None) -> None:
        self.handler = handler
        self.limits = limits or ServerLimits()
        self.date = _Date()
        self.connections: set[_Connection] = set()
        self.tasks: set[asyncio.Task[Response]] = set()
        self._server: asyncio.Server | None = None
        self._sweep: asyncio.TimerHandle | None = None
        self.now = time.monotonic

    async def start(self, host: str, port: int, *, backlog: int = 1024) -> int:
        """Start listening; the port bound (``port`` 0 picks a free one)."""
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Connection(self), host or None, port, backlog=backlog
        )
        self._sweep = loop.call_later(self._sweep_every, self._close_idle)
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def _sweep_every(self) -> float:
        limits = self.limits
        return max(min(limits.read_header_timeout, limits.idle_timeout) / 8, 0.005)

    def _close_idle(self) -> None:
        """Close connections past their head deadline or idle past ``idle_timeout`` (a sweep
        instead of a timer per request: a deadline holds to within an eighth of itself)."""
        now = self.now()
        header_due = now - self.limits.read_header_timeout
        idle_due = now - self.limits.idle_timeout
        for conn in list(self.connections):
            if not conn.idle:
                conn.head_since = None
            elif conn.awaiting_head:
                if conn.head_since is None:
                    conn.head_since = now  # first seen partway: counted from here
                elif conn.head_since < header_due:
                    conn.close()
            else:
                conn.head_since = None
                if conn.last_active < idle_due:
                    conn.close()
        self._sweep = asyncio.get_running_loop().call_later(self._sweep_every, self._close_idle)

    async def stop(self, *, grace: float = 1.0) -> None:
        """Stop listening, end the streams, give requests in flight ``grace`` seconds."""
        if self._server is None:
            return
        self._server.close()
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        for conn in list(self.connections):
            if conn.idle:
                conn.close()
            else:
                conn.cancel_stream()
        if self.tasks:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await asyncio.gather(*self.tasks, return_exceptions=True)
        for task in list(self.tasks):
            task.cancel()
        for conn in list(self.connections):
            conn.close()
        await self._server.wait_closed()
        self._server = None
