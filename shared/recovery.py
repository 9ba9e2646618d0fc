"""Surviving the loss of the broker's log: a service body runs once per log generation.

``run_per_generation`` runs the body (a root task) with a stopping event of its own while it
watches the log generation (``shared.bus.generation``). When the generation changes the broker
lost its log: ``/readyz`` turns false, the body is stopped (and cancelled if it does not stop in
time), and a fresh body starts in the new generation: it recreates its topics, re-lists (the
watcher) or rebuilds from the beginning (everyone else, once the watcher has marked the state
topics resynced), and marks itself ready again. The API server is the source of truth, so nothing
is lost. A body that crashes while the log is being lost is treated as the loss, not as a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

import structlog

from shared.health import Readiness
from shared.runtime import RootTask

_log = structlog.get_logger()
_STOP_TIMEOUT_S = 10.0
_CRASH_CHECK_S = 15.0
_CANCEL_TIMEOUT_S = 10.0


class Generations(Protocol):
    """The log generation as the loop reads it (``shared.bus.generation.GenerationLog``)."""

    async def join(self) -> str: ...

    async def lost(self, generation: str, *, period: float) -> None: ...

    async def wait_resynced(self, generation: str, *, timeout: float, period: float) -> bool: ...


class GenerationHost(Protocol):
    """What the loop needs of the service shell."""

    readiness: Readiness
    generation: str

    def fresh_metrics(self) -> None:
        """Start a new metrics registry for the next body (its metrics are registered anew)."""


async def run_per_generation(
    *,
    host: GenerationHost,
    generations: Generations,
    body: RootTask,
    stopping: asyncio.Event,
    waits_for_state: bool,
    period: float,
    resync_timeout: float,
) -> None:
    """Run ``body`` until ``stopping``; re-run it from scratch whenever the log is lost."""
    first = True
    while not stopping.is_set():
        generation = await generations.join()
        if not first and waits_for_state:
            resynced = await generations.wait_resynced(
                generation, timeout=resync_timeout, period=period
            )
            if not resynced:
                _log.warning("state topics not marked resynced; rebuilding anyway")
        host.generation = generation
        if await _one_generation(
            host=host, generations=generations, body=body, stopping=stopping, period=period
        ):
            return
        first = False


async def _one_generation(
    *,
    host: GenerationHost,
    generations: Generations,
    body: RootTask,
    stopping: asyncio.Event,
    period: float,
) -> bool:
    """Run one body; True when the service is done, False when the log was lost."""
    generation = host.generation
    inner = asyncio.Event()
    running = asyncio.create_task(body(inner), name="body")
    lost = asyncio.create_task(generations.lost(generation, period=period), name="generation")
    stop = asyncio.create_task(stopping.wait(), name="stopping")
    try:
        await asyncio.wait({running, lost, stop}, return_when=asyncio.FIRST_COMPLETED)
        if stop.done():
            inner.set()
            await running
            return True
        if running.done() and not lost.done():
            if running.exception() is None:
                return True
            # A body that crashes as the broker loses its log is hit by the loss: check.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(lost), _CRASH_CHECK_S)
            if not lost.done():
                running.result()  # a real crash: re-raised, the service ends
        _log.warning("rebuilding after the broker lost its log", generation=generation)
        host.readiness.mark_not_ready("the broker lost its log; rebuilding")
        inner.set()
        await _stop(running)
        host.fresh_metrics()
        return False
    finally:
        for task in (lost, stop):
            task.cancel()
        await asyncio.gather(lost, stop, return_exceptions=True)


async def _stop(running: asyncio.Task[Any]) -> None:
    """Give the body a moment to stop by itself, then cancel it; its errors are the loss's.
    A body that does not end even when cancelled is left behind: the restarted embedded
    broker once left a consumer group mid-join, and stopping that consumer never returned,
    so the service never rebuilt. Its consumer's membership ends with its session."""
    done, _ = await asyncio.wait({running}, timeout=_STOP_TIMEOUT_S)
    if not done:
        running.cancel()
        done, _ = await asyncio.wait({running}, timeout=_CANCEL_TIMEOUT_S)
    if not done:
        _log.error(
            "the lost generation's body did not stop when cancelled; rebuilding without it",
            waited_s=_STOP_TIMEOUT_S + _CANCEL_TIMEOUT_S,
        )
        _LEFT_BEHIND.add(running)
        running.add_done_callback(_forget)
        return
    await asyncio.gather(running, return_exceptions=True)


_LEFT_BEHIND: set[asyncio.Task[Any]] = set()  # bodies left behind, kept from the collector


def _forget(task: asyncio.Task[Any]) -> None:
    _LEFT_BEHIND.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: its error is the loss's, not news
