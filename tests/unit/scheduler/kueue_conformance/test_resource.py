"""Kueue's ``pkg/cache/scheduler/resource_test.go`` ``TestAvailable`` table.

Each row of ``resource_cases.yaml`` is one upstream case (same name): ClusterQueues and
Cohorts, the usage upstream adds to each ClusterQueue, and what each queue may then still
use (``Available``) and could ever use (``potentialAvailable``) per flavor and resource;
with the usage removed again, both are the potential, as upstream checks too.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue.model import ClusterQueueState
from services.scheduler.kueue.snapshot import build
from services.scheduler.kueue.workloads import Usage
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("resource_cases.yaml")


def _milli(rows: list[list[Any]]) -> Usage:
    """Upstream counts cpu in milli-units and everything else in units; Shoal in milli."""
    return {(f, r): amount if r == "cpu" else amount * 1000 for f, r, amount in rows}


def _per_queue(queues: dict[str, ClusterQueueState], potential: bool) -> dict[str, Usage]:
    return {
        name: {
            fr: cq.potential_available(fr) if potential else cq.available(fr) for fr in cq.quotas
        }
        for name, cq in queues.items()
    }


@TABLE.parametrize()
def test_available(case: dict[str, Any]) -> None:
    queues = build(TABLE.objects(case), now=NOW).snapshot.cluster_queues
    want = TABLE.want(case)
    want_available = {cq: _milli(rows) for cq, rows in want["available"].items()}
    want_potential = {cq: _milli(rows) for cq, rows in want["potentiallyAvailable"].items()}
    usage = {cq: _milli(rows) for cq, rows in case["usage"].items()}
    for name, used in usage.items():
        queues[name].add_usage(used)
    assert _per_queue(queues, potential=False) == want_available
    assert _per_queue(queues, potential=True) == want_potential
    for name, used in usage.items():
        queues[name].remove_usage(used)
    assert _per_queue(queues, potential=False) == want_potential
    assert _per_queue(queues, potential=True) == want_potential
