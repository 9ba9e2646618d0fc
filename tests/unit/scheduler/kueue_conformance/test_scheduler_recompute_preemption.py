"""Kueue's ``pkg/scheduler/scheduler_recompute_preemption_test.go``
``TestScheduleRecomputePreemptionTargets`` table.

The rows of ``scheduler_recompute_preemption_cases.yaml`` are built as
``scheduler_cases.yaml``'s (the suite's fixtures, its Cohort tree, the case's objects; one
``schedule()`` call → one Shoal cycle), with the feature gates and fair sharing of the case:
heads whose preemption targets overlap those of an earlier head are assigned again as if those
targets were gone (``RecomputeAssignmentUponPreemptionTargetsOverlap``).
"""

from __future__ import annotations

from tests.unit.scheduler.kueue_conformance.tables import Table, admitted_by, run_cycle

TABLE = Table.load("scheduler_recompute_preemption_cases.yaml")


@TABLE.parametrize()
def test_schedule_recompute_preemption_targets(case: dict[str, object]) -> None:
    result = run_cycle(
        TABLE.objects(case), gates=TABLE.gates(case), fair_sharing=bool(case["enableFairSharing"])
    )
    want = TABLE.want(case)
    assert admitted_by(result) == want["admitted"]
    assert sorted(result.preempted) == want["preempted"]
    assert set(want["left"]) | set(want["inadmissible"]) <= set(result.pending)
