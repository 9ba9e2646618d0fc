"""Watch history: resume after a version, 410 below the kept window, per-watcher filtering."""

from __future__ import annotations

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
    watcher = Watcher(namespace="a", predicate=None, limit=2)
    watcher.offer(Event("ADDED", _obj("other", ns="b"), None, 1))
    assert watcher.take() == b""
    for rv in range(3):
        watcher.offer(Event("ADDED", _obj(f"p{rv}"), None, rv))
    assert watcher.closed
