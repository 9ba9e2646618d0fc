"""Kueue's ``pkg/scheduler/preemption/preemption_fair_test.go`` ``TestFairPreemptions`` table.

Each row of ``preemption_fair_cases.yaml`` is one upstream case (same name): ClusterQueues
(with ``fairSharing.weight``), Cohorts and admitted Workloads, the incoming Workload needing
preemption for cpu in one flavor, the preemption strategies of Kueue's Configuration
(upstream's default pair when the row names none) and the Workloads upstream preempts. The
preemption reasons upstream also checks are kept in the rows but not compared: Shoal's
targets carry none.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue.fair_sharing import FairSharing
from tests.unit.scheduler.kueue_conformance.tables import Table, run_preemption

TABLE = Table.load("preemption_fair_cases.yaml")


@TABLE.parametrize()
def test_fair_preemptions(case: dict[str, Any]) -> None:
    strategies = case.get("strategies")
    config = FairSharing(tuple(strategies)) if strategies else FairSharing()
    targets = run_preemption(TABLE, case, fair_sharing=config)
    assert sorted(t.info.key for t in targets) == TABLE.want(case)["preempted"]
