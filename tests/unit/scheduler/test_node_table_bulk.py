"""A snapshot places its tasks with ``NodeTable.add_all``: the same rows as ``add`` one by one."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from services.scheduler.api import NodeTable, ResourceSpace, TaskInfo
from services.scheduler.api.resources import IntVec
from services.scheduler.api.task import TaskStatus
from tests.unit.scheduler.builders import node, pod

STATUSES = [TaskStatus.BOUND, TaskStatus.RUNNING, TaskStatus.RELEASING, TaskStatus.PIPELINED]


def table(rows: int, space: ResourceSpace) -> NodeTable:
    allocs = [space.vector({"cpu": 64000, "memory": 2**40, "pods": 110_000})] * rows
    return NodeTable([node(f"n{i}") for i in range(rows)], allocs, space)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3), st.sampled_from([0, 250, 1000, 8000]), st.sampled_from(STATUSES)
        ),
        max_size=20,
    )
)
def test_add_all_equals_add_one_by_one(placed: list[tuple[int, int, TaskStatus]]) -> None:
    space = ResourceSpace(["cpu", "memory", "pods"])
    one, bulk = table(4, space), table(4, space)
    pairs_one: list[tuple[int, TaskInfo]] = []
    pairs_bulk: list[tuple[int, TaskInfo]] = []
    # Tasks of equal requests share one vector, as a snapshot's do (``add_all`` groups by it).
    shared: dict[int, IntVec] = {}
    for i, (row, cpu, status) in enumerate(placed):
        for pairs in (pairs_one, pairs_bulk):
            request = shared.setdefault(cpu, space.vector({"cpu": cpu, "pods": 1000}))
            task = TaskInfo(
                pod=pod(f"p{i}", "g"), job="g", request=request, pods_column=2, priority=0
            )
            task.status = status
            pairs.append((row, task))
    for row, task in pairs_one:
        one.add(row, task)
    bulk.add_all(pairs_bulk)
    for name in ("used", "idle", "future", "releasing", "pipelined"):
        assert np.array_equal(getattr(one, name), getattr(bulk, name)), name
    assert [sorted(t) for t in one.tasks] == [sorted(t) for t in bulk.tasks]
    assert [t.node for _, t in pairs_one] == [t.node for _, t in pairs_bulk]
    assert sorted(one.changes) == sorted(bulk.changes)
