"""Watch history: resume after a version, 410 below the kept window, per-watcher filtering;
a watcher's wait for lines."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.kubesim.watch import Event, TooOld, Watcher, WatchHub


def _obj(name: str, ns: str = "a", team: str = "x") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns, "labels": {"team": team}}}


def test_since_returns_newer_events_and_410s_below_history() -> None:
    hub = WatchHub(max_history=3)
    for rv in range(1, 6):  # history trims lazily, at twice its size
        hub.publish(Event("ADDED", _obj(f"p{rv}"), None, rv))
    assert [e.rv for e in hub.since(3)] == [4, 5]
    assert len(hub.since(0)) == 5
    hub.publish(Event("ADDED", _obj("p6"), None, 6))  # trims to the newest 3
    assert [e.rv for e in hub.history] == [4, 5, 6]
    assert [e.rv for e in hub.since(3)] == [4, 5, 6]
    with pytest.raises(TooOld):
        hub.since(2)


def test_compact_forgets_everything() -> None:
    hub = WatchHub(max_history=10)
    hub.publish(Event("ADDED", _obj("p"), None, 5))
    hub.compact()
    assert hub.since(5) == []
    with pytest.raises(TooOld):
        hub.since(4)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [("x", "x", "MODIFIED"), ("x", "y", "DELETED"), ("y", "x", "ADDED"), ("y", "y", None)],
    ids=["stays", "leaves", "enters", "never"],
)
async def test_selector_transitions(before: str, after: str, expected: str | None) -> None:
    watcher = Watcher(namespace="a", predicate=lambda o: o["metadata"]["labels"]["team"] == "x")
    event = Event("MODIFIED", _obj("p", team=after), _obj("p", team=before), 2)
    watcher.offer(event)
    data = watcher.take()
    if expected is None:
        assert data == b""
    else:
        assert data.startswith(f'{{"type":"{expected}"'.encode()) and data.endswith(b"\n")


@pytest.mark.asyncio
async def test_watcher_filters_namespace_and_closes_when_too_slow() -> None:
    one = len(Event("ADDED", _obj("p0"), None, 0).line("ADDED"))
    watcher = Watcher(namespace="a", predicate=None, limit=2 * one)
    overflows: list[bool] = []
    watcher.on_overflow = lambda: overflows.append(True)
    watcher.offer(Event("ADDED", _obj("other", ns="b"), None, 1))
    assert watcher.take() == b"" and watcher.pending == 0
    for rv in range(2):
        watcher.offer(Event("ADDED", _obj(f"p{rv}"), None, rv))
    assert not watcher.closed and watcher.pending == 2 * one  # counted in bytes
    watcher.offer(Event("ADDED", _obj("p2"), None, 2))
    assert watcher.closed and watcher.overflowed and overflows == [True]
    assert watcher.buffer == [] and watcher.pending == 0  # its memory goes at once


def test_every_watcher_queues_the_same_bytes_and_takes_in_slices() -> None:
    hub = WatchHub(max_history=10)
    watchers = [Watcher(namespace=None, predicate=None) for _ in range(3)]
    for watcher in watchers:
        hub.subscribe(watcher)
    for rv in range(4):
        hub.publish(Event("ADDED", _obj(f"p{rv}", ns="a"), None, rv))
    first, second, third = watchers
    assert all(a is b for a, b in zip(first.buffer, second.buffer, strict=True))  # encoded once
    size = len(first.buffer[0])
    assert first.take(max_bytes=size + 1) == b"".join(third.buffer[:2])
    assert first.pending == 2 * size and second.pending == 4 * size


@pytest.mark.parametrize(
    ("wake", "timeout", "lines"),
    [
        (lambda w: w.push_line(b"x\n"), 5.0, b"x\n"),
        (lambda w: w.close(), 5.0, b""),
        (None, 0.01, b""),
    ],
    ids=["a-line-wakes-it", "close-wakes-it", "timeout-ends-it"],
)
async def test_watcher_wait(wake: Any, timeout: float, lines: bytes) -> None:
    watcher = Watcher(namespace=None, predicate=None)
    loop = asyncio.get_running_loop()
    if wake is not None:
        loop.call_soon(wake, watcher)
    started = loop.time()
    await asyncio.wait_for(watcher.wait(timeout), 2)
    assert loop.time() - started < 1.0
    assert watcher.take() == lines


async def test_watcher_wait_returns_at_once_with_lines_pending() -> None:
    watcher = Watcher(namespace=None, predicate=None)
    watcher.push_line(b"y\n")
    await asyncio.wait_for(watcher.wait(60.0), 0.5)
    assert watcher.take() == b"y\n"
