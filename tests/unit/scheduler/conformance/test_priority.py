"""Volcano ``pkg/scheduler/plugins/priority/priority_test.go``: ``TestPreempt``, one row per
upstream case, same objects, tiers (priority alone, eviction switches on or off) and actions.

Not expressible: ``TestUnifiedEvictableFn_GangReclaimPermitsAll`` (calls the
``UnifiedEvictable`` hook of the gangreclaim/gangpreempt actions, which Shoal does not have).
"""

from __future__ import annotations

import pytest

from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    Case,
    build_node,
    build_pod,
    build_pod_group_with_prio,
    build_pod_with_priority,
    build_priority_class,
    build_queue,
    build_resource_list,
    check,
    common,
)

PODS = {"Name": "pods", "Value": "10"}
PRIORITY = 1000
PRI_CLASS = [build_priority_class("low-priority", 100), build_priority_class("high-priority", 1000)]
SWITCHES = ("enableTaskOrder", "enableJobOrder", "enableJobStarving")
ENABLE_EVICT = plugin_option("priority", *SWITCHES, "enablePreemptable", "enableReclaimable")
DISABLE_EVICT = plugin_option("priority", *SWITCHES)


def _cases() -> list[tuple[Case, str]]:
    res = build_resource_list("3", "3G")
    pg1 = build_pod_group_with_prio("pg1", "ns1", "q1", 1, {}, "Inqueue", "low-priority")
    pg2 = build_pod_group_with_prio("pg2", "ns2", "q1", 1, {}, "Inqueue", "high-priority")
    queue = build_queue("q1", 1, build_resource_list("6", "6G"))
    preemptor = build_pod("ns2", "preemptor1", "", "Pending", res, "pg2", {}, {})
    return [
        (
            common(
                Name="enable preempt low priority: enablePreemptable:true",
                PriClass=PRI_CLASS,
                PodGroups=[pg1, pg2],
                Pods=[
                    build_pod(
                        "ns1",
                        "preemptee1",
                        "node1",
                        "Running",
                        res,
                        "pg1",
                        {PREEMPTABLE: "true"},
                        {},
                    ),
                    build_pod_with_priority(
                        "ns1",
                        "preemptee2",
                        "node1",
                        "Running",
                        res,
                        "pg1",
                        {PREEMPTABLE: "true"},
                        {},
                        PRIORITY,
                    ),
                    preemptor,
                ],
                Nodes=[
                    build_node("node1", build_resource_list("6", "6G", PODS), {}),
                    build_node("node2", build_resource_list("2", "2G", PODS), {}),
                ],
                Queues=[queue],
                ExpectEvicted=["ns1/preemptee1"],
                ExpectEvictNum=1,
                ExpectPipeLined={"ns2/pg2": ["node1"]},
            ),
            "enable",
        ),
        (
            common(
                Name="disable preempt low priority: enablePreemptable:false",
                PriClass=PRI_CLASS,
                PodGroups=[pg1, pg2],
                Pods=[
                    build_pod(
                        "ns1",
                        "preemptee1",
                        "node1",
                        "Running",
                        res,
                        "pg1",
                        {PREEMPTABLE: "true"},
                        {},
                    ),
                    build_pod(
                        "ns1",
                        "preemptee2",
                        "node2",
                        "Running",
                        res,
                        "pg1",
                        {PREEMPTABLE: "false"},
                        {},
                    ),
                    preemptor,
                ],
                Nodes=[
                    build_node("node1", build_resource_list("3", "3G", PODS), {}),
                    build_node("node2", build_resource_list("3", "3G", PODS), {}),
                ],
                Queues=[queue],
            ),
            "disable",
        ),
    ]


@pytest.mark.parametrize(("case", "tiers"), [pytest.param(c, t, id=c.name) for c, t in _cases()])
def test_preempt(case: Case, tiers: str) -> None:
    option = ENABLE_EVICT if tiers == "enable" else DISABLE_EVICT
    check(case, tiers_conf("allocate, preempt", [[option]]))
