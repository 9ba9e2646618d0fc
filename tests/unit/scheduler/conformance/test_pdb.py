"""Volcano ``pkg/scheduler/plugins/pdb/pdb_test.go``: ``TestPreemptableAndReclaimableFn``, one
row per upstream case. As upstream, a session is opened with only the pdb plugin (preemptable,
reclaimable and victim switches on) over the case's PodDisruptionBudgets, and the two pods of
job-1 are handed to the session's ``Preemptable``, ``Reclaimable`` and ``VictimTasks``.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from shared.models import PodDisruptionBudget
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
    open_session,
)

LABEL_NAME = "volcano.sh/job-name"
OPTION = plugin_option("pdb", "enablePreemptable", "enableReclaimable", "enabledVictim")


def _pdb(allowed: int) -> PodDisruptionBudget:
    return msgspec.convert(
        {
            "metadata": {"name": "test-pdb", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {LABEL_NAME: "job-1"}}},
            "status": {"disruptionsAllowed": allowed},
        },
        PodDisruptionBudget,
    )


CASES: list[tuple[str, list[PodDisruptionBudget], list[str]]] = [
    ("test without pdbs", [], ["test-pod1", "test-pod2"]),
    ("test with pdbs(can evict 0 pod)", [_pdb(0)], []),
    ("test with pdbs(can evict 1 pod)", [_pdb(1)], ["test-pod1"]),
]


@pytest.mark.parametrize(("pdbs", "expect"), [pytest.param(p, e, id=name) for name, p, e in CASES])
def test_preemptable_and_reclaimable_fn(pdbs: list[PodDisruptionBudget], expect: list[str]) -> None:
    res = build_resource_list("1", "1G")
    objects: list[Any] = [
        *pdbs,
        build_queue("default", 1, None),
        build_node("node1", build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}), {}),
        build_pod_group("job-1", "default", "default", 1, {}, "Running"),
        *(
            build_pod("default", name, "node1", "Running", res, "job-1", {LABEL_NAME: "job-1"}, {})
            for name in ("test-pod1", "test-pod2")
        ),
    ]
    ssn = open_session(objects, tiers_conf("preempt, reclaim, shuffle", [[OPTION]]))
    [job] = ssn.jobs.values()
    preemptees = sorted(job.tasks.values(), key=lambda t: t.name)
    preemptor = preemptees[0]

    assert [t.name for t in ssn.preemptable(preemptor, preemptees)] == expect
    assert [t.name for t in ssn.reclaimable(preemptor, preemptees)] == expect
    assert sorted(t.name for t in ssn.victim_tasks(preemptees)) == expect
