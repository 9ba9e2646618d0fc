"""Volcano ``pkg/scheduler/actions/gangpreempt/gangpreempt_test.go``: the
``TestSelectDomainVictims_*`` cases, one row per upstream case (and per ``allowWholeBundle``
value where the upstream case checks both), as one ``gangpreempt`` session over the same
objects.

Upstream calls ``selectDomainBundles`` on a hand-built session whose only plugin, a test-only
``test-preempt``, allows every candidate through ``UnifiedEvictable``; here the session runs
the action with priority and gang, whose ``UnifiedEvictable`` allow the same candidates (a
lower-priority victim job), so the victims upstream selects are the ones evicted, with the
preemptor pipelined where they were. The upstream node has no allocatable: it is given the
victim's 1 cpu, so the preemptor needs the victim gone.

Not expressible: ``TestPickDomainsFromGradients_MaxDomainsAndDedup`` and ``_Fallback``
(an internal helper over HyperNode gradients; Shoal has no HyperNodes: its one domain is the
cluster), ``TestParseArguments`` and ``TestParseArguments_InvalidMaxDomainsFallsBackToDefault``
(read the action's parsed fields; ``maxDomains`` changes no decision with one domain, and
``allowWholeBundle: false`` is the first row here).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    Case,
    build_node,
    build_pod_group_with_prio,
    build_pod_with_priority,
    build_priority_class,
    build_queue,
    build_resource_list,
    check,
)

TIERS = [
    [
        plugin_option(
            "priority",
            "enableJobOrder",
            "enableTaskOrder",
            "enableJobStarving",
            "enableJobPipelined",
        ),
        plugin_option("gang", "enableJobStarving", "enableJobPipelined"),
    ]
]
PRI_CLASS = [build_priority_class("preemptor-priority", 100), build_priority_class("victim", 10)]


@dataclass
class Row:
    case: Case
    arguments: dict[str, object] = field(default_factory=dict)


def _objects(*, min_member: int, victim_annotations: dict[str, str] | None) -> list[Model]:
    """testTask/NewJobInfo as manifests: the preemptor (priority 100, pending, 1 cpu) and the
    victim (priority 10, running on n1, 1 cpu) in queue q1."""
    victim_group = build_pod_group_with_prio(
        "victim", "ns", "q1", min_member, None, "Running", "victim"
    )
    if victim_annotations is not None:
        victim_group.metadata.annotations.update(victim_annotations)
    cpu = build_resource_list("1", "")
    return [
        *PRI_CLASS,
        build_queue("q1", 1, None),
        build_node("n1", build_resource_list("1", "", {"Name": "pods", "Value": "10"}), {}),
        build_pod_group_with_prio(
            "preemptor", "ns", "q1", 1, None, "Inqueue", "preemptor-priority"
        ),
        victim_group,
        build_pod_with_priority("ns", "preemptor", "", "Pending", cpu, "preemptor", {}, {}, 100),
        build_pod_with_priority(
            "ns", "victim", "n1", "Running", cpu, "victim", {PREEMPTABLE: "true"}, {}, 10
        ),
    ]


def _evicts(name: str, objects: list[Model]) -> Case:
    return Case(name, objects, evicted=["ns/victim"], pipelined={"ns/preemptor": ["n1"]})


def _keeps(name: str, objects: list[Model]) -> Case:
    return Case(name, objects)


WHOLE = "TestSelectDomainVictims_RespectAllowWholeBundle"
ROWS = [
    # minAvailable 1 with its one task running: the victim is a whole bundle only.
    Row(
        _keeps(
            f"{WHOLE} (allowWholeBundle false)", _objects(min_member=1, victim_annotations=None)
        ),
        {"allowWholeBundle": False},
    ),
    Row(
        _evicts(
            f"{WHOLE} (allowWholeBundle true)", _objects(min_member=1, victim_annotations=None)
        ),
        {"allowWholeBundle": True},
    ),
    Row(
        _keeps(
            "TestSelectDomainVictims_RespectVictimJobPreemptable",
            _objects(min_member=0, victim_annotations={PREEMPTABLE: "false"}),
        ),
        {"allowWholeBundle": True},
    ),
    Row(
        _evicts(
            "TestSelectDomainVictims_AllowVictimJobWhenPreemptableUnset",
            _objects(min_member=0, victim_annotations={}),
        ),
        {"allowWholeBundle": True},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.case.name)
def test_gangpreempt(row: Row) -> None:
    check(row.case, tiers_conf("gangpreempt", TIERS, {"gangpreempt": row.arguments}))
