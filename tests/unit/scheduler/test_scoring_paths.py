"""The scalar single-row scores (hot path) equal the vectorised ones bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from services.scheduler.api import NodeTable, ResourceSpace, TaskInfo
from services.scheduler.framework.points import ExtensionPoints
from services.scheduler.plugins import binpack, nodeorder
from tests.unit.scheduler.builders import node, pod


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 64000),
            st.integers(0, 2**40),
            st.integers(0, 64000),
            st.integers(0, 8000),
            st.integers(0, 8000),
        ),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 8000),
    st.integers(0, 2**33),
    st.integers(0, 3000),
    st.integers(0, 3),
)
def test_score_row_matches_score(
    rows: list[tuple[int, int, int, int, int]], cpu: int, memory: int, gpu: int, weight: int
) -> None:
    space = ResourceSpace(["cpu", "memory", "pods", "nvidia.com/gpu"])
    allocs = [
        space.vector({"cpu": c, "memory": m, "pods": 110_000, "nvidia.com/gpu": g})
        for c, m, _, g, _ in rows
    ]
    table = NodeTable([node(f"n{i}") for i in range(len(rows))], allocs, space)
    for i, (_, _, used, _, used_gpu) in enumerate(rows):
        table.used[i, 0] = used
        table.used[i, 3] = used_gpu
    request = space.vector({"cpu": cpu, "memory": memory, "pods": 1000, "nvidia.com/gpu": gpu})
    task = TaskInfo(pod=pod("p", "g"), job="g", request=request, pods_column=2, priority=0)
    scorers: list[nodeorder.NodeOrderPlugin | binpack.BinpackPlugin] = [
        nodeorder.new({"mostrequested.weight": weight}),
        binpack.new({"binpack.weight": weight or 1, "binpack.memory": 2}),
    ]

    class _Ssn:
        def __init__(self) -> None:
            self.nodes, self.space = table, space
            self.points = ExtensionPoints()
            self.jobs: dict[str, object] = {}

    for scorer in scorers:
        scorer.on_session_open(_Ssn())  # type: ignore[arg-type]
        full = scorer.score(task, table, slice(None))
        single = np.array([scorer.score_row(task, table, r) for r in range(len(rows))])
        assert np.array_equal(full, single), (type(scorer).__name__, full, single)
