"""Kueue's ``pkg/scheduler/preemption/preemption_test.go`` ``TestPreemption`` table.

Each row of ``preemption_cases.yaml`` is one upstream case (same name): the ClusterQueues,
Cohorts and admitted Workloads, the incoming Workload with the flavor assignment upstream
hands to ``GetTargets`` (resource → flavor and mode), and the Workloads upstream evicts as
``Preempted``. Shoal's ``preemption_targets`` gets the same snapshot and assignment.
"""

from __future__ import annotations

from typing import Any

from tests.unit.scheduler.kueue_conformance.tables import Table, run_preemption

TABLE = Table.load("preemption_cases.yaml")


@TABLE.parametrize()
def test_preemption(case: dict[str, Any]) -> None:
    targets = run_preemption(TABLE, case)
    want = TABLE.want(case)
    # Upstream lists the workloads it newly evicts; one already evicted is a target too.
    assert sorted(t.info.key for t in targets if not t.evicted) == want["preempted"]
    assert len(targets) == want["count"]
