"""Kueue's ``pkg/cache/scheduler/fair_sharing_test.go`` ``TestDominantResourceShare`` table.

Each row of ``fair_sharing_cases.yaml`` is one upstream case (same name): ClusterQueues and
Cohorts (with ``fairSharing.weight``), the usage upstream admits into ClusterQueue ``cq``, an
optional request added to every node's usage, and each node's dominant resource share as
upstream rounds it (``roundedWeightedShare``: the weighted share rounded up, the largest int64
for a borrowing node of weight 0), with its dominant resource and whether it borrows.
"""

from __future__ import annotations

import math
from typing import Any

from services.scheduler.kueue.fair_sharing import DRS, share
from services.scheduler.kueue.model import ResourceNode
from services.scheduler.kueue.snapshot import build
from services.scheduler.kueue.workloads import Usage
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("fair_sharing_cases.yaml")
MAX_INT64 = 2**63 - 1


def _usage(rows: list[list[Any]]) -> Usage:
    """Upstream counts cpu in milli-units and everything else in units; Shoal in milli."""
    return {(f, r): amount if r == "cpu" else amount * 1000 for f, r, amount in rows}


def _rounded(drs: DRS) -> int:
    if drs.zero_weight_borrows():
        return MAX_INT64
    return math.ceil(drs.weighted())


def _result(kind: str, node: ResourceNode, request: Usage) -> dict[str, Any]:
    drs = share(node, node.fair_weight, request)
    return {
        "name": node.name,
        "kind": kind,
        "value": _rounded(drs),
        "resource": drs.resource,
        "borrowing": drs.borrowing,
    }


@TABLE.parametrize()
def test_dominant_resource_share(case: dict[str, Any]) -> None:
    snapshot = build(TABLE.objects(case), now=NOW).snapshot
    snapshot.cluster_queues["cq"].add_usage(_usage(case["usage"]))
    request = _usage(case["request"])
    got = [_result("ClusterQueue", cq, request) for cq in snapshot.cluster_queues.values()]
    got += [_result("Cohort", cohort, request) for cohort in snapshot.cohorts.values()]
    want: list[dict[str, Any]] = case["want"]
    assert sorted(got, key=lambda r: (r["kind"], r["name"])) == want
