"""The lean HTTP/1.1 pool of API calls, against a scripted server: response framings, connection
reuse and loss, deadlines, and malformed answers (raised as aiohttp's own errors)."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest

from shared.kube.transport import HttpPool

Answer = Callable[[bytes], bytes | None]  # request head+body → raw response (None: hang up)


class Server:
    """Answers each request on a connection with ``answer``; counts connections."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                response = self.answer(request)
                if response is None:
                    break
                writer.write(response)
                await writer.drain()
                if b" 200 " in response.split(b"\r\n", 1)[0] and not (
                    b"ength:" in response or b"chunked" in response
                ):
                    break  # a body delimited by the close
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Answer], asyncio.Future[Server]]]:
    servers: list[Server] = []

    async def start(answer: Answer) -> Server:
        server = Server(answer)
        server.server = await asyncio.start_server(server._serve, "127.0.0.1", 0)
        servers.append(server)
        return server

    yield start  # type: ignore[misc]
    for server in servers:
        assert server.server is not None
        server.server.close()


def ok(body: bytes, *extra: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n" % len(body)
    return head + b"".join(e + b"\r\n" for e in extra) + b"\r\n" + body


async def call(
    pool: HttpPool, body: bytes | None = b"{}", timeout: float = 5.0
) -> tuple[int, bytes]:
    answer = await pool.request(
        "POST", "/api/v1/x", {"Content-Type": "application/json"}, body, timeout=timeout
    )
    return answer.status, answer.body


@pytest.mark.parametrize(
    ("raw", "status", "body"),
    [
        (ok(b'{"a":1}'), 200, b'{"a":1}'),
        (b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}", 201, b"{}"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
            200,
            b"abcde",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\nT: v\r\n\r\n",
            200,
            b"z",
        ),
        (b"HTTP/1.1 204 No Content\r\n\r\n", 204, b""),
        (b"HTTP/1.1 409 Conflict\r\nContent-Length: 3\r\n\r\nno!", 409, b"no!"),
    ],
    ids=["content-length", "lowercase-header", "chunked", "chunked-trailer", "no-content", "error"],
)
async def test_response_framings(
    serve: Callable[[Answer], asyncio.Future[Server]], raw: bytes, status: int, body: bytes
) -> None:
    server = await serve(lambda request: raw)
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        assert await call(pool) == (status, body)
        assert await call(pool) == (status, body)  # and again on the same connection
        assert server.connections == 1
        first = server.requests[0]
        assert first.startswith(b"POST /api/v1/x HTTP/1.1\r\nHost: 127.0.0.1:")
        assert b"Content-Length: 2\r\n" in first and first.endswith(b"\r\n\r\n{}")
    finally:
        await pool.close()


async def test_a_body_delimited_by_the_close(
    serve: Callable[[Answer], asyncio.Future[Server]],
) -> None:
    answers = iter([b"HTTP/1.1 200 OK\r\n\r\nuntil close", ok(b"next")])
    server = await serve(lambda request: next(answers))
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        assert await call(pool) == (200, b"until close")
        assert await call(pool) == (200, b"next")
        assert server.connections == 2
    finally:
        await pool.close()


async def test_a_response_split_across_reads(
    serve: Callable[[Answer], asyncio.Future[Server]],
) -> None:
    body = b"x" * 300_000
    server = await serve(lambda request: ok(body))
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        assert await call(pool) == (200, body)
    finally:
        await pool.close()


async def test_connection_close_is_not_reused_and_lost_connections_are_replaced(
    serve: Callable[[Answer], asyncio.Future[Server]],
) -> None:
    answers = iter([ok(b"1", b"Connection: close"), ok(b"2"), None, ok(b"4")])
    server = await serve(lambda request: next(answers))
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        assert await call(pool) == (200, b"1")
        assert await call(pool) == (200, b"2")  # a new connection after "close"
        with pytest.raises(aiohttp.ServerDisconnectedError):
            await call(pool)  # the server hangs up instead of answering
        assert await call(pool) == (200, b"4")
        assert server.connections == 3
    finally:
        await pool.close()


async def test_deadline_and_refused_connection(
    serve: Callable[[Answer], asyncio.Future[Server]],
) -> None:
    server = await serve(lambda request: b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        with pytest.raises(TimeoutError):
            await call(pool, timeout=0.2)
    finally:
        await pool.close()
    port = server.port
    assert server.server is not None
    server.server.close()
    await server.server.wait_closed()
    refused = HttpPool(host="127.0.0.1", port=port)
    with pytest.raises(aiohttp.ClientOSError, match="Cannot connect to host"):
        await call(refused)  # a ClientError and an OSError, as aiohttp's own


@pytest.mark.parametrize(
    "raw",
    [b"garbage\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab"],
    ids=["not-http", "extra-bytes"],
)
async def test_malformed_answers_are_client_errors(
    serve: Callable[[Answer], asyncio.Future[Server]], raw: bytes
) -> None:
    server = await serve(lambda request: raw)
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        with pytest.raises(aiohttp.ClientError):
            await call(pool)
    finally:
        await pool.close()


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_tls(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)
    server = Server(lambda request: ok(b"secret"))
    server.server = await asyncio.start_server(server._serve, "127.0.0.1", 0, ssl=server_side)
    client_side = ssl.create_default_context(cafile=str(cert))
    pool = HttpPool(
        host="127.0.0.1", port=server.port, ssl_context=client_side, server_hostname="localhost"
    )
    try:
        assert await call(pool) == (200, b"secret")
        assert await call(pool) == (200, b"secret")
        assert server.connections == 1
    finally:
        await pool.close()
        server.server.close()


async def test_an_interim_answer_is_skipped(
    serve: Callable[[Answer], asyncio.Future[Server]],
) -> None:
    server = await serve(lambda request: b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"final"))
    pool = HttpPool(host="127.0.0.1", port=server.port)
    try:
        assert await call(pool) == (200, b"final")
    finally:
        await pool.close()
