"""Watchers that stop reading cannot grow kubesim: each is ended once its queue passes its byte
budget (its memory released, its connection closed), while a watcher that reads keeps
receiving every event. kubesim runs as a process so that its RSS is its own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest

from services.kubesim.process import KubeSimProcess

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]

MIB = 1024 * 1024
BUDGET = 2 * MIB
STALLED, PODS, ANNOTATION = 50, 1000, 8 * 1024  # ~9 KB a pod: ~9 MiB of events to each watcher
PODS_PATH = "/api/v1/namespaces/default/pods"


Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _stalled_watch(port: int) -> Conn:
    """A watch whose client never reads (small buffers, so that the stall comes soon)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock, limit=4096)
    writer.write(b"GET /api/v1/pods?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    return reader, writer


async def _ended_by_server(conn: Conn) -> bool:
    """Reading at last: what was sent, then the end (EOF or a reset) the server gave it."""
    try:
        async with asyncio.timeout(20):
            while await conn[0].read(1 << 20):
                pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


async def _reading_watch(url: str, seen: set[str], ready: asyncio.Event) -> None:
    timeout = aiohttp.ClientTimeout(total=None, sock_read=30)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(f"{url}{PODS_PATH}?watch=1") as response,
    ):
        ready.set()
        async for line in response.content:
            event = json.loads(line)
            if event["type"] == "ADDED":
                seen.add(event["object"]["metadata"]["name"])
            if len(seen) == PODS:
                return


async def _create_pods(url: str) -> None:
    note = "x" * ANNOTATION
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(PODS):
        queue.put_nowait(i)

    async def client(session: aiohttp.ClientSession) -> None:
        while not queue.empty():
            i = queue.get_nowait()
            pod = {"metadata": {"name": f"p{i}", "annotations": {"note": note}},
                   "spec": {"containers": [{"name": "c", "image": "i"}]}}  # fmt: skip
            async with session.post(url + PODS_PATH, json=pod) as response:
                assert response.status == 201

    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(client(session) for _ in range(8)))


async def _sample(sim: KubeSimProcess, peak: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak.append(sim.rss_bytes())
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def _kubesim(tmp: pytest.TempPathFactory) -> AsyncIterator[KubeSimProcess]:
    config = tmp.mktemp("watch") / "kubesim.yaml"
    config.write_text(f"watch: {{maxBufferedBytes: {BUDGET}}}\n")
    async with KubeSimProcess(["--config", str(config)]) as sim:
        yield sim


async def test_stalled_watchers_are_ended_and_their_memory_released(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    async with _kubesim(tmp_path_factory) as sim:
        port = int(sim.url.rsplit(":", 1)[1])
        start = sim.rss_bytes()
        stalled = [await _stalled_watch(port) for _ in range(STALLED)]
        seen: set[str] = set()
        ready = asyncio.Event()
        reading = asyncio.create_task(_reading_watch(sim.url, seen, ready))
        await asyncio.wait_for(ready.wait(), 10)
        samples: list[int] = []
        stop = asyncio.Event()
        sampling = asyncio.create_task(_sample(sim, samples, stop))
        await _create_pods(sim.url)
        await asyncio.wait_for(reading, 60)
        stop.set()
        await sampling
        ended = await asyncio.gather(*(_ended_by_server(w) for w in stalled))
        for _, writer in stalled:
            writer.close()
        await asyncio.sleep(1.0)
        after = sim.rss_bytes()
    peak = max(samples)
    print(
        f"kubesim RSS MiB: start {start / MIB:.0f}, peak {peak / MIB:.0f}, after {after / MIB:.0f}"
    )
    assert len(seen) == PODS  # the reading watcher saw every pod, throughout
    assert all(ended)  # every stalled watch was ended by the server
    # Unbounded, each stalled watcher would hold its own ~9 MiB copy of the events: ~450 MiB.
    assert (peak - start) / MIB < 120
    assert (after - start) / MIB < 60  # the pods themselves (~9 MiB) and the allocator's slack
