"""A lean HTTP/1.1 client for API calls: keep-alive connections, one request at a time each.

The production client has two HTTP stacks, for a measured reason. An API call through aiohttp's
client session costs as much CPU before the server sees it as the API server spends on it
(request and response objects, header multidicts, cookie jar, payload and timer machinery), and
the job controller and the binder make tens of thousands of calls per burst (pods, bindings,
Events, status patches). This pool speaks just what those calls need — a request with a JSON
body, a response with a Content-Length or chunked body — over plain TCP or TLS (``pool_for``
builds the TLS context from kubernetes_asyncio's configuration: CA, client certificate,
``verify_ssl``, ``tls-server-name``). ``shoal bench client`` measures client CPU per call
through both (2026-11-28, median of 3 rounds): against kube-apiserver over TLS 287 µs here,
664 µs on aiohttp; against kubesim over HTTP 86 and 211 µs. Watches stay on aiohttp's session:
a watch is one long streamed response read a chunk at a time (``watchlines``), a few per
service, so its per-call cost does not matter; an API server reached through a proxy keeps
every call on aiohttp, as this pool speaks no proxy protocol. Failures raise aiohttp's own
exception types, so callers classify them as before (``shared.kube.errors``, the CLI's one-line
failures): a lost connection is ``ServerDisconnectedError``, one that cannot be made
``ClientOSError`` (an ``OSError`` too), a deadline ``TimeoutError``.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from typing import NamedTuple, cast
from urllib.parse import urlsplit

import aiohttp
from kubernetes_asyncio import client as k8s

from shared.kube.chunked import ChunkedBody, ChunkedError

_MAX_HEAD = 64 * 1024  # response status line and headers
_MAX_BODY = 256 * 1024 * 1024


class Response(NamedTuple):
    status: int
    reason: str
    body: bytes


class _Connection(asyncio.Protocol):
    """One keep-alive connection; ``request`` sends, the parser fills ``waiter``."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future[Response] | None = None
        self.closed = False
        self.reusable = True
        self._buffer = bytearray()
        self._head: tuple[int, str, int, bool] | None = None  # status, reason, length, chunked
        self._chunks = ChunkedBody()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's do not subclass asyncio.Transport, so no isinstance).
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is None or self.waiter.done():
            return
        head = self._head
        if head is not None and head[2] < 0 and not head[3]:  # a body delimited by the close
            self.waiter.set_result(Response(head[0], head[1], bytes(self._buffer)))
        else:
            self.waiter.set_exception(aiohttp.ServerDisconnectedError())

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():
            self.reusable = False  # bytes nobody asked for: the stream is out of step
            self.close()
            return
        self._buffer += data
        try:
            response = self._parse()
        except aiohttp.ClientPayloadError as exc:
            self.reusable = False
            self.waiter.set_exception(exc)
            self.close()
            return
        if response is not None:
            self.waiter.set_result(response)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def send(self, data: bytes) -> asyncio.Future[Response]:
        assert self.transport is not None
        self._buffer.clear()
        self._head = None
        self._chunks.reset()
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        return self.waiter

    # ---- parsing -------------------------------------------------------------------------------

    def _parse(self) -> Response | None:
        buffer = self._buffer
        while self._head is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > _MAX_HEAD:
                    raise _bad("response headers too long")
                return None
            head = self._read_head(bytes(buffer[:end]))
            del buffer[: end + 4]
            if head[0] >= 200:  # 1xx answers are interim: the response follows
                self._head = head
        status, reason, length, chunked = self._head
        if chunked:
            body = self._read_chunks()
            if body is None:
                return None
        else:
            if length < 0 or len(buffer) < length:
                return None  # (length < 0: the body ends when the server closes)
            body = bytes(buffer[:length])
            del buffer[:length]
        if buffer:
            raise _bad("more bytes than the response announced")
        return Response(status, reason, body)

    def _read_head(self, head: bytes) -> tuple[int, str, int, bool]:
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise _bad(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        status = int(parts[1])
        reason = parts[2].decode("latin-1") if len(parts) > 2 else ""
        length, chunked = -1, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                if not value.strip().isdigit():
                    raise _bad("invalid Content-Length")
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif name == b"connection" and b"close" in value.lower():
                self.reusable = False
        if parts[0] == b"HTTP/1.0":
            self.reusable = False
        if status in (204, 304) or status < 200:
            length, chunked = 0, False
        elif not chunked and length < 0:
            self.reusable = False  # the body is delimited by the end of the connection
        if length > _MAX_BODY:
            raise _bad("response body too large")
        return status, reason, length, chunked

    def _read_chunks(self) -> bytes | None:
        try:
            return self._chunks.read(self._buffer)
        except ChunkedError as exc:
            raise _bad(str(exc)) from None


def _bad(message: str) -> aiohttp.ClientPayloadError:
    return aiohttp.ClientPayloadError(message)


class HttpPool:
    """Connections to one API server (``host:port``, TLS when ``ssl`` is given)."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        ssl_context: ssl.SSLContext | None = None,
        server_hostname: str | None = None,
        limit: int = 100,
    ) -> None:
        self._host = host
        self._port = port
        self._ssl = ssl_context
        self._server_hostname = server_hostname
        self._host_header = host if port in (80, 443) else f"{host}:{port}"
        if ":" in host and not host.startswith("["):  # IPv6 literal
            self._host_header = f"[{host}]" if port in (80, 443) else f"[{host}]:{port}"
        self._idle: list[_Connection] = []
        self._slots = asyncio.Semaphore(limit)
        self._open: set[_Connection] = set()

    async def request(
        self,
        method: str,
        target: str,
        headers: Mapping[str, str],
        body: bytes | None,
        *,
        timeout: float | None,
    ) -> Response:
        """One request; the connection goes back to the pool only after a clean exchange."""
        async with self._slots:
            if timeout is None:
                return await self._exchange(method, target, headers, body)
            async with asyncio.timeout(timeout):
                return await self._exchange(method, target, headers, body)

    async def _exchange(
        self, method: str, target: str, headers: Mapping[str, str], body: bytes | None
    ) -> Response:
        conn = await self._connection()
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self._host_header}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")
        clean = False
        try:
            response = await conn.send(data)
            clean = True
            return response
        finally:
            conn.waiter = None
            if clean and conn.reusable and not conn.closed:
                self._idle.append(conn)
            else:
                conn.close()
                self._open.discard(conn)

    async def _connection(self) -> _Connection:
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                return conn
            self._open.discard(conn)
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(
                _Connection,
                self._host,
                self._port,
                ssl=self._ssl,
                server_hostname=(self._server_hostname or self._host) if self._ssl else None,
            )
        except OSError as exc:  # refused, unresolvable, TLS: as aiohttp reports it
            raise aiohttp.ClientOSError(
                exc.errno, f"Cannot connect to host {self._host_header}: {exc}"
            ) from exc
        self._open.add(conn)
        return conn

    async def close(self) -> None:
        for conn in list(self._open):
            conn.close()
        self._open.clear()
        self._idle.clear()


def _ssl_context(configuration: k8s.Configuration) -> ssl.SSLContext:
    """The TLS settings kubernetes_asyncio's own session gets from the same configuration
    (CA, client certificate, ``verify_ssl``, strict X.509 checks), so both stacks trust and
    present the same things."""
    context = ssl.create_default_context(cafile=configuration.ssl_ca_cert)
    if configuration.cert_file:
        context.load_cert_chain(configuration.cert_file, keyfile=configuration.key_file)
    if not configuration.verify_ssl:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if configuration.disable_strict_ssl_verification:
        context.verify_flags &= ~ssl.VERIFY_X509_STRICT
    return context


def pool_for(api_client: k8s.ApiClient) -> HttpPool | None:
    """A lean pool for the API server of ``api_client``'s configuration, over TLS for an
    HTTPS one (every real cluster) with the configuration's TLS settings and
    ``tls-server-name``. One behind a proxy stays on aiohttp's session. Against a real
    kube-apiserver over TLS the pool costs half the client CPU of aiohttp's session per call
    (docs/benchmarks.md, "Components")."""
    configuration = api_client.configuration
    url = urlsplit(configuration.host or "")
    if api_client.rest_client.proxy or url.scheme not in ("http", "https") or not url.hostname:
        return None
    tls = url.scheme == "https"
    return HttpPool(
        host=url.hostname,
        port=url.port or (443 if tls else 80),
        ssl_context=_ssl_context(configuration) if tls else None,
        server_hostname=configuration.tls_server_name or None,
        limit=configuration.connection_pool_maxsize or 100,
    )
