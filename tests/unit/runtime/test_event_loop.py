"""Services and kubesim run on uvloop's event loop (``shared.runtime.run_loop``), or on
asyncio's when ``SHOAL_EVENT_LOOP=asyncio``; what they do on it must behave as on asyncio's.

These tests are synchronous: each runs its own loop with ``run_loop`` (pytest's loop is not
running between tests)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from shared.config import ServiceSettings, load_settings
from shared.kube.transport import HttpPool
from shared.runtime import RootTask, loop_factory, run_loop, run_service

uvloop = pytest.importorskip("uvloop")


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


@pytest.mark.parametrize(
    ("environ", "module"),
    [
        ({}, "uvloop"),
        ({"SHOAL_EVENT_LOOP": "asyncio"}, "asyncio"),
        ({"SHOAL_EVENT_LOOP": "UVLoop"}, "uvloop"),
    ],
    ids=["default-uvloop", "asyncio-on-request", "case-insensitive"],
)
def test_the_setting_chooses_the_loop(environ: dict[str, str], module: str) -> None:
    chosen = load_settings(ServiceSettings, environ).event_loop
    assert (loop_factory(chosen) is not None) == (module == "uvloop")
    if module == "uvloop":  # asyncio's own is the default policy's loop; not run here
        assert run_loop(_loop_module(), loop=chosen).startswith("uvloop")


def test_http_pool_on_uvloop() -> None:
    """The lean API-call pool takes uvloop's transports (which do not subclass asyncio's)."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                await reader.readuntil(b"\r\n\r\n{}")
            except asyncio.IncompleteReadError:
                break
            writer.write(b'HTTP/1.1 201 Created\r\nContent-Length: 7\r\n\r\n{"a":1}')
        writer.close()

    async def main() -> list[tuple[int, bytes]]:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = HttpPool(host="127.0.0.1", port=port)
        try:
            answers = []
            for _ in range(2):
                answer = await pool.request(
                    "POST", "/api/v1/x", {"Content-Type": "application/json"}, b"{}", timeout=5
                )
                answers.append((answer.status, answer.body))
            return answers
        finally:
            await pool.close()
            server.close()

    assert run_loop(main()) == [(201, b'{"a":1}'), (201, b'{"a":1}')]


def test_sigterm_drains_on_uvloop() -> None:
    log: list[str] = []

    async def draining(stopping: asyncio.Event) -> None:
        await stopping.wait()
        await asyncio.sleep(0.01)
        log.append("committed")

    async def main() -> int:
        tasks: dict[str, RootTask] = {"consumer": draining}
        runner = asyncio.create_task(run_service(service="t", tasks=tasks, grace_s=1))
        await asyncio.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)
        return await asyncio.wait_for(runner, 2)

    assert run_loop(main()) == 0
    assert log == ["committed"]
