"""Watch history and fan-out for one resource type.

Every change becomes an ``Event`` that is kept in a bounded history (so a watch can resume from
a resourceVersion, or get 410 Gone when it asks for one older than the history) and offered to
every live ``Watcher``. An event's watch line is encoded once, lazily, and the same bytes are
queued by every watcher that sees it. Watchers buffer lines and are woken once per batch, so a
burst of events costs one write per watcher.

A watcher whose queued lines pass its byte budget (``limit``) is ended, as kube-apiserver's
cacher ends a watcher that cannot take an event in time ("Forcing watcher close due to
unresponsiveness": the stream ends without an ERROR event, and the client re-lists and
watches again): its queue is dropped at once, and ``on_overflow`` lets the stream close a
connection whose client has stopped reading. Shared lines make the budget a bound on memory:
stalled watchers refer to the same last ``limit`` bytes of events.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Callable
from typing import Any

import msgspec

Obj = dict[str, Any]
Predicate = Callable[[Obj], bool]
Render = Callable[[str, Obj], bytes]

_encode = msgspec.json.encode
_ADDED, _MODIFIED, _DELETED = "ADDED", "MODIFIED", "DELETED"


class Event:
    """One change of one object; ``old`` is the previous state for MODIFIED."""

    __slots__ = ("_line", "_object_bytes", "obj", "old", "rv", "type")

    def __init__(self, type_: str, obj: Obj, old: Obj | None, rv: int) -> None:
        self.type = type_
        self.obj = obj
        self.old = old
        self.rv = rv
        self._object_bytes: bytes | None = None
        self._line: bytes | None = None

    def object_bytes(self) -> bytes:
        if self._object_bytes is None:
            self._object_bytes = _encode(self.obj)
        return self._object_bytes

    def line(self, type_: str) -> bytes:
        """The watch line of this event seen as ``type_``; the event's own type is built once
        for every watcher."""
        if type_ != self.type:
            return event_line(type_, self.object_bytes())
        if self._line is None:
            self._line = event_line(type_, self.object_bytes())
        return self._line

    def forget_encoding(self) -> None:
        self._object_bytes = None
        self._line = None


def event_line(type_: str, object_bytes: bytes) -> bytes:
    return b'{"type":"' + type_.encode() + b'","object":' + object_bytes + b"}\n"


DEFAULT_LIMIT = 64 * 1024 * 1024
TAKE = 128 * 1024  # bytes handed to one write; the rest stay queued (and shared) meanwhile


class Watcher:
    """One watch stream: its filter, its pending lines, and a wake-up flag for its writer."""

    __slots__ = (
        "_waiter",
        "buffer",
        "closed",
        "limit",
        "namespace",
        "on_overflow",
        "overflowed",
        "pending",
        "predicate",
        "render",
    )

    def __init__(
        self,
        *,
        namespace: str | None,
        predicate: Predicate | None,
        render: Render | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self.namespace = namespace
        self.predicate = predicate
        self.render = render
        self.limit = limit  # bytes queued before the watch is ended as too slow
        self.buffer: list[bytes] = []
        self.pending = 0  # bytes in ``buffer``
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.overflowed = False
        self.on_overflow: Callable[[], None] | None = None

    def _selected(self, obj: Obj | None) -> bool:
        if obj is None:
            return False
        if self.namespace is not None and obj["metadata"].get("namespace") != self.namespace:
            return False
        return self.predicate is None or self.predicate(obj)

    def offer(self, event: Event) -> None:
        """Queue the event as this watcher sees it (a change out of its selection is DELETED)."""
        if self.closed:
            return
        now = self._selected(event.obj)
        if event.type == _MODIFIED:
            before = self._selected(event.old)
            if not now and not before:
                return
            type_ = _MODIFIED if now and before else (_ADDED if now else _DELETED)
        elif now:
            type_ = event.type
        else:
            return
        self.push(type_, event)
        if self.pending > self.limit:
            self._overflow()

    def push(self, type_: str, event: Event) -> None:
        """Queue an event as ``type_`` (the initial events of a watch come this way, outside
        the budget: kube-apiserver serves them apart from the live queue too)."""
        if self.render is not None:
            self.push_line(event_line(type_, self.render(type_, event.obj)))
        else:
            self.push_line(event.line(type_))

    def push_line(self, line: bytes) -> None:
        self.buffer.append(line)
        self.pending += len(line)
        self._wake()

    def take(self, max_bytes: int = TAKE) -> bytes:
        """Queued lines, whole, up to about ``max_bytes``."""
        buffer = self.buffer
        if self.pending <= max_bytes:
            data = b"".join(buffer)
            buffer.clear()
            self.pending = 0
            return data
        size = count = 0
        for line in buffer:
            size += len(line)
            count += 1
            if size >= max_bytes:
                break
        data = b"".join(buffer[:count])
        del buffer[:count]
        self.pending -= size
        return data

    def close(self) -> None:
        self.closed = True
        self._wake()

    def _overflow(self) -> None:
        self.buffer = []
        self.pending = 0
        self.overflowed = True
        self.close()
        if self.on_overflow is not None:
            self.on_overflow()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, timeout: float) -> None:
        """Until there are lines to take, the watcher is closed, or ``timeout`` seconds pass
        (a future and a timer: no task per wake, as ``asyncio.wait_for`` would make)."""
        if self.buffer or self.closed:
            return
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_later(timeout, _settle, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class TooOld(Exception):
    """The requested resourceVersion is older than the kept history (410 Gone)."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")


class WatchHub:
    """History and live watchers of one resource type."""

    def __init__(self, *, max_history: int) -> None:
        self.max_history = max_history
        self.history: list[Event] = []
        # Highest resourceVersion that has been dropped from the history.
        self.compacted_rv = 0
        self.watchers: set[Watcher] = set()

    def publish(self, event: Event) -> None:
        self.history.append(event)
        if len(self.history) >= 2 * self.max_history:
            cut = len(self.history) - self.max_history
            self.compacted_rv = self.history[cut - 1].rv
            del self.history[:cut]
        for watcher in self.watchers:
            watcher.offer(event)
        # Live watchers hold their own lines now; the history re-encodes only for a resume,
        # which keeps memory at one copy of each object version instead of two.
        event.forget_encoding()

    def since(self, rv: int) -> list[Event]:
        """Events newer than ``rv``; TooOld when some of them were dropped."""
        if rv < self.compacted_rv:
            oldest = self.history[0].rv if self.history else self.compacted_rv + 1
            raise TooOld(rv, oldest)
        start = bisect.bisect_right(self.history, rv, key=lambda e: e.rv)
        return self.history[start:]

    def compact(self) -> None:
        """Forget the whole history (fault injection and tests of 410 handling)."""
        if self.history:
            self.compacted_rv = self.history[-1].rv
            self.history.clear()

    def subscribe(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)

    def unsubscribe(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
