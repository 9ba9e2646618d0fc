"""Kueue's ``pkg/scheduler/preemption/fairsharing/ordering_test.go``
``TestMakeClusterQueueOrdering`` table.

Each row of ``fairsharing_ordering_cases.yaml`` is one upstream case (same name): the
ClusterQueues, Cohorts and admitted Workloads, the preemptor's ClusterQueue, the candidates
(admitted Workloads of the chosen queues, in order), what the test does with each queue the
ordering yields (``drop`` it, otherwise take its next candidate) and the queues in the order
upstream's ``TargetClusterQueueOrdering`` yields them.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue.fair_preemption import _by_queue, _Ordering
from services.scheduler.kueue.snapshot import build
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("fairsharing_ordering_cases.yaml")


@TABLE.parametrize()
def test_make_cluster_queue_ordering(case: dict[str, Any]) -> None:
    snapshot = build(TABLE.objects(case), now=NOW).snapshot
    admitted = {k: w for cq in snapshot.cluster_queues.values() for k, w in cq.workloads.items()}
    candidates = [admitted[key] for key in case["candidates"]]
    ordering = _Ordering(snapshot.cluster_queues[case["preemptorCQ"]], _by_queue(candidates))
    actions: list[str] = case["actions"]
    order: list[str] = []
    for target in ordering:
        if len(order) < len(actions) and actions[len(order)] == "drop":
            ordering.drop(target)
        else:
            ordering.pop(target)
        order.append(target.name)
        assert len(order) <= 50, "the ordering does not end"
    want: list[str] = case["want"]
    assert order == want
