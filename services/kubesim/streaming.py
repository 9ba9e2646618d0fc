"""The watch verb over HTTP: a chunked stream of JSON lines, one event per line.

The initial events (the current state for resourceVersion "" or "0", or the history after a
given version) are queued and the watcher subscribed before the first ``await``, so no change
can fall between the two. A version older than the kept history gets the ERROR event with a
410 Status the real server sends. Bookmarks (when asked for) carry the newest version the
stream has caught up to; ``timeoutSeconds`` and injected drops end the stream cleanly.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import msgspec

from services.kubesim import apierrors
from services.kubesim.faults import Faults
from services.kubesim.http_messages import STREAMED, Request, Response
from services.kubesim.registry import ResourceType
from services.kubesim.routing import is_true
from services.kubesim.store import Store
from services.kubesim.watch import (
    DEFAULT_LIMIT,
    Event,
    Predicate,
    Render,
    TooOld,
    Watcher,
    event_line,
)

Obj = dict[str, Any]
_encode = msgspec.json.encode


@dataclass(frozen=True, kw_only=True)
class WatchSettings:
    """Watch stream tuning."""

    # Seconds between BOOKMARK events on streams that asked for them.
    bookmark_interval: float = 1.0
    # Stream lifetime when the client sets no timeoutSeconds.
    default_timeout: float = 1800.0
    # Bytes of events a watcher may have queued before its watch is ended as too slow (the
    # client re-lists and watches again). Lines are shared between watchers, so stalled
    # watchers hold about this much between them, per resource type.
    max_buffered_bytes: int = DEFAULT_LIMIT


def _gone_line(message: str) -> bytes:
    return event_line("ERROR", _encode(apierrors.gone(message).status()))


def _bookmark(rtype: ResourceType, rv: int, initial_end: bool = False) -> bytes:
    meta: Obj = {"resourceVersion": str(rv)}
    if initial_end:
        meta["annotations"] = {"k8s.io/initial-events-end": "true"}
    obj = {"kind": rtype.kind, "apiVersion": rtype.api_version, "metadata": meta}
    return event_line("BOOKMARK", _encode(obj))


def _prime(watcher: Watcher, store: Store, rtype: ResourceType, query: Any, faults: Faults) -> bool:
    """Queue the initial events; False when the stream must end with 410 Gone."""
    raw = query.get("resourceVersion", "")
    bookmarks = is_true(query.get("allowWatchBookmarks"))
    if raw not in ("", "0") and faults.active and faults.watch_gone():
        watcher.push_line(_gone_line(f"too old resource version: {raw} (injected fault)"))
        return False
    if raw in ("", "0"):
        for obj in store.items(rtype, watcher.namespace):
            if watcher.predicate is None or watcher.predicate(obj):
                rv = int(obj["metadata"]["resourceVersion"])
                watcher.push("ADDED", Event("ADDED", obj, None, rv))
        if bookmarks and is_true(query.get("sendInitialEvents")):
            watcher.push_line(_bookmark(rtype, store.rv, initial_end=True))
        return True
    try:
        since = int(raw)
    except ValueError as exc:
        raise apierrors.bad_request(f"invalid resourceVersion {raw!r}") from exc
    if since > store.rv:
        # E.g. a client that kept its version across a kubesim restart: never a silent stream.
        raise apierrors.too_large_resource_version(since, store.rv)
    try:
        events = store.table(rtype).hub.since(since)
    except TooOld as exc:
        watcher.push_line(_gone_line(str(exc)))
        return False
    for event in events:
        watcher.offer(event)
    return True


async def serve_watch(
    request: Request,
    *,
    store: Store,
    rtype: ResourceType,
    namespace: str | None,
    predicate: Predicate | None,
    render: Render | None,
    faults: Faults,
    settings: WatchSettings,
) -> Response:
    query = request.query
    watcher = Watcher(
        namespace=namespace, predicate=predicate, render=render, limit=settings.max_buffered_bytes
    )
    hub = store.table(rtype).hub
    live = _prime(watcher, store, rtype, query, faults)
    if live:
        hub.subscribe(watcher)
    loop = asyncio.get_running_loop()
    timeout = float(query.get("timeoutSeconds") or settings.default_timeout)
    if faults.active and faults.watch_drop_after:
        timeout = min(timeout, faults.watch_drop_after)
    deadline = loop.time() + timeout
    bookmarks = is_true(query.get("allowWatchBookmarks"))
    try:
        response = request.stream(content_type="application/json")
        watcher.on_overflow = response.abort_if_stalled
        next_bookmark = loop.time() + settings.bookmark_interval
        while True:
            data = watcher.take()
            if data:
                await response.write(data)
            if not live or watcher.closed:
                break
            now = loop.time()
            if now >= deadline:
                break
            if bookmarks and now >= next_bookmark:
                watcher.push_line(_bookmark(rtype, store.rv))
                next_bookmark = now + settings.bookmark_interval
                continue
            wait = deadline - now
            if bookmarks:
                wait = min(wait, next_bookmark - now)
            await watcher.wait(wait)
        await response.write_eof()
    except ConnectionResetError:
        pass  # the client went away; nothing to clean up beyond unsubscribing
    finally:
        hub.unsubscribe(watcher)
    return STREAMED
