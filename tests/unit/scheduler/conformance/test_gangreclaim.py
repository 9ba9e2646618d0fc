"""Volcano ``pkg/scheduler/actions/gangreclaim/gangreclaim_test.go``: the
``TestSelectDomainVictims_*`` cases, one row per upstream case, as one ``gangreclaim``
session over the same objects.

Upstream calls ``selectDomainBundles`` on a hand-built session whose only plugin, a test-only
``test-reclaim``, allows every candidate through ``UnifiedEvictable``; here the session runs
the action with priority and gang, whose ``UnifiedEvictable`` allow every reclaim candidate
too, so the victims upstream selects are the ones evicted, with the reclaimer pipelined where
they were. The upstream node has no allocatable: it is given the cpu its running tasks use,
so the reclaimer needs a victim gone.

Not expressible: ``TestPickDomainsFromGradients_MaxDomainsAndDedup`` and ``_Fallback``
(an internal helper over HyperNode gradients; Shoal has no HyperNodes: its one domain is the
cluster), ``TestParseArguments`` and ``TestParseArguments_InvalidMaxDomainsFallsBackToDefault``
(read the action's parsed fields; ``maxDomains`` changes no decision with one domain).
"""

from __future__ import annotations

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    Case,
    build_node,
    build_pod_group,
    build_pod_with_priority,
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
CPU = build_resource_list("1", "")


def _running(name: str, queue: str, annotations: dict[str, str] | None = None) -> list[Model]:
    """NewJobInfo(testTask(...)) running on n1: minAvailable 0, priority 10."""
    group = build_pod_group(name, "ns", queue, 0, None, "Running")
    group.metadata.annotations.update(annotations or {})
    pod = build_pod_with_priority(
        "ns", name, "n1", "Running", CPU, name, {PREEMPTABLE: "true"}, {}, 10
    )
    return [group, pod]


def _objects(cpus: str, *running: list[Model], queues: list[Model]) -> list[Model]:
    reclaimer = [
        build_pod_group("reclaimer", "ns", "q1", 1, None, "Inqueue"),
        build_pod_with_priority("ns", "reclaimer", "", "Pending", CPU, "reclaimer", {}, {}, 100),
    ]
    node = build_node("n1", build_resource_list(cpus, "", {"Name": "pods", "Value": "10"}), {})
    return [*queues, node, *reclaimer, *(obj for group in running for obj in group)]


Q1 = build_queue("q1", 1, None)
Q2 = build_queue("q2", 1, None, reclaimable=True)
Q3 = build_queue("q3", 1, None, reclaimable=False)

CASES = [
    Case(
        "TestSelectDomainVictims_ReclaimableCrossQueueOnly",
        _objects("2", _running("victim", "q2"), _running("other", "q3"), queues=[Q1, Q2, Q3]),
        evicted=["ns/victim"],
        pipelined={"ns/reclaimer": ["n1"]},
    ),
    Case(
        "TestSelectDomainVictims_RespectVictimJobPreemptable",
        _objects("1", _running("victim", "q2", {PREEMPTABLE: "false"}), queues=[Q1, Q2]),
    ),
    Case(
        "TestSelectDomainVictims_AllowVictimJobWhenPreemptableUnset",
        _objects("1", _running("victim", "q2", {}), queues=[Q1, Q2]),
        evicted=["ns/victim"],
        pipelined={"ns/reclaimer": ["n1"]},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gangreclaim(case: Case) -> None:
    conf = tiers_conf("gangreclaim", TIERS, {"gangreclaim": {"allowWholeBundle": True}})
    check(case, conf)
