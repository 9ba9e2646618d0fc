"""The ``--data-dir`` journal: what a restarted kubesim finds, however the last one ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.kubesim.journal import JOURNAL, Journal
from services.kubesim.registry import Registry
from services.kubesim.store import Store

REGISTRY = Registry()


def _store() -> Store:
    return Store(REGISTRY, clock=lambda: 1_700_000_000.0, strict_namespaces=False)


def _journaled(directory: Path) -> tuple[Store, Journal]:
    store, journal = _store(), Journal(directory)
    journal.restore(store)
    journal.open(store)
    store.listeners.append(journal)
    return store, journal


def _names(store: Store, key: str) -> list[str]:
    return sorted(o["metadata"]["name"] for o in store.tables[key].objects.values())


def test_creates_updates_and_deletes_survive(tmp_path: Path) -> None:
    store, journal = _journaled(tmp_path)
    cms = store.tables["configmaps"].rtype
    store.create(cms, "ns", {"metadata": {"name": "a"}, "data": {"v": "1"}})
    b = store.create(cms, "ns", {"metadata": {"name": "b"}})
    store.update(cms, "ns", "b", {**b, "data": {"v": "2"}})
    store.create(cms, "ns", {"metadata": {"name": "c"}})
    store.delete(cms, "ns", "c")
    journal.close()  # no snapshot on the way out: as after kill -9
    again = _store()
    restored = Journal(tmp_path).restore(again)
    assert [o["metadata"]["name"] for _, o in restored] == ["a", "b"]
    assert again.get(cms, "ns", "b")["data"] == {"v": "2"}
    assert again.rv == store.rv  # the deletion's version too: versions never repeat
    assert all(t.hub.compacted_rv == store.rv for t in again.tables.values())


def test_a_torn_last_line_is_ignored(tmp_path: Path) -> None:
    store, journal = _journaled(tmp_path)
    cms = store.tables["configmaps"].rtype
    store.create(cms, "ns", {"metadata": {"name": "whole"}})
    journal.close()
    with (tmp_path / JOURNAL).open("ab") as out:
        out.write(b'{"rv": 99, "resource": "configmaps", "obj": {"metad')
    again = _store()
    Journal(tmp_path).restore(again)
    assert _names(again, "configmaps") == ["whole"]


def test_open_rewrites_a_snapshot_of_the_live_objects(tmp_path: Path) -> None:
    store, journal = _journaled(tmp_path)
    pods = store.tables["pods"].rtype
    pod: dict[str, Any] = {"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "image": "i"}]}}  # fmt: skip
    created = store.create(pods, "ns", pod)
    for i in range(5):
        created = store.update_status(pods, created, {"phase": "Pending", "n": i})
    lines_before = len((tmp_path / JOURNAL).read_bytes().splitlines())
    journal.open(store)
    lines = (tmp_path / JOURNAL).read_bytes().splitlines()
    assert lines_before == 1 + 6 and len(lines) == 2  # the version line and the one pod
    again = _store()
    Journal(tmp_path).restore(again)
    assert again.get(pods, "ns", "p")["status"] == {"phase": "Pending", "n": 4}
    assert journal.needs_compaction(1) is False
