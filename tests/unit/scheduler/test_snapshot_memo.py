"""A snapshot memo kept between cycles builds the same cluster, and the session decides the same,
as a build from nothing: over a sequence of changes as the service's cache sees them (pods
added, bound, deleted, finished; nodes added and relabelled; PodGroups and priority classes
added and deleted; a new resource name; a pod that cannot be read). Unchanged objects stay the
same objects from step to step, as in the cache, so the memo is used as it is live."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from services.scheduler.api.cluster import Cluster
from services.scheduler.cycle import Scheduling
from services.scheduler.snapshot import Snapshot, build_cluster
from services.scheduler.snapshot_memo import SnapshotMemo
from services.scheduler.state import SchedulerState
from shared.models import Model, Pod
from tests.unit.scheduler.builders import conf_text, group, node, pod, priority_class

CONF = conf_text(
    "enqueue, allocate, preempt, backfill",
    ["priority", "gang", "conformance"],
    ["drf", "predicates", "proportion", "nodeorder", "binpack"],
)
NAMES = ["volcano"]
World = dict[str, Model]


def describe(cluster: Cluster) -> dict[str, Any]:
    """Everything a session reads of a built cluster, as plain data."""
    table = cluster.nodes
    return {
        "space": cluster.space.names,
        "nodes": table.names,
        "matrices": [
            m.tolist()
            for m in (table.allocatable, table.used, table.idle, table.future, table.releasing)
        ],
        "on_nodes": [sorted(tasks) for tasks in table.tasks],
        "classes": (table.class_of.tolist(), [msgspec.to_builtins(c) for c in table.classes]),
        "jobs": {
            key: {
                "counts": job.counts,
                "priority": job.priority,
                "tasks": {
                    t.key: (
                        t.job,
                        t.status.name,
                        t.node,
                        t.priority,
                        t.request.tolist(),
                        t.qreq.tolist(),
                        t.best_effort,
                        t.shape,
                        t.role,
                        t.index,
                        t.pod is job.tasks[t.key].pod,
                    )
                    for t in job.tasks.values()
                },
            }
            for key, job in cluster.jobs.items()
        },
        "job_errors": {k: msgspec.to_builtins(v) for k, v in cluster.job_errors.items()},
        "skipped": cluster.skipped,
    }


def bind(world: World, binds: dict[str, str]) -> None:
    """The cache after the binder bound the pods and the kubelet started them: new objects."""
    for key, node_name in binds.items():
        old = world[f"pod/{key}"]
        assert isinstance(old, Pod)
        spec = msgspec.structs.replace(old.spec, nodeName=node_name)
        status = msgspec.structs.replace(old.status, phase="Running")
        world[f"pod/{key}"] = msgspec.structs.replace(old, spec=spec, status=status)


def add(world: World, *objects: Model) -> None:
    for obj in objects:
        meta = obj.metadata  # type: ignore[attr-defined]
        kind = type(obj).__name__.lower()
        world[f"{kind}/{meta.namespace + '/' if meta.namespace else ''}{meta.name}"] = obj


def finish(world: World, key: str, phase: str) -> None:
    old = world[f"pod/{key}"]
    assert isinstance(old, Pod)
    world[f"pod/{key}"] = msgspec.structs.replace(
        old, status=msgspec.structs.replace(old.status, phase=phase)
    )


STEPS: list[tuple[str, Callable[[World], object]]] = [
    ("start", lambda w: add(w, node("n1"), node("n2"), node("n3"))),
    (
        "jobs-added",
        lambda w: add(
            w,
            group("a", 2),
            pod("a-t-0", "a"),
            pod("a-t-1", "a"),
            group("b", 1),
            pod("b-t-0", "b", cpu="2"),
        ),
    ),
    ("nothing-changed", lambda w: None),
    (
        "more-jobs",
        lambda w: add(w, group("c", 3), *(pod(f"c-t-{i}", "c", cpu="500m") for i in range(3))),
    ),
    ("pod-deleted", lambda w: w.pop("pod/default/a-t-1")),
    (
        "priority-class-and-big-job",
        lambda w: add(
            w,
            priority_class("high", 1000),
            group("d", 1, priorityClassName="high"),
            *(pod(f"d-t-{i}", "d", cpu="3", priorityClassName="high") for i in range(3)),
        ),
    ),
    (
        "new-resource-name",
        lambda w: add(
            w,
            node("g1", resources={"nvidia.com/gpu": "2"}),
            group("e", 1),
            pod("e-t-0", "e", resources={"nvidia.com/gpu": "1"}),
        ),
    ),
    (
        "node-added-and-relabelled",
        lambda w: add(w, node("n4", cpu="8"), node("n1", labels={"zone": "z1"})),
    ),
    ("podgroup-deleted", lambda w: w.pop("podgroup/default/b")),
    (
        "unreadable-and-foreign-pods",
        lambda w: add(
            w,
            group("f", 1),
            pod("f-t-0", "f", cpu="1e30"),
            pod("other", "", node="n2", scheduler="default-scheduler"),
        ),
    ),
    ("pods-finished", lambda w: finish(w, "default/c-t-0", "Succeeded")),
    (
        "pod-deleting",
        lambda w: add(w, pod("c-t-1", "c", cpu="500m", node="n3", deleting=True)),
    ),
    ("priority-class-deleted", lambda w: w.pop("priorityclass/high")),
    ("node-deleted", lambda w: w.pop("node/n4")),
    ("unreadable-node", lambda w: add(w, node("bad", cpu="lots"), node("n2", cpu="6"))),
]


@pytest.mark.parametrize("binding", [True, False], ids=["binds-applied", "binds-pending"])
def test_a_kept_memo_decides_as_a_fresh_build(binding: bool) -> None:
    world: World = {}
    kept, cluster_memo = Scheduling(), SnapshotMemo()
    for step, change in STEPS:
        change(world)
        snapshot = Snapshot.of(world.values())
        snapshot.conf_text = CONF
        assert describe(build_cluster(snapshot, memo=cluster_memo)) == describe(
            build_cluster(snapshot)
        ), step
        live = kept.session(snapshot, now=100.0, scheduler_names=NAMES)
        fresh = Scheduling().session(snapshot, now=100.0, scheduler_names=NAMES)
        assert msgspec.to_builtins(live) == msgspec.to_builtins(fresh), step
        if binding:
            bind(world, live.binds)
    assert any(k.startswith("pod/") for k in world)


def test_an_assumed_pod_is_shown_as_the_same_object_until_it_changes() -> None:
    state = SchedulerState()
    original = pod("p", "g")
    state.cache._objects["v1/Pod"] = {"default/p": original}
    state.restore({"default/p": "n1"}, [], now=0.0)
    first = state.view().pods[0]
    assert first.spec.nodeName == "n1" and first is not original
    assert state.view().pods[0] is first
    state.restore({"default/p": "n2"}, [], now=0.0)
    moved = state.view().pods[0]
    assert moved.spec.nodeName == "n2" and moved is not first
