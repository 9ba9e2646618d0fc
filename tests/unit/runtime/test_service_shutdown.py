from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from shared.runtime import RootTask, run_service


async def draining(stopping: asyncio.Event, log: list[str], name: str) -> None:
    await stopping.wait()
    await asyncio.sleep(0.01)  # "commit"
    log.append(f"{name} committed")


async def test_stop_event_drains_every_root_task() -> None:
    stopping = asyncio.Event()
    log: list[str] = []
    tasks: dict[str, RootTask] = {
        "consumer": lambda s: draining(s, log, "consumer"),
        "producer": lambda s: draining(s, log, "producer"),
    }
    runner = asyncio.create_task(
        run_service(service="t", tasks=tasks, grace_s=1, stopping=stopping, handle_signals=False)
    )
    await asyncio.sleep(0.05)
    stopping.set()
    assert await runner == 0
    assert sorted(log) == ["consumer committed", "producer committed"]


async def test_sigterm_sets_stopping() -> None:
    log: list[str] = []
    tasks: dict[str, RootTask] = {"consumer": lambda s: draining(s, log, "consumer")}
    runner = asyncio.create_task(run_service(service="t", tasks=tasks, grace_s=1))
    await asyncio.sleep(0.05)
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(runner, 2) == 0
    assert log == ["consumer committed"]


async def test_crash_stops_siblings_and_exits_nonzero() -> None:
    log: list[str] = []

    async def crashing(stopping: asyncio.Event) -> None:
        await asyncio.sleep(0.02)
        raise RuntimeError("boom")

    tasks: dict[str, RootTask] = {
        "crasher": crashing,
        "consumer": lambda s: draining(s, log, "consumer"),
    }
    code = await run_service(service="t", tasks=tasks, grace_s=1, handle_signals=False)
    assert code == 1
    assert log == ["consumer committed"]


async def test_straggler_is_cancelled_at_deadline() -> None:
    cancelled = asyncio.Event()

    async def stuck(stopping: asyncio.Event) -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    stopping = asyncio.Event()
    stopping.set()
    started = time.monotonic()
    code = await run_service(
        service="t", tasks={"stuck": stuck}, grace_s=0.2, stopping=stopping, handle_signals=False
    )
    assert code == 1
    assert cancelled.is_set()
    assert time.monotonic() - started == pytest.approx(0.2, abs=0.15)


async def test_tasks_that_finish_on_their_own_end_the_service() -> None:
    async def one_shot(stopping: asyncio.Event) -> None:
        await asyncio.sleep(0.01)

    code = await run_service(
        service="t", tasks={"a": one_shot, "b": one_shot}, grace_s=1, handle_signals=False
    )
    assert code == 0
