"""Posting Events as client-go's recorder does (``tools/record``): correlate, then create or patch.

``EventCorrelator`` is a port of client-go's ``EventCorrelator`` (``events_cache.go``), a pure
core with the clock passed in and small per-process LRU caches (4096 entries each):

- *aggregation*: events alike but for their message (same source, object, type, reason) within
  10 minutes are counted; from the 10th distinct message on they become one Event whose message
  is ``(combined from similar events): <message>``;
- *deduplication*: an Event identical to one already posted is not created again: the existing
  one is patched with ``count`` + 1, ``lastTimestamp`` and ``message`` (strategic merge patch);
- *spam filter*: per source and object a token bucket of 25 Events refilled at 1 per 5 minutes;
  Events beyond it are dropped.

So a recurring Event costs one PATCH instead of one more object, and no extra call: the caches
remember what this process posted. ``EventRecorder`` is the I/O shell over a ``KubeClient``
(or any ``EventSink``): it posts in the background, as client-go's event broadcaster does.
Shoal posts core/v1 Events (what ``kubectl describe`` reads), so repetition shows as
``count``/``lastTimestamp``, not the ``series`` of events.k8s.io.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from shared.kube.client import ApiError
from shared.kube.errors import CALL_ERRORS
from shared.kube.resources import EVENT, ResourceType
from shared.kube.timefmt import format_rfc3339

Json = dict[str, Any]
V = TypeVar("V")

MAX_LRU_ENTRIES = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL = 600.0
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0
COMBINED_PREFIX = "(combined from similar events): "


class _Lru(Generic[V]):
    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, V] = OrderedDict()

    def get(self, key: str) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: str, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self._size:
            self._items.popitem(last=False)


def _involved(event: Json) -> Json:
    involved: Json = event.get("involvedObject") or {}
    return involved


def _source(event: Json) -> tuple[str, str]:
    source = event.get("source") or {}
    return str(source.get("component", "")), str(source.get("host", ""))


def _key(event: Json, involved: tuple[str, ...], own: tuple[str, ...]) -> str:
    """The source, then ``involved`` fields of the involved object, then ``own`` fields."""
    o = _involved(event)
    parts = (*_source(event), *(o.get(f, "") for f in involved), *(event.get(f, "") for f in own))
    return "\0".join(str(part) for part in parts)


_OBJECT = ("kind", "namespace", "name")
_IDENTITY = ("uid", "apiVersion")


def event_key(event: Json) -> str:
    """client-go ``getEventKey``: what makes two Events the same occurrence."""
    involved = (*_OBJECT, "fieldPath", *_IDENTITY)
    return _key(event, involved, ("type", "reason", "message"))


def _spam_key(event: Json) -> str:
    """client-go ``getSpamKey``: the object and the event type."""
    return _key(event, (*_OBJECT, *_IDENTITY), ("type",))


def _aggregate_key(event: Json) -> str:
    """client-go ``EventAggregatorByReasonFunc``: alike but for the message."""
    own = ("type", "reason", "reportingController", "reportingInstance")
    return _key(event, (*_OBJECT, *_IDENTITY), own)


@dataclass
class _Aggregate:
    messages: set[str] = field(default_factory=set)
    last: float = 0.0


@dataclass
class _Logged:
    count: int
    first_timestamp: str
    name: str


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass(frozen=True)
class Correlated:
    """What to do with an Event: ``patch`` the Event named in ``event`` if given, else create
    ``event``; nothing if ``skip``."""

    event: Json
    patch: Json | None = None
    skip: bool = False


class EventCorrelator:
    def __init__(self, *, size: int = MAX_LRU_ENTRIES) -> None:
        self._aggregates: _Lru[_Aggregate] = _Lru(size)
        self._logged: _Lru[_Logged] = _Lru(size)
        self._buckets: _Lru[_Bucket] = _Lru(size)

    def correlate(self, event: Json, now: float) -> Correlated:
        aggregated, key = self._aggregate(event, now)
        observed, patch = self._observe(aggregated, key)
        if self._spam(observed, now):
            return Correlated(event=observed, skip=True)
        return Correlated(event=observed, patch=patch)

    def update_state(self, event: Json) -> None:
        """Remember an Event the API server accepted (its name, for the next patch)."""
        meta = event.get("metadata") or {}
        self._logged.put(
            event_key(event),
            _Logged(
                count=int(event.get("count") or 1),
                first_timestamp=str(event.get("firstTimestamp") or ""),
                name=str(meta.get("name", "")),
            ),
        )

    def _aggregate(self, event: Json, now: float) -> tuple[Json, str]:
        key = _aggregate_key(event)
        record = self._aggregates.get(key)
        if record is None or now - record.last > AGGREGATE_INTERVAL:
            record = _Aggregate()
        record.messages.add(str(event.get("message", "")))
        record.last = now
        self._aggregates.put(key, record)
        if len(record.messages) < AGGREGATE_MAX_EVENTS:
            return event, event_key(event)
        record.messages.pop()
        stamp = format_rfc3339(now)
        name = _involved(event).get("name") or "object"
        combined = {
            **event,
            "metadata": {
                "name": f"{name}.{int(now * 1e9):x}",
                "namespace": (event.get("metadata") or {}).get("namespace"),
            },
            "count": 1,
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "message": COMBINED_PREFIX + str(event.get("message", "")),
        }
        return combined, key

    def _observe(self, event: Json, key: str) -> tuple[Json, Json | None]:
        last = self._logged.get(key)
        count = int(event.get("count") or 1)
        if last is None or last.count <= 0:
            first = str(event.get("firstTimestamp") or "")
            name = str((event.get("metadata") or {}).get("name", ""))
            self._logged.put(key, _Logged(count, first, name))
            return event, None
        count = last.count + 1
        meta = dict(event.get("metadata") or {})
        if last.name:  # else the first one's create has not returned: it is created anew
            meta["name"] = last.name
            meta.pop("generateName", None)
        first = last.first_timestamp or str(event.get("firstTimestamp") or "")
        observed = {**event, "metadata": meta, "count": count, "firstTimestamp": first}
        self._logged.put(key, _Logged(count, first, last.name))
        patch = {
            "count": count,
            "lastTimestamp": event.get("lastTimestamp"),
            "message": event.get("message"),
        }
        return observed, patch

    def _spam(self, event: Json, now: float) -> bool:
        """client-go's spam filter: a token bucket per source and object."""
        key = _spam_key(event)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(tokens=float(SPAM_BURST), at=now)
        bucket.tokens = min(float(SPAM_BURST), bucket.tokens + (now - bucket.at) * SPAM_QPS)
        bucket.at = now
        self._buckets.put(key, bucket)
        if bucket.tokens < 1.0:
            return True
        bucket.tokens -= 1.0
        return False


class EventSink(Protocol):
    """The verbs of ``KubeClient`` the recorder uses (client-go's ``EventSink``)."""

    async def create(self, rt: ResourceType, obj: Json, namespace: str | None = None) -> Json: ...

    async def patch(
        self,
        rt: ResourceType,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> Json: ...


class EventRecorder:
    """Posts Events through the correlator, in the background, as client-go's broadcaster.

    An Event never holds up the work it describes (kube-scheduler hands each to a buffered
    broadcaster and goes on binding): ``record`` queues it and returns at once; a few tasks
    correlate and post the queue — one create per new Event, one patch per repeat. When the
    backlog is full (the API server slow or away) new Events are dropped and counted.
    ``close`` posts what is queued for at most ``drain_s``, then gives up.
    """

    def __init__(
        self,
        kube: EventSink,
        *,
        clock: Callable[[], float] = time.time,
        concurrency: int = 8,
        backlog: int = 10_000,
    ) -> None:
        self._kube = kube
        self._clock = clock
        self.correlator = EventCorrelator()
        self._concurrency = concurrency
        self._queue: asyncio.Queue[Json] = asyncio.Queue(maxsize=backlog)
        self._posters: list[asyncio.Task[None]] = []
        self.dropped = 0

    def record(self, event: Json) -> None:
        """Queue one Event (from a task on the running loop); never blocks, never raises."""
        if not self._posters:
            self._posters = [
                asyncio.create_task(self._run(), name=f"event poster {i}")
                for i in range(self._concurrency)
            ]
        try:
            self._queue.put_nowait(event)
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

    async def _run(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                await self.post(event)
            finally:
                self._queue.task_done()

    async def post(self, event: Json) -> None:
        """Correlate and post one Event now. Best effort, as client-go's: a failed Event is
        dropped, never raised."""
        result = self.correlator.correlate(event, self._clock())
        if result.skip:
            return
        with contextlib.suppress(*CALL_ERRORS):
            posted = await self._post(result)
            self.correlator.update_state(posted)

    async def _post(self, result: Correlated) -> Json:
        event = result.event
        meta = event.get("metadata") or {}
        if result.patch is not None and meta.get("name"):
            try:
                return await self._kube.patch(
                    EVENT,
                    str(meta.get("name")),
                    result.patch,
                    namespace=meta.get("namespace"),
                    patch_type="strategic",
                )
            except ApiError as exc:
                if exc.status != 404:
                    raise
            # Expired (the API server's event TTL) or deleted: create it again, as client-go.
        return await self._kube.create(EVENT, event)
