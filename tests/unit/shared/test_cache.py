"""The object cache applies at-least-once, multi-watcher records idempotently."""

from __future__ import annotations

from typing import Any

import pytest

from shared.cache import ObjectCache
from shared.events import ListSynced, ObjectAdded, ObjectDeleted, ObjectModified, raw_object
from shared.models import Job, Pod, VolcanoJob


def pod(rv: str, uid: str = "u1", phase: str = "Pending") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "uid": uid, "resourceVersion": rv},
        "status": {"phase": phase},
    }


def added(obj: dict[str, Any]) -> ObjectAdded:
    return ObjectAdded(key="ns/p", kind=obj["kind"], resourceVersion="", object=raw_object(obj))


def modified(obj: dict[str, Any]) -> ObjectModified:
    return ObjectModified(key="ns/p", kind=obj["kind"], resourceVersion="", object=raw_object(obj))


def deleted(obj: dict[str, Any]) -> ObjectDeleted:
    return ObjectDeleted(key="ns/p", kind=obj["kind"], resourceVersion="", object=raw_object(obj))


def test_duplicates_and_older_versions_are_ignored() -> None:
    cache = ObjectCache()
    cache.apply(added(pod("5")))
    cache.apply(modified(pod("7", phase="Running")))
    assert cache.apply(modified(pod("6", phase="Pending"))) is None
    assert cache.apply(added(pod("7", phase="Running"))) is None
    current = cache.get("v1/Pod", "ns/p")
    assert isinstance(current, Pod) and current.status.phase == "Running"
    assert cache.ignored == 2


def test_delete_then_late_duplicate_does_not_resurrect() -> None:
    cache = ObjectCache()
    cache.apply(added(pod("5")))
    cache.apply(deleted(pod("5")))
    assert cache.get("v1/Pod", "ns/p") is None
    cache.apply(modified(pod("5")))
    assert cache.get("v1/Pod", "ns/p") is None
    # A new object with the same name (new uid) is a different object.
    cache.apply(added(pod("9", uid="u2")))
    assert cache.get("v1/Pod", "ns/p").metadata.uid == "u2"


def test_delete_of_an_older_incarnation_keeps_the_new_one() -> None:
    cache = ObjectCache()
    cache.apply(added(pod("9", uid="u2")))
    cache.apply(deleted(pod("5", uid="u1")))
    assert cache.get("v1/Pod", "ns/p").metadata.uid == "u2"


def test_same_kind_name_in_two_groups_and_sync_markers() -> None:
    cache = ObjectCache()
    batch_job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "uid": "a"}}
    vc_job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"}}
    cache.apply(added(batch_job))
    cache.apply(added(vc_job))
    assert isinstance(cache.get("batch/v1/Job", "j"), Job)
    assert isinstance(cache.get("batch.volcano.sh/v1alpha1/Job", "j"), VolcanoJob)
    cache.apply(ListSynced(key="Job", kind="Job", resourceVersion="3"))
    assert cache.synced == {"Job"}


def test_change_callback_sees_before_and_after() -> None:
    seen: list[tuple[str, str | None, str | None]] = []

    def on_change(key: str, old: Any, new: Any) -> None:
        seen.append((key, old and old.status.phase, new and new.status.phase))

    cache = ObjectCache(on_change=on_change)
    cache.apply(added(pod("1")))
    cache.apply(modified(pod("2", phase="Running")))
    cache.apply(deleted(pod("2", phase="Running")))
    assert seen == [
        ("ns/p", None, "Pending"),
        ("ns/p", "Pending", "Running"),
        ("ns/p", "Running", None),
    ]


@pytest.mark.parametrize(
    ("doc", "kind", "model"),
    [
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, "Pod", "Pod"),
        ({"apiVersion": "v2", "kind": "Pod", "metadata": {"name": "p"}}, "Pod", "Resource"),
        ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}, "Pod", "Node"),
        ({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}}, "Job", "Job"),
        (
            {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"}},
            "Job",
            "VolcanoJob",
        ),
        (
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w"}},
            "Workload",
            "Workload",
        ),
    ],
    ids=[
        "by-kind",
        "unknown-version",
        "record-kind-differs",
        "batch-job",
        "volcano-job",
        "kueue-v1beta2",
    ],
)
def test_decode_object_picks_the_model_of_the_objects_own_version_and_kind(
    doc: dict[str, Any], kind: str, model: str
) -> None:
    from shared.cache import decode_object
    from shared.events import ObjectAdded, raw_object

    event = ObjectAdded(key="k", kind=kind, resourceVersion="1", object=raw_object(doc))
    assert type(decode_object(event)).__name__ == model


def test_a_journal_collects_the_keys_changed_since_it_was_read() -> None:
    cache = ObjectCache()
    cache.apply(added(pod("1")))
    journal = cache.journal("v1/Pod")
    assert journal == set() and cache.journal("v1/Pod") is journal  # from now on, one per kind
    cache.apply(modified(pod("2", phase="Running")))
    cache.apply(modified(pod("2", phase="Running")))  # a duplicate changes nothing
    assert journal == {"ns/p"}
    journal.clear()
    cache.apply(deleted(pod("3")))
    assert journal == {"ns/p"}
    assert cache.journal("v1/Node") == set()  # each kind has its own
