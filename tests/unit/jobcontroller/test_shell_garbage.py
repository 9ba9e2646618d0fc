"""Objects of a deleted job (issue 15, defect 8): a sync that raced the deletion creates
nothing more once the cache shows the job gone, and what the gone uid still controls is deleted
by the next sync of the job's key, as Kubernetes' garbage collector would."""

from __future__ import annotations

from typing import Any

from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.core import Actions
from services.jobcontroller.executor import ActionExecutor
from services.jobcontroller.syncing import Syncer
from services.jobcontroller.workkeys import WorkKey
from shared.events import ObjectEvent
from shared.expectations import Expectations
from shared.kube.resources import resource_for
from shared.models import Json
from tests.unit.jobcontroller.fakekube import FakeKube

VCJOB = "batch.volcano.sh/v1alpha1"
KEY = WorkKey(f"{VCJOB}/Job", "ns/train")


def job(uid: str) -> Json:
    return {
        "apiVersion": VCJOB,
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "ns", "uid": uid},
        "spec": {"minAvailable": 1, "tasks": []},
    }


def owned(kind: str, name: str, owner_uid: str) -> Json:
    ref = {"apiVersion": VCJOB, "kind": "Job", "name": "train", "uid": owner_uid,
           "controller": True}  # fmt: skip
    api = "v1" if kind == "Pod" else "scheduling.volcano.sh/v1beta1"
    meta = {"name": name, "namespace": "ns", "ownerReferences": [ref]}
    return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": {}}


class World:
    """A FakeKube whose changes feed the controller cache at once."""

    def __init__(self) -> None:
        self.work: list[WorkKey] = []
        self.cache = ControllerCache(expectations=Expectations(), on_work=self.work.append)
        self.kube = FakeKube(on_change=self._apply)
        self.executor = ActionExecutor(self.kube, self.cache, post_events=False)
        self.syncer = Syncer(cache=self.cache, executor=self.executor)

    def _apply(self, event: ObjectEvent) -> None:
        self.cache.apply(event)  # type: ignore[arg-type]

    async def delete_job(self) -> None:
        await self.kube.delete(resource_for(VCJOB, "Job"), "train", "ns")


def names(objects: list[tuple[str, Any]]) -> list[str]:
    return sorted(obj.metadata.name for _, obj in objects)


async def test_dependents_of_a_deleted_job_are_dangling_until_deleted() -> None:
    world = World()
    world.kube.put(job("uid-a"))
    world.kube.put(owned("Pod", "train-worker-0", "uid-a"))
    world.kube.put(owned("PodGroup", "train-uid-a", "uid-a"))
    assert world.cache.dangling(KEY) == []  # the job is alive
    await world.delete_job()
    assert names(world.cache.dangling(KEY)) == ["train-uid-a", "train-worker-0"]
    await world.syncer.sync(KEY)
    deleted = [(kind, key) for verb, kind, key, _ in world.kube.calls if verb == "delete"]
    assert sorted(deleted[1:]) == [("Pod", "ns/train-worker-0"), ("PodGroup", "ns/train-uid-a")]
    assert world.cache.dangling(KEY) == []


async def test_a_job_recreated_under_the_same_name_keeps_only_its_own_objects() -> None:
    world = World()
    world.kube.put(job("uid-a"))
    await world.delete_job()
    world.kube.put(job("uid-b"))
    # A pod created for the first job by a sync that raced its deletion arrives late.
    world.kube.put(owned("Pod", "late", "uid-a"))
    world.kube.put(owned("Pod", "mine", "uid-b"))
    assert names(world.cache.dangling(KEY)) == ["late"]
    assert KEY in world.work  # the late pod woke the job's key up


async def test_no_creation_for_a_job_the_cache_shows_gone() -> None:
    world = World()
    world.kube.put(job("uid-a"))
    head = job("uid-a")
    await world.delete_job()
    actions = Actions(create=[owned("Pod", "train-worker-0", "uid-a")])
    outcome = await world.executor.execute(KEY, head, actions)
    assert not outcome.failed
    assert world.kube.verbs("create") == []
