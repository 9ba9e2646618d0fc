"""Kueue's pod integration through the job controller's shell: the cache wakes a Kueue pod's
key (or its group's) when the pod or its Workload changes, and the sync writes what
``kueue_pods.reconcile`` decided: the Workload, then the pods ungated once it is admitted."""

from __future__ import annotations

from typing import Any

import msgspec

from services.jobcontroller import kueue_pod_workloads
from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.executor import ActionExecutor
from services.jobcontroller.syncing import Syncer
from services.jobcontroller.workkeys import KUEUE_POD_GROUP, POD, WorkKey
from shared.events import ObjectEvent
from shared.expectations import Expectations
from shared.kube.resources import resource_for
from shared.models import Json, Pod
from tests.unit.jobcontroller.fakekube import FakeKube

WORKLOAD_RT = resource_for("kueue.x-k8s.io/v1beta2", "Workload")
POD_RT = resource_for("v1", "Pod")


def kueue_pod(name: str, *, group: str = "", owner: str = "") -> Json:
    labels = {"kueue.x-k8s.io/queue-name": "user-queue", kueue_pod_workloads.MANAGED_LABEL: "true"}
    annotations: dict[str, str] = {}
    if group:
        labels[kueue_pod_workloads.GROUP_NAME_LABEL] = group
        annotations[kueue_pod_workloads.GROUP_TOTAL_COUNT_ANNOTATION] = "2"
    meta: Json = {"name": name, "namespace": "ns", "uid": f"uid-{name}", "labels": labels}
    meta.update(annotations=annotations, finalizers=[kueue_pod_workloads.POD_FINALIZER])
    if owner:
        meta["ownerReferences"] = [
            {"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": "j", "controller": True}
        ]
    spec = {
        "schedulerName": "shoal",
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}],
        "schedulingGates": [
            {"name": kueue_pod_workloads.SCHEDULING_GATE},
            {"name": "kueue.x-k8s.io/topology"},
        ],
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {}}


class World:
    def __init__(self) -> None:
        self.work: list[WorkKey] = []
        self.cache = ControllerCache(expectations=Expectations(), on_work=self.work.append)
        self.kube = FakeKube(on_change=self._apply)
        self.executor = ActionExecutor(self.kube, self.cache, post_events=False)
        self.syncer = Syncer(cache=self.cache, executor=self.executor)

    def _apply(self, event: ObjectEvent) -> None:
        self.cache.apply(event)  # type: ignore[arg-type]

    async def admit(self, name: str, podset: str) -> None:
        status: Any = {
            "admission": {
                "clusterQueue": "cq",
                "podSetAssignments": [{"name": podset, "flavors": {"cpu": "default"}}],
            },
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"},
                {"type": "Admitted", "status": "True", "reason": "Admitted"},
            ],
        }
        await self.kube.patch(WORKLOAD_RT, name, {"status": status}, namespace="ns")


async def test_a_kueue_pod_gets_its_workload_and_is_ungated_when_admitted() -> None:
    world = World()
    world.kube.put(kueue_pod("p"))
    key = WorkKey(POD, "ns/p")
    assert key in world.work
    await world.syncer.sync(key)
    name = kueue_pod_workloads.workload_name_for_pod("p", "uid-p")
    workload = world.kube.stored(WORKLOAD_RT, f"ns/{name}")
    assert workload is not None
    assert workload["spec"]["podSets"][0]["count"] == 1
    assert workload["metadata"]["ownerReferences"][0]["uid"] == "uid-p"
    world.work.clear()
    await world.admit(name, "main")
    assert key in world.work  # the Workload wakes its pod
    await world.syncer.sync(key)
    pod = world.kube.stored(POD_RT, "ns/p")
    assert pod is not None
    assert not pod["spec"].get("schedulingGates")
    assert pod["metadata"]["labels"]["kueue.x-k8s.io/cluster-queue-name"] == "cq"


async def test_a_pod_group_gets_one_workload_once_complete() -> None:
    world = World()
    world.kube.put(kueue_pod("a", group="g"))
    key = WorkKey(KUEUE_POD_GROUP, "ns/g")
    assert key in world.work
    await world.syncer.sync(key)
    assert world.kube.stored(WORKLOAD_RT, "ns/g") is None  # one of two pods: no Workload yet
    world.kube.put(kueue_pod("b", group="g"))
    await world.syncer.sync(key)
    workload = world.kube.stored(WORKLOAD_RT, "ns/g")
    assert workload is not None
    (podset,) = workload["spec"]["podSets"]
    assert podset["count"] == 2
    assert {r["name"] for r in workload["metadata"]["ownerReferences"]} == {"a", "b"}
    await world.admit("g", podset["name"])
    await world.syncer.sync(key)
    for name in ("a", "b"):
        pod = world.kube.stored(POD_RT, f"ns/{name}")
        assert pod is not None and not pod["spec"].get("schedulingGates")


async def test_a_pod_of_a_job_is_not_a_kueue_pod() -> None:
    world = World()
    body = kueue_pod("j-0", owner="j")
    del body["metadata"]["labels"][kueue_pod_workloads.MANAGED_LABEL]
    body["metadata"]["finalizers"] = []
    world.kube.put(body)
    await world.syncer.sync(WorkKey(POD, "ns/j-0"))
    assert world.kube.of_kind("Workload") == []


async def test_an_evicted_pod_is_stopped_then_finalized() -> None:
    world = World()
    world.kube.put(kueue_pod("p"))
    key = WorkKey(POD, "ns/p")
    await world.syncer.sync(key)
    name = kueue_pod_workloads.workload_name_for_pod("p", "uid-p")
    await world.admit(name, "main")
    await world.syncer.sync(key)
    await world.kube.patch(POD_RT, "p", {"status": {"phase": "Running"}}, namespace="ns")
    evicted = {
        "type": "Evicted",
        "status": "True",
        "reason": "Preempted",
        "message": "Preempted to accommodate a higher priority Workload",
    }
    stored = world.kube.stored(WORKLOAD_RT, f"ns/{name}")
    assert stored is not None
    conditions = [*stored["status"]["conditions"], evicted]
    await world.kube.patch(
        WORKLOAD_RT, name, {"status": {"conditions": conditions}}, namespace="ns"
    )
    await world.syncer.sync(key)
    (status_patch,) = [c for c in world.kube.calls if c[0] == "patch/status" and c[1] == "Pod"]
    (condition,) = status_patch[3]["status"]["conditions"]
    assert (condition["type"], condition["reason"]) == (
        "TerminationTarget",
        "WorkloadEvictedDueToPreempted",
    )
    assert world.kube.verbs("delete", "Pod") == ["ns/p"]


def test_a_pod_with_a_workload_priority_class_label_gets_its_reference() -> None:
    # v1beta2 names the class in spec.priorityClassRef (v1beta1's priorityClassName and
    # priorityClassSource are not in the stored schema and would be pruned).
    raw = kueue_pod("p")
    raw["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "high"
    pod = msgspec.convert(raw, Pod)
    spec = kueue_pod_workloads.workload_manifest([pod], group=False)["spec"]
    assert spec["priorityClassRef"] == {
        "group": "kueue.x-k8s.io",
        "kind": "WorkloadPriorityClass",
        "name": "high",
    }
    assert "priorityClassName" not in spec
