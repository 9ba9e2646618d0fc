"""The controller cache: what wakes which job, expectations lowered on observed events, shards."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.cache import ControllerCache, Sharding
from services.jobcontroller.workkeys import BATCH_JOB, POD, VOLCANO_JOB, WorkKey, expectation_key
from shared.bus.memory import partition_for
from shared.events import ObjectAdded, ObjectDeleted, ObjectModified, StateEvent, raw_object
from shared.expectations import Expectations
from shared.models import Json

VJOB = WorkKey(VOLCANO_JOB, "ns/train")


def owned_by(kind: str, api_version: str, name: str) -> list[Json]:
    return [{"apiVersion": api_version, "kind": kind, "name": name, "uid": "u", "controller": True}]


def obj(kind: str, name: str, **extra: Any) -> Json:
    api_version = {
        "Pod": "v1",
        "PodGroup": "scheduling.volcano.sh/v1beta1",
        "Command": "bus.volcano.sh/v1alpha1",
    }.get(kind, "batch.volcano.sh/v1alpha1")
    meta = {"name": name, "namespace": "ns", "uid": f"uid-{name}", "resourceVersion": "1"}
    meta.update(extra.pop("metadata", {}))
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **extra}


def event(cls: type[ObjectAdded | ObjectModified | ObjectDeleted], body: Json) -> StateEvent:
    return cls(key="ns/x", kind=body["kind"], resourceVersion="1", object=raw_object(body))


def make() -> tuple[ControllerCache, list[WorkKey]]:
    woken: list[WorkKey] = []
    return ControllerCache(expectations=Expectations(), on_work=woken.append), woken


VOLCANO_OWNER = {"ownerReferences": owned_by("Job", "batch.volcano.sh/v1alpha1", "train")}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (obj("Job", "train"), [VJOB]),
        (obj("Pod", "train-w-0", metadata=VOLCANO_OWNER), [VJOB]),
        (obj("PodGroup", "train-uid", metadata=VOLCANO_OWNER), [VJOB]),
        (
            obj(
                "Command",
                "cmd",
                action="AbortJob",
                target=owned_by("Job", "batch.volcano.sh/v1alpha1", "train")[0],
            ),
            [VJOB],
        ),
        (
            obj("Pod", "plain", spec={"schedulerName": "volcano"}),
            [WorkKey(POD, "ns/plain")],
        ),
        (obj("Pod", "other", spec={"schedulerName": "default-scheduler"}), []),
        (
            obj(
                "Pod",
                "grouped",
                spec={"schedulerName": "volcano"},
                metadata={"annotations": {"scheduling.k8s.io/group-name": "pg"}},
            ),
            [],
        ),
    ],
    ids=[
        "job",
        "owned-pod",
        "owned-podgroup",
        "command-target",
        "plain-pod",
        "other-scheduler",
        "grouped-pod",
    ],
)
def test_changes_wake_the_owning_job(body: Json, expected: list[WorkKey]) -> None:
    cache, woken = make()
    cache.apply(event(ObjectAdded, body))
    assert woken == expected


def test_observe_index_and_ownership_change() -> None:
    cache, woken = make()
    pod = obj("Pod", "train-w-0", metadata=VOLCANO_OWNER)
    cache.apply(event(ObjectAdded, pod))
    assert [p.metadata.name for p in cache.owned(VJOB, POD)] == ["train-w-0"]
    released = obj("Pod", "train-w-0", metadata={"resourceVersion": "2"})
    cache.apply(event(ObjectModified, released))
    assert cache.owned(VJOB, POD) == []
    assert [p.metadata.name for p in cache.loose(POD, "ns")] == ["train-w-0"]
    assert woken[-1] == VJOB  # the job that lost the pod is told


def test_expectations_are_lowered_by_observed_added_and_deleted() -> None:
    cache, _ = make()
    exp_key = expectation_key(VJOB, POD)
    cache.expectations.expect_creations(exp_key, 2, now=0.0)
    cache.expectations.expect_deletions(exp_key, ["uid-old"], now=0.0)
    old = obj("Pod", "old", metadata={**VOLCANO_OWNER, "uid": "uid-old"})
    cache.apply(event(ObjectAdded, old))  # 1 of 2 creations seen
    cache.apply(
        event(ObjectModified, {**old, "metadata": {**old["metadata"], "resourceVersion": "2"}})
    )
    assert not cache.expectations.satisfied(exp_key, now=1.0)
    cache.apply(event(ObjectAdded, obj("Pod", "new", metadata=VOLCANO_OWNER)))
    assert not cache.expectations.satisfied(exp_key, now=1.0)  # the deletion is still out
    cache.apply(event(ObjectDeleted, old))
    assert cache.expectations.satisfied(exp_key, now=1.0)


def test_job_deletion_forgets_its_expectations() -> None:
    cache, _ = make()
    job = obj("Job", "train")
    cache.apply(event(ObjectAdded, job))
    cache.expectations.expect_creations(expectation_key(VJOB, POD), 3, now=0.0)
    cache.apply(event(ObjectDeleted, job))
    assert cache.expectations.keys() == []


def test_undecodable_job_is_kept_as_invalid_and_woken() -> None:
    cache, woken = make()
    bad = obj("Job", "train", spec={"tasks": "not-a-list"})
    cache.apply(event(ObjectAdded, bad))
    assert VJOB in cache.invalid and "tasks" in cache.invalid[VJOB].error
    assert woken == [VJOB]
    cache.apply(event(ObjectModified, obj("Job", "train", metadata={"resourceVersion": "2"})))
    assert VJOB not in cache.invalid


def test_orphan_pod_wakes_batch_jobs_of_its_namespace_once() -> None:
    cache, woken = make()
    job = {**obj("Job", "j"), "apiVersion": "batch/v1"}
    cache.apply(event(ObjectAdded, job))
    orphan = obj("Pod", "o", metadata={"labels": {"app": "x"}})
    cache.apply(event(ObjectAdded, orphan))
    cache.apply(event(ObjectModified, obj("Pod", "o", metadata={"resourceVersion": "2"})))
    assert woken.count(WorkKey(BATCH_JOB, "ns/j")) == 2  # its own ADDED, then the new orphan


@pytest.mark.parametrize(("shard", "shards"), [(0, 1), (0, 3), (1, 3), (2, 3)], ids=str)
def test_sharding_matches_the_kafka_partitioner(shard: int, shards: int) -> None:
    sharding = Sharding(shard, shards)
    for i in range(200):
        key = f"ns/job-{i}"
        partition = partition_for(key.encode(), 12, 0)
        assert sharding.owns_key(key, 12) == (partition % shards == shard)


def test_our_own_status_write_is_applied_before_the_watcher_delivers_it() -> None:
    """A sync's pod events can overtake the watcher's copy of the status it wrote; the cache
    takes the API server's answer at once and then ignores the older or equal records."""
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "idx", "namespace": "ns", "uid": "j", "resourceVersion": "5"},
        "status": {"completedIndexes": "0"},
    }
    cache.apply(ObjectAdded(key="ns/idx", kind="Job", resourceVersion="5", object=raw_object(job)))
    written = {
        **job,
        "metadata": {**job["metadata"], "resourceVersion": "7"},
        "status": {"completedIndexes": "0-1"},
    }
    cache.observe_written(written)
    assert cache.job(WorkKey(BATCH_JOB, "ns/idx")).status.completedIndexes == "0-1"
    stale = {**job, "metadata": {**job["metadata"], "resourceVersion": "6"}}
    cache.apply(
        ObjectModified(key="ns/idx", kind="Job", resourceVersion="6", object=raw_object(stale))
    )
    assert cache.job(WorkKey(BATCH_JOB, "ns/idx")).status.completedIndexes == "0-1"
