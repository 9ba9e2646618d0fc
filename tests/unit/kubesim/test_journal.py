"""The ``--data-dir`` journal: what a restarted kubesim finds, however the last one ended, and
that no damage is ever dropped quietly."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.kubesim.journal import JOURNAL, LEGACY_JOURNAL, Journal, JournalDamaged
from services.kubesim.journal_frames import FILE_HEADER, HEADER_SIZE, MAGIC, Frame, scan_frames
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


def test_open_rewrites_a_snapshot_of_the_live_objects(tmp_path: Path) -> None:
    store, journal = _journaled(tmp_path)
    pods = store.tables["pods"].rtype
    pod: dict[str, Any] = {"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "image": "i"}]}}  # fmt: skip
    created = store.create(pods, "ns", pod)
    for i in range(5):
        created = store.update_status(pods, created, {"phase": "Pending", "n": i})
    frames_before = len(scan_frames((tmp_path / JOURNAL).read_bytes()).items)
    journal.open(store)
    scan = scan_frames((tmp_path / JOURNAL).read_bytes())
    assert frames_before == 1 + 6 and len(scan.items) == 2  # the version record and the pod
    again = _store()
    Journal(tmp_path).restore(again)
    assert again.get(pods, "ns", "p")["status"] == {"phase": "Pending", "n": 4}
    assert journal.needs_compaction(1) is False


# The journal every corruption row starts from: records 1 (the version), 2 a=v1, 3 a=v2,
# 4 b, 5 c. Object data is long so that a byte flipped in it leaves the key readable.
def _written(directory: Path) -> bytes:
    store, journal = _journaled(directory)
    cms = store.tables["configmaps"].rtype
    a = store.create(cms, "ns", {"metadata": {"name": "a"}, "data": {"v": "one" * 20}})
    store.update(cms, "ns", "a", {**a, "data": {"v": "two" * 20}})
    store.create(cms, "ns", {"metadata": {"name": "b"}, "data": {"v": "bee" * 20}})
    store.create(cms, "ns", {"metadata": {"name": "c"}, "data": {"v": "sea" * 20}})
    journal.close()
    return (directory / JOURNAL).read_bytes()


def _frames(data: bytes) -> list[Frame]:
    frames = [item for item in scan_frames(data).items if isinstance(item, Frame)]
    assert len(frames) == 5
    return frames


def _splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    return data[:start] + new + data[end:]


def _flip_in_data(data: bytes, f: Frame) -> bytes:
    at = data.index(b"bee", f.offset)  # b's data, after its key
    return _splice(data, at, at + 1, bytes([data[at] ^ 0x20]))


def _with_length(data: bytes, f: Frame, delta: int) -> bytes:
    length = int.from_bytes(data[f.offset + 2 : f.offset + 6], "big") + delta
    return _splice(data, f.offset + 2, f.offset + 6, length.to_bytes(4, "big"))


@dataclass(frozen=True)
class Corruption:
    id: str
    damage: Callable[[bytes, list[Frame]], bytes]
    # (record, byte offset) named in the refusal; None: not damage, the start goes on.
    refused_at: Callable[[list[Frame]], tuple[int, int]] | None
    # The configmaps after the start (with --repair where refused), and what --repair reports.
    kept: dict[str, str]
    lost: list[str]
    unidentified: int = 0


V1, V2, B, C = "one" * 20, "two" * 20, "bee" * 20, "sea" * 20
CORRUPTIONS = [
    # A kill in the middle of the last write: dropped without a word, as before (not damage).
    Corruption(
        "torn-tail", lambda d, f: d[: f[4].offset + HEADER_SIZE + 7], None, {"a": V2, "b": B}, []
    ),
    Corruption("torn-header", lambda d, f: d + MAGIC[:1], None, {"a": V2, "b": B, "c": C}, []),
    Corruption(
        "flipped-bytes",
        lambda d, f: _flip_in_data(d, f[3]),
        lambda f: (4, f[3].offset),
        {"a": V2, "c": C},
        ["configmaps ns/b"],
    ),
    Corruption(
        "garbage-between-records",
        lambda d, f: _splice(d, f[3].offset, f[3].offset, b"\x00garbage\xc5 more garbage\n"),
        lambda f: (4, f[3].offset),
        {"a": V2, "b": B, "c": C},
        [],
    ),
    Corruption(
        "garbage-over-a-record",
        lambda d, f: _splice(d, f[3].offset, f[3].end, b"#" * (f[3].end - f[3].offset)),
        lambda f: (4, f[3].offset),
        {"a": V2, "c": C},
        [],
        unidentified=1,
    ),
    Corruption(
        "invalid-utf8",
        lambda d, f: _splice(d, d.index(b"bee"), d.index(b"bee") + 2, b"\xff\xfe"),
        lambda f: (4, f[3].offset),
        {"a": V2, "c": C},
        ["configmaps ns/b"],
    ),
    Corruption(
        "wrong-length",
        lambda d, f: _with_length(d, f[3], 3),
        lambda f: (4, f[3].offset),
        {"a": V2, "c": C},
        ["configmaps ns/b"],
    ),
    # A last record whose length says "longer than the file" is damage, not a torn write:
    # the header's own checksum tells them apart.
    Corruption(
        "wrong-length-last",
        lambda d, f: _with_length(d, f[4], 1000),
        lambda f: (5, f[4].offset),
        {"a": V2, "b": B},
        ["configmaps ns/c"],
    ),
    # a=v1 appended again: replayed, it would silently turn a back to v1.
    Corruption(
        "duplicated-record",
        lambda d, f: d + d[f[1].offset : f[1].end],
        lambda f: (6, f[4].end),
        {"a": V2, "b": B, "c": C},
        [],
    ),
    Corruption(
        "record-cut-out",
        lambda d, f: _splice(d, f[3].offset, f[3].end, b""),
        lambda f: (4, f[3].offset),
        {"a": V2, "c": C},
        [],
        unidentified=1,
    ),
    Corruption(
        "not-a-journal",
        lambda d, f: b"{}\n" + d[len(FILE_HEADER) :],
        lambda f: (1, 0),
        {"a": V2, "b": B, "c": C},
        [],
    ),
]


def _restore(directory: Path, *, repair: bool) -> tuple[Store, Journal, list[str]]:
    store, reported = _store(), list[str]()
    journal = Journal(directory, repair=repair, report=reported.append)
    journal.restore(store)
    return store, journal, reported


def _data(store: Store) -> dict[str, str]:
    return {
        o["metadata"]["name"]: o["data"]["v"] for o in store.tables["configmaps"].objects.values()
    }


@pytest.mark.parametrize("case", CORRUPTIONS, ids=[c.id for c in CORRUPTIONS])
def test_damage_is_refused_then_repaired_naming_what_was_lost(
    tmp_path: Path, case: Corruption
) -> None:
    data = _written(tmp_path)
    frames = _frames(data)
    damaged = case.damage(data, frames)
    (tmp_path / JOURNAL).write_bytes(damaged)
    if case.refused_at is None:
        store, _, reported = _restore(tmp_path, repair=False)
        assert _data(store) == case.kept and reported == []
        return
    record, offset = case.refused_at(frames)
    with pytest.raises(JournalDamaged) as refused:
        _restore(tmp_path, repair=False)
    line = str(refused.value)
    assert "\n" not in line and str(tmp_path / JOURNAL) in line
    assert f"record {record}, byte offset {offset}:" in line
    assert (tmp_path / JOURNAL).read_bytes() == damaged  # refused: nothing touched

    store, journal, reported = _restore(tmp_path, repair=True)
    assert _data(store) == case.kept
    assert sorted(o for loss in journal.losses for o in loss.objects) == case.lost
    assert sum(loss.unidentified for loss in journal.losses) == case.unidentified
    lost = len(case.lost) + case.unidentified
    assert re.search(rf"lost the last change of {lost} object\(s\)", reported[0])
    assert all(name in "\n".join(reported) for name in case.lost)
    aside = next(tmp_path.glob("journal.damaged-*"))
    moved = b"".join(damaged[x.damage.offset : x.damage.end] for x in journal.losses)
    assert aside.read_bytes() == moved and str(aside) in reported[0]
    journal.open(store)  # the repaired journal is a clean one
    assert _data(_restore(tmp_path, repair=False)[0]) == case.kept


LEGACY = (
    b'{"rv":3}\n'
    b'{"rv":2,"resource":"configmaps","obj":{"metadata":{"name":"a","namespace":"ns",'
    b'"resourceVersion":"2"}},"namespace":"ns","name":"a"}\n'
    b'{"rv":3,"resource":"configmaps","obj":{"metadata":{"name":"b","namespace":"ns",'
    b'"resourceVersion":"3"}},"namespace":"ns","name":"b"}\n'
)


@pytest.mark.parametrize(
    ("legacy", "kept", "refused_at"),
    [
        (LEGACY + b'{"rv": 4, "resource": "configm', ["a", "b"], None),
        (LEGACY.replace(b'"name":"a"}\n', b'"name":"a"}\nGARBAGE\n'), ["a", "b"], "record 3,"),
        (LEGACY.replace(b'"resourceVersion":"3"', b'"resourceVersion":"\xff"'), ["a"], "record 3,"),
    ],
    ids=["migrated-torn-tail-dropped", "garbage-line-refused", "invalid-utf8-refused"],
)
def test_an_old_format_journal_is_migrated_or_refused(
    tmp_path: Path, legacy: bytes, kept: list[str], refused_at: str | None
) -> None:
    (tmp_path / LEGACY_JOURNAL).write_bytes(legacy)
    if refused_at is not None:
        with pytest.raises(JournalDamaged, match=f"{LEGACY_JOURNAL} is damaged at {refused_at}"):
            _restore(tmp_path, repair=False)
    store, journal, _ = _restore(tmp_path, repair=refused_at is not None)
    assert _names(store, "configmaps") == kept and store.rv == 3
    journal.open(store)
    assert not (tmp_path / LEGACY_JOURNAL).exists()
    assert (tmp_path / JOURNAL).read_bytes().startswith(FILE_HEADER)
    assert _names(_restore(tmp_path, repair=False)[0], "configmaps") == kept
