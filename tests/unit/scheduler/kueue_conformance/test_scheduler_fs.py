"""Kueue's ``pkg/scheduler/scheduler_fs_test.go`` ``TestScheduleForFairSharing`` table.

The rows of ``scheduler_fs_cases.yaml`` are built as ``scheduler_cases.yaml``'s (the suite's
fixtures plus the case's objects, one ``schedule()`` call → one Shoal cycle); a row with
``enableFairSharing`` runs with Kueue's default fair sharing configuration (the
fair-sharing tournament orders the heads, preemption uses the fair-sharing strategies).
"""

from __future__ import annotations

from tests.unit.scheduler.kueue_conformance.tables import Table, admitted_by, run_cycle

TABLE = Table.load("scheduler_fs_cases.yaml")


@TABLE.parametrize()
def test_schedule_for_fair_sharing(case: dict[str, object]) -> None:
    result = run_cycle(
        TABLE.objects(case), gates=TABLE.gates(case), fair_sharing=bool(case["enableFairSharing"])
    )
    want = TABLE.want(case)
    assert admitted_by(result) == want["admitted"]
    assert sorted(result.preempted) == want["preempted"]
    assert set(want["left"]) | set(want["inadmissible"]) <= set(result.pending)
