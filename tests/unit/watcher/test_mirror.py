"""The watcher's mirror: LIST/WATCH observations → state events, incl. DELETED after a re-list."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.watcher.mirror import ResourceMirror
from shared.events import (
    ListSynced,
    ObjectAdded,
    ObjectDeleted,
    ObjectEvent,
    ObjectModified,
    object_of,
)


def pod(name: str, rv: str, owner: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": "ns",
        "uid": f"uid-{name}",
        "resourceVersion": rv,
    }
    if owner:
        meta["ownerReferences"] = [{"kind": "Job", "name": owner, "controller": True, "uid": "j"}]
    return {"metadata": meta, "spec": {"containers": [{"name": "c"}]}}


def test_first_list_adds_everything_then_marks_synced() -> None:
    mirror = ResourceMirror(kind="Pod", api_version="v1", producer="w")
    events = mirror.listed([pod("a", "1", owner="job"), pod("b", "2")], "10")
    assert [type(e) for e in events] == [ObjectAdded, ObjectAdded, ListSynced]
    assert [e.key for e in events[:2]] == ["ns/job", "ns/b"]
    synced = events[-1]
    assert isinstance(synced, ListSynced) and synced.count == 2 and synced.resourceVersion == "10"
    first = events[0]
    assert isinstance(first, ObjectAdded)
    assert object_of(first)["kind"] == "Pod"  # defaulted from the resource
    assert mirror.resource_version == "10"


def test_relist_publishes_changes_and_deletes_vanished_objects() -> None:
    mirror = ResourceMirror(kind="Pod", api_version="v1", producer="w")
    mirror.listed([pod("a", "1", owner="job"), pod("b", "2"), pod("c", "3")], "10")
    events = mirror.listed([pod("b", "2"), pod("c", "7"), pod("d", "8")], "20")
    kinds = [(type(e).__name__, getattr(e, "key", "")) for e in events]
    assert kinds == [
        ("ObjectModified", "ns/c"),
        ("ObjectAdded", "ns/d"),
        ("ObjectDeleted", "ns/job"),  # the vanished pod keeps its owner's key
        ("ListSynced", "Pod"),
    ]
    deleted = events[2]
    assert isinstance(deleted, ObjectDeleted)
    assert object_of(deleted)["metadata"]["uid"] == "uid-a"


def test_watch_events_and_bookmarks() -> None:
    mirror = ResourceMirror(kind="Pod", api_version="v1", producer="w")
    mirror.listed([], "1")
    assert isinstance(mirror.watched("ADDED", pod("a", "2")), ObjectAdded)
    assert isinstance(mirror.watched("MODIFIED", pod("a", "3")), ObjectModified)
    assert mirror.watched("BOOKMARK", {"metadata": {"resourceVersion": "9"}}) is None
    assert mirror.resource_version == "9"
    assert isinstance(mirror.watched("DELETED", pod("a", "10")), ObjectDeleted)
    assert len(mirror) == 0
    # After the delete, a re-list that does not contain it publishes nothing but the marker.
    assert [type(e) for e in mirror.listed([], "11")] == [ListSynced]


@pytest.mark.parametrize(
    ("obj", "event_type", "expected"),
    [
        ({**pod("a", "2", owner="job"), "apiVersion": "v1", "kind": "Pod"}, "ADDED", ObjectAdded),
        ({**pod("a", "3"), "apiVersion": "v1", "kind": "Pod"}, "DELETED", ObjectDeleted),
        (pod("a", "4", owner="job"), "ADDED", ObjectAdded),
    ],
    ids=["typed-object-passes-as-its-bytes", "deleted", "no-apiversion-decoded-and-completed"],
)
def test_raw_watch_event_is_the_same_record_as_the_decoded_one(
    obj: dict[str, Any], event_type: str, expected: type
) -> None:
    by_dict = ResourceMirror(kind="Pod", api_version="v1", producer="w")
    by_raw = ResourceMirror(kind="Pod", api_version="v1", producer="w")
    want = by_dict.watched(event_type, msgspec.json.decode(msgspec.json.encode(obj)))
    got = by_raw.watched_raw(event_type, msgspec.Raw(msgspec.json.encode(obj)))
    assert isinstance(got, ObjectEvent) and isinstance(want, ObjectEvent)
    assert type(got) is type(want) is expected
    assert (got.key, got.kind, got.resourceVersion) == (want.key, want.kind, want.resourceVersion)
    assert object_of(got) == object_of(want)
    assert by_raw.resource_version == by_dict.resource_version == obj["metadata"]["resourceVersion"]
    # the stub kept for a later re-list is the same too
    assert [e.key for e in by_raw.listed([], "99")] == [e.key for e in by_dict.listed([], "99")]
