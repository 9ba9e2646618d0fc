from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from shared.runtime import CANCEL_WAIT_S, RootTask, close_within, run_service, unless_stopping


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


async def _ignores_cancellation(release: asyncio.Event) -> None:
    """A close that swallows cancellation, as aiokafka's consumer stop mid-join did."""
    while not release.is_set():
        with contextlib.suppress(asyncio.CancelledError):
            await release.wait()


async def test_close_step_that_ignores_cancellation_is_left_behind() -> None:
    release = asyncio.Event()
    finished = await asyncio.wait_for(
        close_within(_ignores_cancellation(release), what="stuck close", seconds=0.1),
        CANCEL_WAIT_S + 10,
    )
    release.set()
    assert finished is False


@pytest.mark.parametrize(
    ("close_s", "finished"),
    [(0.0, True), (60.0, False)],
    ids=["in-time", "too-slow"],
)
async def test_close_step_reports_whether_it_finished(close_s: float, finished: bool) -> None:
    assert await close_within(asyncio.sleep(close_s), what="close", seconds=0.1) is finished


async def test_root_task_that_ignores_cancellation_does_not_keep_the_service() -> None:
    release = asyncio.Event()

    async def stuck(stopping: asyncio.Event) -> None:
        await _ignores_cancellation(release)

    stopping = asyncio.Event()
    stopping.set()
    runner = run_service(
        service="t", tasks={"stuck": stuck}, grace_s=0.1, stopping=stopping, handle_signals=False
    )
    code = await asyncio.wait_for(runner, CANCEL_WAIT_S + 10)
    release.set()
    assert code == 1


def test_run_loop_returns_with_a_task_that_ignores_cancellation() -> None:
    """``asyncio.run`` waits for its leftover tasks without a bound; ``run_loop`` does not."""
    script = (
        "import asyncio, contextlib\n"
        "from shared.runtime import run_loop\n"
        "async def stuck():\n"
        "    while True:\n"
        "        with contextlib.suppress(asyncio.CancelledError):\n"
        "            await asyncio.sleep(3600)\n"
        "async def main():\n"
        "    asyncio.get_running_loop().create_task(stuck())\n"
        "    await asyncio.sleep(0)\n"
        "    return 7\n"
        "raise SystemExit(run_loop(main(), loop='asyncio'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], timeout=CANCEL_WAIT_S + 60, capture_output=True
    )
    assert done.returncode == 7, done.stderr.decode()[-2000:]


@pytest.mark.parametrize(
    ("step_s", "stop_after_s", "result"),
    [(0.0, 60.0, "done"), (60.0, 0.05, None)],
    ids=["step-first", "stopping-first"],
)
async def test_a_step_is_given_up_on_stopping(
    step_s: float, stop_after_s: float, result: str | None
) -> None:
    cancelled = asyncio.Event()

    async def step() -> str:
        try:
            await asyncio.sleep(step_s)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "done"

    stopping = asyncio.Event()
    asyncio.get_running_loop().call_later(stop_after_s, stopping.set)
    assert await asyncio.wait_for(unless_stopping(step(), stopping), 10) == result
    assert cancelled.is_set() is (result is None)
