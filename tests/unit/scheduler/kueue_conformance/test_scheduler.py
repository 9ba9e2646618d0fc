"""Kueue's ``pkg/scheduler/scheduler_test.go`` ``TestSchedule`` table, run through Shoal's core.

Each row of ``scheduler_cases.yaml`` is one upstream case (same name), translated from
upstream's builders into the manifests they produce: the suite's fixtures (namespaces,
ResourceFlavors, ClusterQueues, LocalQueues) plus the case's own objects. Upstream runs one
``schedule()`` call, so Shoal runs one cycle, and what upstream's cache and Workloads show
afterwards becomes the expectation: the workloads newly admitted (ClusterQueue, per pod set
count and flavors), the workloads marked preempted, and the ones left pending.
"""

from __future__ import annotations

from tests.unit.scheduler.kueue_conformance.tables import Table, admitted_by, run_cycle

TABLE = Table.load("scheduler_cases.yaml")


@TABLE.parametrize()
def test_schedule(case: dict[str, object]) -> None:
    result = run_cycle(TABLE.objects(case), gates=TABLE.gates(case))
    want = TABLE.want(case)
    assert admitted_by(result) == want["admitted"]
    assert sorted(result.preempted) == want["preempted"]
    assert set(want["left"]) | set(want["inadmissible"]) <= set(result.pending)
