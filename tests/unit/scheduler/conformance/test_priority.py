"""Volcano ``pkg/scheduler/plugins/priority/priority_test.go``: ``TestPreempt``, one row per
upstream case, same objects, tiers (priority alone, eviction switches on or off) and actions;
``TestUnifiedEvictableFn_GangReclaimPermitsAll`` opens a session over its objects, as upstream,
and calls the session's ``UnifiedEvictable`` for a gangreclaim and a gangpreempt context.
"""

from __future__ import annotations

import pytest

from services.scheduler.api import JobInfo
from services.scheduler.framework.extension import EvictionContext, EvictionKind
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    Case,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_group_with_prio,
    build_pod_with_priority,
    build_priority_class,
    build_queue,
    build_resource_list,
    check,
    common,
    open_session,
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


@pytest.mark.parametrize(
    "name", ["GangReclaim permits all candidates regardless of priority"], ids=str
)
def test_unified_evictable_fn_gang_reclaim_permits_all(name: str) -> None:
    res = build_resource_list("1", "1G")
    ssn = open_session(
        [
            *PRI_CLASS,
            build_pod_group_with_prio("pg-high", "ns1", "q1", 1, {}, "Running", "high-priority"),
            build_pod_group_with_prio("pg-low", "ns2", "q1", 1, {}, "Running", "low-priority"),
            build_pod(
                "ns1", "high-task", "node1", "Running", res, "pg-high", {PREEMPTABLE: "true"}, {}
            ),
            build_pod(
                "ns2", "low-task", "node1", "Running", res, "pg-low", {PREEMPTABLE: "true"}, {}
            ),
            build_node("node1", build_resource_list("4", "4G", PODS), {}),
            build_queue("q1", 1, build_resource_list("4", "4G")),
        ],
        tiers_conf("allocate", [[ENABLE_EVICT]]),
    )
    tasks = {t.name: t for job in ssn.jobs.values() for t in job.tasks.values()}
    candidates = [tasks["high-task"], tasks["low-task"]]
    reclaimer = JobInfo(
        build_pod_group("reclaimer", "ns3", "q1", 1, {}, "Running"),
        priority=500,
        min_resources=None,
    )

    reclaim = ssn.unified_evictable(
        EvictionContext(EvictionKind.GANG_RECLAIM, reclaimer), candidates
    )
    assert len(reclaim) == 2, f"GangReclaim: expected all 2 candidates permitted, got {reclaim}"
    preempt = ssn.unified_evictable(
        EvictionContext(EvictionKind.GANG_PREEMPT, reclaimer), candidates
    )
    assert [t.name for t in preempt] == ["low-task"], preempt
