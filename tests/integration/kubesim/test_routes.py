"""kubesim's own routes beside the API: health probes (GET and HEAD), the fault and compaction
endpoints, and ``Expect: 100-continue``; anything else is the API's."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from services.kubesim.app import KubeSim


@pytest.mark.parametrize(
    ("method", "path", "status", "body"),
    [
        ("GET", "/healthz", 200, "ok"),
        ("GET", "/readyz", 200, "ok"),
        ("HEAD", "/livez", 200, ""),
        ("GET", "/_sim/faults", 200, None),
        ("POST", "/_sim/compact?resource=pods", 200, None),
        ("GET", "/_sim/compact", 404, None),
        ("POST", "/healthz", 404, None),
        ("GET", "/api/v1/namespaces/default", 200, None),
    ],
    ids=[
        "healthz",
        "readyz",
        "livez-head",
        "faults",
        "compact",
        "compact-get-is-the-api",
        "probe-post-is-the-api",
        "api",
    ],
)
async def test_routes(sim: KubeSim, method: str, path: str, status: int, body: str | None) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{sim.url}{path}") as resp,
    ):
        assert resp.status == status, await resp.text()
        if body is not None:
            assert await resp.text() == body


async def test_expect_100_continue_is_answered(sim: KubeSim) -> None:
    host, port = sim.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"expect-100"}}'
    writer.write(
        b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: kubesim\r\n"
        b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    await writer.drain()
    interim = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert interim.startswith(b"HTTP/1.1 100")
    writer.write(body)
    await writer.drain()
    final = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert final.startswith(b"HTTP/1.1 201")
    writer.close()
