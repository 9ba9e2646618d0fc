"""Kueue's ``pkg/scheduler/preemption/preemption_hierarchical_test.go``
``TestHierarchicalPreemptions`` table.

Each row of ``preemption_hierarchical_cases.yaml`` is one upstream case (same name): the
Cohort tree (Cohorts with a parent and quota of their own), the ClusterQueues and admitted
Workloads, the incoming Workload with the flavor assignment upstream hands to
``GetTargets``, and the Workloads upstream evicts as ``Preempted``.
"""

from __future__ import annotations

from typing import Any

from tests.unit.scheduler.kueue_conformance.tables import Table, run_preemption

TABLE = Table.load("preemption_hierarchical_cases.yaml")


@TABLE.parametrize()
def test_hierarchical_preemptions(case: dict[str, Any]) -> None:
    targets = run_preemption(TABLE, case)
    want = TABLE.want(case)
    # Upstream lists the workloads it newly evicts; one already evicted is a target too.
    assert sorted(t.info.key for t in targets if not t.evicted) == want["preempted"]
    assert len(targets) == want["count"]
