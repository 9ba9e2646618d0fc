"""Store semantics without HTTP: versions, conflicts, status, finalizers, graceful pods."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.apierrors import ApiError
from services.kubesim.registry import Registry
from services.kubesim.store import Store


@pytest.fixture
def store() -> Store:
    s = Store(Registry(), clock=lambda: 1_700_000_000.0, strict_namespaces=False)
    return s


def _cm(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "data": {"k": "v"}}


def _rtype(store: Store, key: str) -> Any:
    return store.tables[key].rtype


def test_versions_increase_globally(store: Store) -> None:
    cms = _rtype(store, "configmaps")
    a = store.create(cms, "ns", _cm("a"))
    b = store.create(cms, "ns", _cm("b"))
    assert int(b["metadata"]["resourceVersion"]) == int(a["metadata"]["resourceVersion"]) + 1
    assert a["metadata"]["creationTimestamp"] == "2023-11-14T22:13:20Z"


def test_stale_update_conflicts_and_fresh_one_bumps_generation(store: Store) -> None:
    jobs = store.registry.lookup("batch.volcano.sh", "v1alpha1", "jobs")
    assert jobs is not None
    spec = {
        "tasks": [
            {"name": "t", "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
        ]
    }
    job = store.create(jobs, "ns", {"metadata": {"name": "j"}, "spec": spec})
    newer = store.update(jobs, "ns", "j", {**job, "spec": {**job["spec"], "maxRetry": 5}})
    assert newer["metadata"]["generation"] == 2
    with pytest.raises(ApiError) as err:
        store.update(jobs, "ns", "j", job)
    assert err.value.code == 409
    labelled = store.update(
        jobs, "ns", "j", {**newer, "metadata": {**newer["metadata"], "labels": {"a": "b"}}}
    )
    assert labelled["metadata"]["generation"] == 2  # metadata changes keep the generation


def test_finalizers_defer_removal(store: Store) -> None:
    cms = _rtype(store, "configmaps")
    created = store.create(cms, "ns", {**_cm("f"), "metadata": {"name": "f", "finalizers": ["x"]}})
    deleting, gone = store.delete(cms, "ns", "f")
    assert not gone and deleting["metadata"]["deletionTimestamp"]
    assert created["metadata"]["uid"] == deleting["metadata"]["uid"]
    cleared = {**deleting, "metadata": {**deleting["metadata"], "finalizers": []}}
    store.update(cms, "ns", "f", cleared)
    assert store.find(cms, "ns", "f") is None


def test_bound_pod_delete_is_graceful_unbound_is_not(store: Store) -> None:
    pods = _rtype(store, "pods")
    spec = {"containers": [{"name": "c", "image": "i"}]}
    store.create(pods, "ns", {"metadata": {"name": "bound"}, "spec": {**spec, "nodeName": "n"}})
    store.create(pods, "ns", {"metadata": {"name": "free"}, "spec": spec})
    deleting, gone = store.delete(pods, "ns", "bound", grace_seconds=10)
    assert not gone and deleting["metadata"]["deletionGracePeriodSeconds"] == 10
    _, gone = store.delete(pods, "ns", "free")
    assert gone
    _, gone = store.delete(pods, "ns", "bound", grace_seconds=0)
    assert gone and store.pods_on_node("n") == []
