"""Kueue's ``pkg/scheduler/scheduler_test.go`` ``TestResourcesToReserve`` table.

Each row of ``resources_to_reserve_cases.yaml`` is one upstream case (same name): the usage
admitted into the suite's ClusterQueue ``cq`` (cohort ``eng``), an assignment's mode,
borrowing level and usage, and what Kueue's ``quotaResourcesToReserve`` holds for it.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue.cycle import quota_to_reserve
from services.scheduler.kueue.flavors import Assignment, FlavorChoice, PodSetAssignment
from services.scheduler.kueue.modes import Mode, Reason
from services.scheduler.kueue.snapshot import build
from services.scheduler.kueue.workloads import Usage
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("resources_to_reserve_cases.yaml")
_MODES = {"NoFit": Mode.NO_FIT, "Preempt": Mode.PREEMPT, "Fit": Mode.FIT}


def _milli(rows: list[list[Any]]) -> Usage:
    """Upstream counts memory and gpu in units; Shoal in milli-units."""
    return {(f, r): amount if r == "cpu" else amount * 1000 for f, r, amount in rows}


def _assignment(mode: Mode, borrowing: int, usage: Usage) -> Assignment:
    """An assignment of ``mode`` at ``borrowing`` level using ``usage``, as upstream builds."""
    podsets = [
        PodSetAssignment(
            name=f"ps-{resource}",
            count=1,
            flavors={resource: FlavorChoice(flavor, mode, borrowing)},
            reasons=[] if mode == Mode.FIT else [Reason("Test", "not a fit")],
        )
        for flavor, resource in usage
    ]
    return Assignment(podsets=podsets, usage=usage)


@TABLE.parametrize()
def test_resources_to_reserve(case: dict[str, Any]) -> None:
    cq = build(TABLE.objects(case), now=NOW).snapshot.cluster_queues["cq"]
    cq.add_usage(_milli(case["cqUsage"]))
    assignment = _assignment(
        _MODES[case["mode"]], case["borrowing"], _milli(case["assignmentUsage"])
    )
    want: list[list[Any]] = case["want"]
    assert quota_to_reserve(cq, assignment) == _milli(want)
