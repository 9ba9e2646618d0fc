"""Running a service: named root tasks, a stopping event, a shutdown deadline.

Each root task is `async def task(stopping: asyncio.Event) -> None` and returns once `stopping` is
set (consumers finish their batch and commit first). SIGTERM/SIGINT set `stopping`; so does a
root task that crashes, so the others drain too. Tasks still running `grace_s` after `stopping`
was set are cancelled. The exit code is 1 if any root task crashed (or had to be cancelled),
else 0. Unlike `asyncio.TaskGroup`, a crash does not cancel the siblings at once: they get the
grace period to commit what they have done.

Every step of a shutdown has a deadline, because a broker that is gone can make a client's
close wait for ever: aiokafka's consumer ``stop()`` mid-join (or a producer flushing to no one)
did not return even when cancelled, and the scheduler, whose election consumer was in that
state, needed SIGKILL. A task cancelled at the grace deadline gets ``CANCEL_WAIT_S`` to end,
each close ``CLOSE_STEP_S`` (``close_within``), the loop's leftovers ``CANCEL_WAIT_S`` once
cancelled, and what is still running then is left behind: the loop is closed without it and
the process exits. SIGTERM to exit is therefore at most ``grace_s + SHUTDOWN_OVERHEAD_S``,
within the 10 s the deployments leave beyond the grace period.

``run_loop`` is the process's ``asyncio.run``: every service and kubesim run on uvloop's event
loop when it is installed (the loop's own machinery, ready-queue handles and socket callbacks,
is in C there, and it shows in every service's profile), on asyncio's otherwise.
"""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from typing import Any, Literal, TypeVar

import structlog

RootTask = Callable[[asyncio.Event], Coroutine[Any, Any, None]]
EventLoop = Literal["uvloop", "asyncio"]
T = TypeVar("T")

_log = structlog.get_logger()

# How long a task cancelled at a deadline gets to end, and how long one close may take.
CANCEL_WAIT_S = 0.5
CLOSE_STEP_S = 2.0
# The most a shutdown takes beyond the grace period: the root tasks cancelled, then the bus,
# the API client, the health server and the default executor closed (a close step each), and
# the loop's leftovers cancelled.
SHUTDOWN_OVERHEAD_S = 2 * CANCEL_WAIT_S + 4 * CLOSE_STEP_S


# The cyclic garbage collector's thresholds for a service process (Python's: 700, 10, 10).
# A service's cache holds every object of its kinds (a burst of 10,000 pods decodes ~40,000
# records), and at Python's thresholds a collection ran every 700 allocations and a full one
# at each quarter of growth of that cache: a third of the scheduler's and the job controller's
# CPU in a burst went to walking objects that live until replaced. What they drop is freed by
# reference counting; the collector is left for the few cycles (tasks, tracebacks).
GC_THRESHOLDS = (50_000, 20, 10)


def run_loop(main: Coroutine[Any, Any, T], *, loop: EventLoop = "uvloop") -> T:
    """``asyncio.run(main)`` on the event loop ``loop`` names (asyncio's own when uvloop is
    not installed), with the collector at ``GC_THRESHOLDS``."""
    gc.set_threshold(*GC_THRESHOLDS)
    factory = loop_factory(loop)
    event_loop = factory() if factory is not None else asyncio.new_event_loop()
    asyncio.set_event_loop(event_loop)
    try:
        return event_loop.run_until_complete(main)
    finally:
        # asyncio.run waits for every leftover task to end after cancelling it; one stuck in a
        # close that ignores cancellation would keep the process for ever.
        try:
            event_loop.run_until_complete(_cancel_leftovers())
            event_loop.run_until_complete(event_loop.shutdown_asyncgens())
            event_loop.run_until_complete(
                close_within(event_loop.shutdown_default_executor(), what="default executor")
            )
        finally:
            asyncio.set_event_loop(None)
            event_loop.close()


async def _cancel_leftovers() -> None:
    leftovers = asyncio.all_tasks() - {asyncio.current_task()}
    for task in leftovers:
        task.cancel()
    if leftovers:
        _, stuck = await asyncio.wait(leftovers, timeout=CANCEL_WAIT_S)
        for task in stuck:
            _log.error("task did not end when cancelled; left behind", task=task.get_name())


def loop_factory(loop: EventLoop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when ``loop`` asks for it and it is installed; None (the
    default policy's loop) otherwise."""
    if loop != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:  # an optional speed-up (not built for every platform)
        return None
    return uvloop.new_event_loop


async def run_service(
    *,
    service: str,
    tasks: Mapping[str, RootTask],
    grace_s: float,
    stopping: asyncio.Event | None = None,
    handle_signals: bool = True,
) -> int:
    """Run `tasks` until they all return; see the module docstring for the stop protocol."""
    stopping = stopping or asyncio.Event()
    log = _log.bind(service=service)
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT) if handle_signals else ()
    for sig in signals:
        loop.add_signal_handler(sig, _on_signal, stopping, sig, log)
    running: set[asyncio.Task[Any]] = {
        asyncio.create_task(factory(stopping), name=name) for name, factory in tasks.items()
    }
    crashed: list[str] = []
    stop_waiter: asyncio.Task[Any] = asyncio.create_task(stopping.wait(), name="stopping")
    try:
        while running and not stopping.is_set():
            done, _ = await asyncio.wait(
                running | {stop_waiter}, return_when=asyncio.FIRST_COMPLETED
            )
            finished = done - {stop_waiter}
            running -= finished
            newly_crashed = _crashed(finished, log)
            if newly_crashed:
                crashed += newly_crashed
                stopping.set()
        if running:
            done, running = await asyncio.wait(running, timeout=grace_s)
            crashed += _crashed(done, log)
        for task in running:
            log.error("root task missed the shutdown deadline; cancelling", task=task.get_name())
            task.cancel()
            crashed.append(task.get_name())
        if running:
            _, stuck = await asyncio.wait(running, timeout=CANCEL_WAIT_S)
            for task in stuck:
                log.error("root task did not end when cancelled; left behind", task=task.get_name())
    finally:
        stop_waiter.cancel()
        for sig in signals:
            loop.remove_signal_handler(sig)
    log.info("service stopped", crashed=crashed)
    return 1 if crashed else 0


def _on_signal(
    stopping: asyncio.Event, sig: signal.Signals, log: structlog.typing.FilteringBoundLogger
) -> None:
    log.info("stop requested", signal=sig.name)
    stopping.set()


def _crashed(
    done: Iterable[asyncio.Task[Any]], log: structlog.typing.FilteringBoundLogger
) -> list[str]:
    names = []
    for task in done:
        if task.cancelled():
            names.append(task.get_name())
            log.error("root task was cancelled", task=task.get_name())
        elif (exc := task.exception()) is not None:
            names.append(task.get_name())
            log.error("root task crashed", task=task.get_name(), exc_info=exc)
    return names


async def close_within(
    close: Awaitable[object], *, what: str, seconds: float = CLOSE_STEP_S
) -> bool:
    """Run one shutdown step for at most ``seconds``, then cancel it and go on without it (it
    may still end among the loop's leftovers); True if it finished. Its errors are logged: a
    close that fails must not keep the next one from running."""
    task = asyncio.ensure_future(close)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        _log.error("shutdown step missed its deadline; cancelled", step=what, seconds=seconds)
        task.cancel()
        _LEFT_BEHIND.add(task)
        task.add_done_callback(_LEFT_BEHIND.discard)
        return False
    if not task.cancelled() and (exc := task.exception()) is not None:
        _log.warning("shutdown step failed", step=what, error=repr(exc))
        return False
    return not task.cancelled()


_LEFT_BEHIND: set[asyncio.Future[object]] = set()  # closes left behind, kept from the collector


async def unless_stopping(step: Awaitable[T], stopping: asyncio.Event) -> T | None:
    """``step``'s result, or None if ``stopping`` is set first (``step`` is then cancelled):
    a step waiting on the broker (a produce awaiting its acknowledgement, a poll awaiting a
    group assignment) must not hold a shutdown up until the grace period runs out."""
    task = asyncio.ensure_future(step)
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not task.done():
            task.cancel()
            await close_within(
                asyncio.gather(task, return_exceptions=True),
                what="step given up on stopping",
                seconds=CANCEL_WAIT_S,
            )
    if not task.done() or task.cancelled():
        return None
    return task.result()
