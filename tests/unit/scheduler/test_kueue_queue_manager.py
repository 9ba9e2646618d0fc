"""The queue manager keeps workloads and ordered queues between runs: whatever changes
between two runs, a run with it decides exactly what a run from scratch decides."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from services.scheduler.kueue import AdmissionResult, admit
from services.scheduler.kueue.queue_manager import Changes, QueueManager
from shared.errors import ManifestError
from shared.models import Model, Workload, decode_object
from tests.unit.scheduler.kueue_builders import (
    NOW,
    cluster_queue,
    flavor,
    local_queue,
    priority_class,
    quota,
    workload,
)

Json = dict[str, Any]


def _objects() -> list[Json]:
    return [
        flavor("default"),
        cluster_queue("cq", {"default": quota("4")}, strategy="StrictFIFO"),
        cluster_queue("other", {"default": quota("1")}),
        local_queue("lq", "cq"),
        priority_class("high", 10),
        workload("held", "2", minute=0, admitted=("cq", "default")),
        workload("a", "3", minute=1),
        workload("b", "1", minute=2),
        workload("c", "1", minute=3, priority_class="high"),
        workload("d", "1", minute=4, queue="missing"),
    ]


def _replace(name: str, new: Json) -> Callable[[list[Json]], None]:
    def change(objects: list[Json]) -> None:
        at = next(i for i, o in enumerate(objects) if o["metadata"]["name"] == name)
        objects[at] = new

    return change


def _drop(name: str) -> Callable[[list[Json]], None]:
    def change(objects: list[Json]) -> None:
        objects[:] = [o for o in objects if o["metadata"]["name"] != name]

    return change


def _add(new: Json) -> Callable[[list[Json]], None]:
    return lambda objects: objects.append(new)


CHANGES: list[tuple[str, Callable[[list[Json]], None]]] = [
    ("nothing", lambda objects: None),
    ("a waiting workload gains priority", _replace("b", workload("b", "1", minute=2, priority=20))),
    ("the admitted one goes", _drop("held")),
    ("the head goes", _drop("a")),
    ("a new one comes first", _add(workload("e", "1", minute=0, priority=5))),
    ("the LocalQueue points elsewhere", _replace("lq", local_queue("lq", "other"))),
    ("its LocalQueue appears", _add(local_queue("missing", "other"))),
    ("a PriorityClass changes", _replace("high", priority_class("high", -1))),
    ("a quota changes", _replace("cq", cluster_queue("cq", {"default": quota("6")}))),
]


def _decoded(objects: list[Json]) -> list[Model]:
    return [decode_object(o, document=f"doc {i}") for i, o in enumerate(objects)]


def _name(manifest: Json) -> tuple[str, str]:
    return manifest["kind"], manifest["metadata"]["name"]


def _admissible(result: AdmissionResult) -> dict[tuple[str, str], int]:
    """Counted as the queue counters count without a queue manager."""
    counts: dict[tuple[str, str], int] = {}
    for info in result.workloads:
        if info.has_quota_reservation or info.obj.spec.active is False:
            continue
        if info.key not in result.admitted:
            counts[info.local_queue] = counts.get(info.local_queue, 0) + 1
    return counts


def _nonzero(counts: dict[tuple[str, str], int] | None) -> dict[tuple[str, str], int]:
    return {local: n for local, n in (counts or {}).items() if n}


def _said(result: AdmissionResult) -> tuple[Any, dict[str, str]]:
    pending = {key: f"{why.reason}: {why.message}" for key, why in result.pending.items()}
    return result.decisions(), pending


@pytest.mark.parametrize(("change"), [c for _, c in CHANGES], ids=[i for i, _ in CHANGES])
def test_a_kept_run_decides_as_a_run_from_scratch(change: Callable[[list[Json]], None]) -> None:
    manifests = _objects()
    objects = _decoded(manifests)
    kept = QueueManager()
    first = admit(objects, NOW, kept=kept)
    assert _said(first) == _said(admit(objects, NOW))
    change(manifests)
    # An unchanged manifest keeps its decoded object (as a cache does); a changed one is new.
    originals = {_name(m): m for m in _objects()}
    objects = [
        objects[list(originals).index(_name(m))] if originals.get(_name(m)) == m else new
        for m, new in zip(manifests, _decoded(manifests), strict=True)
    ]
    result = admit(objects, NOW, kept=kept)
    assert _said(result) == _said(admit(objects, NOW))
    assert _nonzero(result.admissible) == _admissible(result), "the queue counters' counts"


def test_a_duplicate_workload_is_refused_and_changes_nothing_kept() -> None:
    objects = _decoded(_objects())
    kept = QueueManager()
    before = _said(admit(objects, NOW, kept=kept))
    twin = _decoded([workload("b", "1", minute=9)])[0]
    with pytest.raises(ManifestError, match="duplicate Workload"):
        admit([*objects, twin], NOW, kept=kept)
    assert _said(admit(objects, NOW, kept=kept)) == before


def _backlog() -> list[Model]:
    """A BestEffortFIFO queue of 2 CPUs: five 1-CPU and three 3-CPU workloads interleaved,
    one 1-CPU workload of higher priority last in time."""
    return _decoded(
        [
            flavor("default"),
            cluster_queue("cq", {"default": quota("2")}),
            local_queue("lq", "cq"),
            *[workload(f"small-{i}", "1", minute=2 * i) for i in range(5)],
            *[workload(f"big-{i}", "3", minute=2 * i + 1) for i in range(3)],
            workload("urgent", "1", minute=30, priority=5),
        ]
    )


def test_a_window_shows_the_first_of_each_equivalence_class_in_queue_order() -> None:
    kept = QueueManager(window=2)
    result = admit(_backlog(), NOW, kept=kept)
    # In queue order: urgent (its own class), small-0, big-0, small-1, big-1; the rest wait
    # unseen: no verdict, so their explanations are left as they were.
    seen = [info.key.split("/")[1] for info in kept.visible("cq")]
    assert seen == ["urgent", "small-0", "big-0", "small-1", "big-1"]
    assert kept.truncated == {"cq"}
    assert sorted(result.admitted) == ["default/small-0", "default/urgent"]
    assert sorted(result.pending) == ["default/big-0", "default/big-1", "default/small-1"]
    assert {info.key for info in result.workloads} == {f"default/{n}" for n in seen}
    assert result.admissible == {("default", "lq"): 7}  # counters count the unseen too


def test_a_wide_enough_window_decides_as_no_window() -> None:
    objects = _backlog()
    assert _said(admit(objects, NOW, kept=QueueManager(window=5))) == _said(admit(objects, NOW))
    kept = QueueManager(window=5)
    admit(objects, NOW, kept=kept)
    assert kept.truncated == set()


def test_those_behind_come_forward_as_the_first_leave() -> None:
    manifests = [
        flavor("default"),
        cluster_queue("cq", {"default": quota("10")}),
        local_queue("lq", "cq"),
        *[workload(f"w-{i}", "1", minute=i) for i in range(5)],
    ]
    objects = _decoded(manifests)
    kept = QueueManager(window=2)
    first = admit(objects, NOW, kept=kept)
    assert sorted(first.admitted) == ["default/w-0", "default/w-1"]
    assert kept.truncated == {"cq"}  # admitted from a cut queue: the caller runs again
    # The two admitted now hold quota (as their written status will say).
    held_two = [workload(f"w-{i}", "1", minute=i, admitted=("cq", "default")) for i in range(2)]
    objects = [*objects[:3], *_decoded(held_two), *objects[5:]]
    second = admit(objects, NOW, kept=kept)
    assert sorted(second.admitted) == ["default/w-2", "default/w-3"]
    held = [workload(f"w-{i}", "1", minute=i, admitted=("cq", "default")) for i in range(4)]
    third_objects = [*objects[:3], *_decoded(held), objects[-1]]
    third = admit(third_objects, NOW, kept=kept)
    assert sorted(third.admitted) == ["default/w-4"]
    assert kept.truncated == set()


@pytest.mark.parametrize(("change"), [c for _, c in CHANGES], ids=[i for i, _ in CHANGES])
def test_a_run_told_what_changed_decides_as_a_run_that_looks_at_all(
    change: Callable[[list[Json]], None],
) -> None:
    """With a window, ``changes`` (the objects that came and went) stands for the walk over
    every workload: the same decisions, explanations and counters as a run over all, and
    the same as a manager that looks at all. Routing and PriorityClass changes fall back
    to the walk."""
    manifests = _objects()
    objects = _decoded(manifests)
    told, walked = QueueManager(window=8), QueueManager(window=8)
    admit(objects, NOW, kept=told)
    admit(objects, NOW, kept=walked)
    change(manifests)
    originals = {_name(m): m for m in _objects()}
    new_objects = [
        objects[list(originals).index(_name(m))] if originals.get(_name(m)) == m else new
        for m, new in zip(manifests, _decoded(manifests), strict=True)
    ]
    before = {id(o) for o in objects}
    after = {id(o) for o in new_objects}
    changes = Changes(
        came=[o for o in new_objects if id(o) not in before and isinstance(o, Workload)],
        went=[o for o in objects if id(o) not in after and isinstance(o, Workload)],
    )
    result = admit(new_objects, NOW, kept=told, changes=changes)
    assert _said(result) == _said(admit(new_objects, NOW, kept=walked))
    assert _said(result) == _said(admit(new_objects, NOW))
    assert _nonzero(result.admissible) == _admissible(result), "the queue counters' counts"
    assert told.gone == walked.gone


def test_changes_that_do_not_add_up_are_not_taken() -> None:
    """A count that does not match the last run's plus the changes: every workload is
    looked at (a caller's mistake costs a walk, not a wrong decision)."""
    objects = _decoded(_objects())
    kept = QueueManager(window=8)
    admit(objects, NOW, kept=kept)
    extra = _decoded([workload("e", "1", minute=0, priority=5)])[0]
    result = admit([*objects, extra], NOW, kept=kept, changes=Changes(came=[], went=[]))
    assert _said(result) == _said(admit([*objects, extra], NOW))
