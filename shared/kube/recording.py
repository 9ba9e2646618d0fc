"""Posting Events in the background, as client-go's event broadcaster does.

A controller's Events are best effort: kube-scheduler hands each one to a buffered broadcaster
and goes on binding, so an Event never holds up the work it describes. ``EventRecorder.record``
queues a manifest and returns at once; a few tasks post the queue. When the backlog is full
(the API server is slow or away) new Events are dropped and counted, never waited for.
``close`` posts what is queued, for at most ``drain_s``, then gives up.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

from shared.kube.errors import CALL_ERRORS
from shared.kube.resources import EVENT, ResourceType

Json = dict[str, Any]


class EventApi(Protocol):
    async def create(self, rt: ResourceType, obj: Json, namespace: str | None = None) -> Json: ...


class EventRecorder:
    def __init__(self, kube: EventApi, *, concurrency: int = 8, backlog: int = 10_000) -> None:
        self._kube = kube
        self._concurrency = concurrency
        self._queue: asyncio.Queue[Json] = asyncio.Queue(maxsize=backlog)
        self._posters: list[asyncio.Task[None]] = []
        self.dropped = 0

    def record(self, manifest: Json) -> None:
        """Queue one Event (from a task on the running loop); never blocks."""
        if not self._posters:
            self._posters = [
                asyncio.create_task(self._post(), name=f"event poster {i}")
                for i in range(self._concurrency)
            ]
        try:
            self._queue.put_nowait(manifest)
        except asyncio.QueueFull:
            self.dropped += 1

    def __len__(self) -> int:
        return self._queue.qsize()

    async def flush(self) -> None:
        """Until every Event queued so far was posted (or failed)."""
        await self._queue.join()

    async def close(self, *, drain_s: float = 2.0) -> None:
        if self._posters:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.flush(), drain_s)
        for task in self._posters:
            task.cancel()
        await asyncio.gather(*self._posters, return_exceptions=True)
        self._posters = []

    async def _post(self) -> None:
        while True:
            manifest = await self._queue.get()
            try:
                with contextlib.suppress(*CALL_ERRORS):
                    await self._kube.create(EVENT, manifest)
            finally:
                self._queue.task_done()
