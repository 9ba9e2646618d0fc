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
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Coroutine, Generator
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
)
from shared.kube.chunked import ChunkedBody, ChunkedError

Handler = Callable[[Request], Coroutine[Any, Any, Response]]

MAX_HEAD = 64 * 1024
KEEP_ALIVE = 75.0  # seconds an idle connection stays open (aiohttp's server default)
_MAX_PENDING = 1024 * 1024  # bytes read ahead of the request in hand before reading pauses
_log = logging.getLogger(__name__)
_REASONS = {status.value: status.phrase.encode() for status in HTTPStatus}


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
        self._chunks = ChunkedBody(max_size=MAX_BODY)
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

    # ---- transport callbacks ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses
        self._server.connections.add(self)
        self.last_active = self._server.now()

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
        if end < 0:
            return data
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
        return Stream(self._write, self._drained)

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
            body = str(exc).encode()
            self._transport.write(
                b"HTTP/1.1 %d %b\r\nContent-Type: text/plain; charset=utf-8\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%b"
                % (exc.status, _REASONS.get(exc.status, b""), len(body), body)
            )
        self.close()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    @property
    def idle(self) -> bool:
        return not self._busy

    def cancel_stream(self) -> None:
        if self._streaming and self._task is not None:
            self._task.cancel()

    # ---- parsing ------------------------------------------------------------------------------

    def _parse(self) -> Request | None:
        buffer = self._buffer
        if self._head is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_HEAD:
                    raise BadRequest("request headers too large", 431)
                return None
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
        head = parse_head(raw)
        self._keep_alive = head.keep_alive
        return head

    def _read_chunks(self) -> bytes | None:
        try:
            return self._chunks.read(self._buffer)
        except ChunkedError as exc:
            if exc.too_large:
                raise BadRequest("request body too large", 413) from None
            raise BadRequest(str(exc)) from None


def _internal_error() -> Response:
    body = (
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"internal error","reason":"InternalError","code":500}'
    )
    return Response(body, status=500)


class HttpServer:
    """Listens on ``host:port`` and serves every request with ``handler``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
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
        self._sweep = loop.call_later(KEEP_ALIVE / 5, self._close_idle)
        return int(self._server.sockets[0].getsockname()[1])

    def _close_idle(self) -> None:
        """Close connections idle for longer than ``KEEP_ALIVE`` (a sweep instead of a timer
        per request)."""
        stale = self.now() - KEEP_ALIVE
        for conn in list(self.connections):
            if conn.idle and conn.last_active < stale:
                conn.close()
        self._sweep = asyncio.get_running_loop().call_later(KEEP_ALIVE / 5, self._close_idle)

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
