"""kubesim's HTTP/1.1 server over a raw socket: keep-alive and pipelining, chunked request
bodies, ``Expect: 100-continue``, HEAD, ``Connection: close``, HTTP/1.0, percent-encoded paths
and malformed requests (400 and a close)."""

from __future__ import annotations

import asyncio
import re

import msgspec
import pytest

from services.kubesim import http_server
from services.kubesim.app import KubeSim
from services.kubesim.http_messages import Request, Response


async def _exchange(sim: KubeSim, data: bytes, *, until_close: bool = True) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", sim.port)
    try:
        writer.write(data)
        await writer.drain()
        if until_close:
            return await asyncio.wait_for(reader.read(), 5)
        return await asyncio.wait_for(reader.read(65536), 5)
    finally:
        writer.close()


def _statuses(raw: bytes) -> list[int]:
    return [int(status) for status in re.findall(rb"HTTP/1\.[01] (\d{3}) ", raw)]


_CM = b'{"metadata":{"name":"%b"},"data":{"k":"v"}}'


@pytest.mark.parametrize(
    ("request_bytes", "statuses", "contains"),
    [
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            [200, 200],
            b'"name":"default"',
        ),
        (
            b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n"
            b"10\r\n" + (_CM % b"chunked-cm")[:16] + b"\r\n"
            b"%x\r\n" % (len(_CM % b"chunked-cm") - 16) + (_CM % b"chunked-cm")[16:] + b"\r\n"
            b"0\r\n\r\n",
            [201],
            b'"name":"chunked-cm"',
        ),
        (
            b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\n"
            b"Content-Length: %d\r\n\r\n" % len(_CM % b"continued-cm"),
            [100],
            b"",
        ),
        (
            b"HEAD /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            [200],
            b"Content-Length: 2",
        ),
        (b"GET /readyz HTTP/1.0\r\n\r\n", [200], b"\r\n\r\nok"),
        (
            b"GET /api/v1/namespaces/%64efault HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            [200],
            b'"name":"default"',
        ),
        (b"GARBAGE\r\n\r\n", [400], b"not an HTTP/1.x request line"),
        (b"GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", [400], b"malformed header"),
        (
            b"POST /api/v1/namespaces HTTP/1.1\r\nContent-Length: 2\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
            [400],
            b"both Content-Length and Transfer-Encoding",
        ),
        (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", [400], b"invalid Content-Length"),
    ],
    ids=[
        "pipelined-keep-alive",
        "chunked-body",
        "expect-continue",
        "head-no-body",
        "http-1.0-closes",
        "percent-encoded-path",
        "bad-request-line",
        "bad-header",
        "length-and-chunked",
        "negative-length",
    ],
)
async def test_exchange(
    sim: KubeSim, request_bytes: bytes, statuses: list[int], contains: bytes
) -> None:
    raw = await _exchange(sim, request_bytes, until_close=statuses != [100])
    assert _statuses(raw) == statuses
    assert contains in raw
    if statuses == [200] and request_bytes.startswith(b"HEAD"):
        assert raw.endswith(b"\r\n\r\n")


async def test_continue_then_body(sim: KubeSim) -> None:
    body = _CM % b"after-continue"
    reader, writer = await asyncio.open_connection("127.0.0.1", sim.port)
    try:
        writer.write(
            b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        assert await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5) == (
            b"HTTP/1.1 100 Continue\r\n\r\n"
        )
        writer.write(body)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 201 ")
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        created = msgspec.json.decode(await reader.readexactly(length))
        assert created["metadata"]["name"] == "after-continue"
    finally:
        writer.close()


async def test_watch_is_chunked_and_ends_with_the_last_chunk(sim: KubeSim) -> None:
    raw = await _exchange(
        sim,
        b"GET /api/v1/namespaces?watch=1&timeoutSeconds=1 HTTP/1.1\r\nHost: x\r\n"
        b"Connection: close\r\n\r\n",
    )
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head
    assert b'"type":"ADDED"' in body
    assert body.endswith(b"0\r\n\r\n")


async def test_watch_of_a_client_that_left_is_ended(sim: KubeSim) -> None:
    hub = sim.store.tables["namespaces"].hub
    before = len(hub.watchers)
    reader, writer = await asyncio.open_connection("127.0.0.1", sim.port)
    writer.write(b"GET /api/v1/namespaces?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert len(hub.watchers) == before + 1
    writer.close()
    for _ in range(100):
        if len(hub.watchers) == before:
            break
        await asyncio.sleep(0.01)
    assert len(hub.watchers) == before


async def _ok(request: Request) -> Response:
    return Response(b"{}")


async def test_pipelining_far_ahead_pauses_reading_and_answers_all() -> None:
    server = http_server.HttpServer(_slow)
    port = await server.start("127.0.0.1", 0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\n" + b"a" * 65536
        count = 40  # 2.6 MiB ahead of the first answer
        writer.write(request * count)
        answers = 0
        while answers < count:
            await asyncio.wait_for(reader.readuntil(b"{}"), 10)
            answers += 1
        writer.close()
    finally:
        await server.stop()


async def _slow(request: Request) -> Response:
    await asyncio.sleep(0.001)
    return Response(b"{}")
