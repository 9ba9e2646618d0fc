"""A client cannot hold kubesim's HTTP server: each abuse over a raw socket gets a 4xx or a
closed connection within its deadline, and kubesim's memory stays bounded. The server runs
as a process with small limits (``http:`` in its config file) so that deadlines are short."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest
import pytest_asyncio

from services.kubesim.process import KubeSimProcess

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]

HEAD_TIMEOUT, IDLE_TIMEOUT, MAX_HEADER, MAX_CONNECTIONS = 1.0, 1.0, 64 * 1024, 50
SHORT = (
    f"http: {{readHeaderTimeout: {HEAD_TIMEOUT}, idleTimeout: {IDLE_TIMEOUT}, "
    f"maxHeaderBytes: {MAX_HEADER}}}\n"
)
# The cap's own server: connections that wait for their first request stay (default deadlines).
CAPPED = f"http: {{maxConnections: {MAX_CONNECTIONS}}}\n"
MIB = 1024 * 1024
CONFIGMAPS = b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"


async def _serving(tmp: pytest.TempPathFactory, limits: str) -> AsyncIterator[KubeSimProcess]:
    config = tmp.mktemp("limits") / "kubesim.yaml"
    config.write_text(limits)
    async with KubeSimProcess(["--config", str(config)]) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def short(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[KubeSimProcess]:
    async for running in _serving(tmp_path_factory, SHORT):
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def capped(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[KubeSimProcess]:
    async for running in _serving(tmp_path_factory, CAPPED):
        yield running


Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _connect(sim: KubeSimProcess) -> Conn:
    port = int(sim.url.rsplit(":", 1)[1])
    return await asyncio.open_connection("127.0.0.1", port)


async def _answer(conn: Conn, deadline: float) -> bytes:
    """Everything the server sends until it closes the connection (b"" if it sends nothing)."""
    with contextlib.suppress(ConnectionResetError):
        return await asyncio.wait_for(conn[0].read(), deadline)
    return b""


def _status(raw: bytes) -> int | None:
    found = re.match(rb"HTTP/1\.1 (\d{3}) ", raw)
    return int(found.group(1)) if found else None


async def _partial_heads(sim: KubeSimProcess) -> list[int | None]:
    conns = [await _connect(sim) for _ in range(500)]
    for _, writer in conns:
        writer.write(b"GET /api/v1/pods HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    return [_status(await _answer(c, HEAD_TIMEOUT + 10)) for c in conns]


async def _headers_in_one_write(sim: KubeSimProcess) -> list[int | None]:
    conn = await _connect(sim)
    writer = conn[1]
    headers = b"".join(b"X-H-%05d: v\r\n" % i for i in range(10_000))  # ~150 KB
    writer.write(b"GET /api HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    return [_status(await _answer(conn, 5))]


async def _huge_chunk(sim: KubeSimProcess) -> list[int | None]:
    conn = await _connect(sim)
    writer = conn[1]
    writer.write(CONFIGMAPS + b"Transfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n")

    async def stream() -> None:  # what a client sending it would go on to send: 64 MiB
        with contextlib.suppress(ConnectionError):
            for _ in range(64):
                writer.write(b"x" * MIB)
                await writer.drain()

    sending = asyncio.create_task(stream())
    try:
        return [_status(await _answer(conn, 5))]
    finally:
        sending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sending


async def _chunk_then_garbage(sim: KubeSimProcess) -> list[int | None]:
    body = b'{"metadata":{"name":"g"}}'
    conn = await _connect(sim)
    writer = conn[1]
    writer.write(
        CONFIGMAPS + b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%bXY0\r\n\r\n" % (len(body), body)
    )
    return [_status(await _answer(conn, 5))]


async def _idle_keep_alive(sim: KubeSimProcess) -> list[int | None]:
    reader, writer = conn = await _connect(sim)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    ok = _status(await asyncio.wait_for(reader.readuntil(b"ok"), 5))
    return [ok, _status(await _answer(conn, IDLE_TIMEOUT + 10))]


async def _over_the_connection_cap(sim: KubeSimProcess) -> list[int | None]:
    conns = [await _connect(sim) for _ in range(MAX_CONNECTIONS)]
    extra = await _connect(sim)
    started = time.monotonic()
    closed = _status(await _answer(extra, 10))
    assert time.monotonic() - started < 10  # closed at once, not by a deadline (32 s here)
    for _, writer in conns:
        writer.close()
    return [closed]


@dataclass(frozen=True)
class Abuse:
    id: str
    run: Callable[[KubeSimProcess], Awaitable[list[int | None]]]
    # Every connection's answer: a status, or None for a close without one.
    expected: list[int | None]
    server: str = "short"  # the fixture: short deadlines, or the connection cap
    rss_growth_mib: float = 64.0


ABUSES = [
    Abuse("500-partial-heads", _partial_heads, [None] * 500),
    Abuse("10000-headers-in-one-write", _headers_in_one_write, [431]),
    Abuse("2^63-byte-chunk", _huge_chunk, [413]),
    Abuse("chunk-then-garbage-not-crlf", _chunk_then_garbage, [400]),
    Abuse("idle-keep-alive", _idle_keep_alive, [200, None]),
    Abuse("over-the-connection-cap", _over_the_connection_cap, [None], server="capped"),
]


@pytest.mark.parametrize("abuse", ABUSES, ids=[a.id for a in ABUSES])
async def test_abuse_gets_a_4xx_or_a_close_within_its_deadline(
    short: KubeSimProcess, capped: KubeSimProcess, abuse: Abuse
) -> None:
    server = {"short": short, "capped": capped}[abuse.server]
    before = server.rss_bytes()
    assert await abuse.run(server) == abuse.expected
    assert (server.rss_bytes() - before) / MIB < abuse.rss_growth_mib
    assert await _still_serves(server)


async def _still_serves(sim: KubeSimProcess) -> bool:
    """A new connection is answered (once the abuse's connections are gone: the cap)."""
    for _ in range(50):
        conn = await _connect(sim)
        conn[1].write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        if _status(await _answer(conn, 5)) == 200:
            return True
        await asyncio.sleep(0.1)
    return False
