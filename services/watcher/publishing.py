"""Publishing state events: one batching publisher per topic, in order, that never dies of one
object.

A record the bus would refuse (larger than ``max_record_bytes`` once encoded) is not sent: the
publisher hands it to ``on_too_large`` (the service logs it, counts it and posts a Warning
Event on the object) and goes on, so one huge object cannot crash-loop the watcher. A produce
that fails (the broker is restarting) is retried with capped back-off, never dropped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import structlog

from shared.bus import Bus, Outgoing
from shared.events import Envelope, encode
from shared.hops import WATCHER_PUBLISH, HopMetrics

RECORD_OVERHEAD = 1024
"""Bytes a record needs beyond its key and value (batch and record framing, headers)."""

TooLarge = Callable[[Envelope, int], Awaitable[None]]
"""Told about an event that was not published: the event and its encoded size."""

_log = structlog.get_logger()


class Publisher:
    """Batches state events of one resource topic onto the bus, in order."""

    def __init__(
        self,
        bus: Bus,
        topic: str,
        *,
        max_record_bytes: int,
        on_too_large: TooLarge,
        retry_backoff_max: float = 5.0,
        hops: HopMetrics | None = None,
    ) -> None:
        self._bus = bus
        self._topic = topic
        self._limit = max_record_bytes
        self._on_too_large = on_too_large
        self._backoff_max = retry_backoff_max
        self._hops = hops
        self._queue: asyncio.Queue[Envelope] = asyncio.Queue()

    def __len__(self) -> int:
        """Events waiting to be published."""
        return self._queue.qsize()

    def put(self, event: Envelope) -> None:
        self._queue.put_nowait(event)

    async def run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty() and len(batch) < 1000:
                batch.append(self._queue.get_nowait())
            records = [r for e in batch if (r := await self._record(e)) is not None]
            if records:
                await self._produce(records)
            if self._hops is not None:  # occurred_at: when the watcher read the event
                self._hops.observe_many(
                    WATCHER_PUBLISH, [e.occurred_at for e in batch], time.time()
                )
            for _ in batch:
                self._queue.task_done()

    async def flushed(self) -> None:
        await self._queue.join()

    def fits(self, event: Envelope) -> bool:
        """Whether ``event`` is small enough to publish (one that is not is skipped)."""
        return self._size(encode(event), event.key.encode()) <= self._limit

    @staticmethod
    def _size(value: bytes, key: bytes) -> int:
        return len(value) + len(key) + RECORD_OVERHEAD

    async def _record(self, event: Envelope) -> Outgoing | None:
        value, key = encode(event), event.key.encode()
        size = self._size(value, key)
        if size > self._limit:
            await self._on_too_large(event, size)
            return None
        return Outgoing(value=value, key=key)

    async def _produce(self, records: list[Outgoing]) -> None:
        delay = 0.1
        while True:
            try:
                await self._bus.produce_many(self._topic, records)
                return
            except Exception as exc:  # the broker is away: hold the batch, keep the order
                _log.warning("publish failed; retrying", topic=self._topic, error=repr(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._backoff_max)
