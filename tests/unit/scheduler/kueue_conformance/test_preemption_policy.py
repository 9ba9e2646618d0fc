"""Kueue's ``pkg/scheduler/preemption/common/preemption_policy_test.go``
``TestSatisfiesPreemptionPolicy`` table: may a preemptor preempt a candidate under a policy
(``LowerPriority``, ``LowerOrNewerEqualPriority``, ``Any``, ``Never``), by priority and queue
order timestamp."""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue.preemption import _satisfies
from services.scheduler.kueue.workloads import Priorities, workload_info
from shared.models import Workload, convert
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("preemption_policy_cases.yaml")


@TABLE.parametrize()
def test_satisfies_preemption_policy(case: dict[str, Any]) -> None:
    preemptor, candidate = (
        workload_info(
            convert(case[role], Workload, document=case["name"]),
            priorities=Priorities([]),
            now=NOW,
            source=role,
        )
        for role in ("preemptor", "candidate")
    )
    assert _satisfies(case["policy"], preemptor, candidate) is case["want"]
