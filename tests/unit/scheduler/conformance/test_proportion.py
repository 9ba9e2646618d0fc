"""Volcano ``pkg/scheduler/plugins/proportion/proportion_test.go``, one row per upstream case,
same objects, tiers and actions: ``TestEnqueueAndAllocable``, ``TestAllocate`` and
``TestNoDoubleCountingForInqueueJobWithBindingTasks`` (its second session, with the first
session's binds still binding).

Not expressible: ``TestProportion`` (reads the queue metrics Prometheus serves while the
session runs), ``TestJobEnqueuedOnOtherPluginsReject`` (a test-only rejecting plugin).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    Case,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_group_with_min_resources,
    build_queue,
    build_queue_with_priority_and_resources_quantity,
    build_queue_with_state,
    build_resource_list,
    check,
    common,
)

PODS = {"Name": "pods", "Value": "10"}


def _enqueue_and_allocable() -> list[tuple[Case, str]]:
    plugins = ("proportion",)
    n1 = build_node("n1", build_resource_list("2", "2G", PODS), None)
    n2 = build_node("n2", build_resource_list("2", "2G", PODS), None)
    res1c2g = build_resource_list("1", "2G")
    res2c1g = build_resource_list("2", "1G")
    res1c0g = build_resource_list("1", "0G")
    res0c1g = build_resource_list("0", "1G")
    res1c1g = build_resource_list("1", "1G")
    p1 = build_pod("ns1", "pod1", "n1", "Running", res1c2g, "pg1", None, None)
    p2 = build_pod("ns1", "pod2", "n2", "Running", res2c1g, "pg2", None, None)
    p3 = build_pod("ns1", "pod3", "", "Pending", res1c0g, "pg3", None, None)
    p4 = build_pod("ns1", "pod4", "", "Pending", res0c1g, "pg4", None, None)
    p5 = build_pod("ns1", "pod5", "", "Pending", res1c1g, "pg5", None, None)
    p6 = build_pod("ns1", "pod6", "", "Pending", res1c1g, "pg6", None, None)
    pg1 = build_pod_group_with_min_resources("pg1", "ns1", "q1", 1, None, res1c2g, "Running")
    pg2 = build_pod_group_with_min_resources("pg2", "ns1", "q2", 1, None, res2c1g, "Running")
    pg3 = build_pod_group_with_min_resources("pg3", "ns1", "q1", 1, None, res1c0g, "Pending")
    pg4 = build_pod_group_with_min_resources("pg4", "ns1", "q2", 1, None, res0c1g, "Pending")
    pg5 = build_pod_group_with_min_resources("pg5", "ns1", "q1", 1, None, res1c1g, "Pending")
    pg6 = build_pod_group_with_min_resources("pg6", "ns1", "q3", 1, None, res1c1g, "Pending")
    queue1 = build_queue("q1", 1, build_resource_list("2", "2G"))
    queue2 = build_queue("q2", 1, build_resource_list("3", "3G"))
    closed_queue3 = build_queue_with_state("q3", 1, build_resource_list("3", "3G"), "Closed")
    return [
        (
            common(
                Name=(
                    "case0: memory exceed derserved, job only request cpu can be enqueued and"
                    " allocated"
                ),
                Plugins=plugins,
                Pods=[p1, p2, p3],
                Nodes=[n1, n2],
                PodGroups=[pg1, pg2, pg3],
                Queues=[queue1, queue2],
                ExpectBindsNum=1,
                ExpectBindMap={"ns1/pod3": "n1"},
            ),
            "allEnable",
        ),
        (
            common(
                Name=(
                    "case1: cpu exceed derserved, job only request memory can be enqueued and"
                    " allocated"
                ),
                Plugins=plugins,
                Pods=[p1, p2, p4],
                Nodes=[n1, n2],
                PodGroups=[pg1, pg2, pg4],
                Queues=[queue1, queue2],
                ExpectBindsNum=1,
                ExpectBindMap={"ns1/pod4": "n2"},
            ),
            "allEnable",
        ),
        (
            common(
                Name="case2: exceed capacity, can not enqueue",
                Plugins=plugins,
                Pods=[p1, p2, p5],
                Nodes=[n1, n2],
                PodGroups=[pg1, pg2, pg5],
                Queues=[queue1, queue2],
            ),
            "enqueueable",
        ),
        (
            common(
                Name="case3: exceed deserved, can not allocate",
                Plugins=plugins,
                Pods=[p1, p2, p5],
                Nodes=[n1, n2],
                PodGroups=[pg1, pg2, pg5],
                Queues=[queue1, queue2],
            ),
            "allocatable",
        ),
        (
            common(
                Name="case4: queue with  non-open state, can not enqueue",
                Plugins=plugins,
                Pods=[p6],
                Nodes=[n1, n2],
                PodGroups=[pg6],
                Queues=[closed_queue3],
            ),
            "enqueueable",
        ),
    ]


def _allocate() -> list[Case]:
    plugins = ("proportion",)
    n1 = build_node("n1", build_resource_list("2", "4Gi", PODS), {})
    n2 = build_node("n2", build_resource_list("2", "4Gi", PODS), {})
    p1 = build_pod("ns1", "p1", "n1", "Running", build_resource_list("2", "4Gi"), "pg1", {}, {})
    p2 = build_pod("ns1", "p2", "", "Pending", build_resource_list("2", "4Gi"), "pg2", {}, {})
    p3 = build_pod("ns1", "p3", "", "Pending", build_resource_list("2", "4Gi"), "pg3", {}, {})
    pg1 = build_pod_group("pg1", "ns1", "q1", 1, None, "Running")
    pg2 = build_pod_group("pg2", "ns1", "q2", 1, None, "Inqueue")
    pg3 = build_pod_group("pg3", "ns1", "q3", 1, None, "Inqueue")
    cap = build_resource_list("2", "4Gi")
    queue1 = build_queue_with_priority_and_resources_quantity("q1", 5, None, cap)
    queue2 = build_queue_with_priority_and_resources_quantity("q2", 1, None, cap)
    queue3 = build_queue_with_priority_and_resources_quantity("q3", 10, None, cap)
    return [
        common(
            Name=(
                "case0: Pods are assigned according to the order of Queue Priority in which PGs"
                " are placed"
            ),
            Plugins=plugins,
            Pods=[p1, p2, p3],
            Nodes=[n1, n2],
            PodGroups=[pg1, pg2, pg3],
            Queues=[queue1, queue2, queue3],
            ExpectBindMap={"ns1/p3": "n2"},
            ExpectBindsNum=1,
        )
    ]


def _no_double_counting() -> list[Case]:
    n1 = build_node("n1", build_resource_list("4", "8Gi", PODS), None)
    res1cpu = build_resource_list("1", "1Gi")
    min_res3cpu = build_resource_list("3", "3Gi")
    min_res1cpu = build_resource_list("1", "1Gi")
    pg_a = build_pod_group_with_min_resources("pgA", "ns1", "q1", 3, None, min_res3cpu, "Inqueue")
    bound = [
        build_pod("ns1", f"pA{i}", "n1", "Pending", res1cpu, "pgA", None, None) for i in (1, 2, 3)
    ]
    pg_b = build_pod_group_with_min_resources("pgB", "ns1", "q1", 1, None, min_res1cpu, "Pending")
    p_b1 = build_pod("ns1", "pB1", "", "Pending", res1cpu, "pgB", None, None)
    q1 = build_queue("q1", 1, build_resource_list("4", "8Gi"))
    return [
        common(
            Name="TestNoDoubleCountingForInqueueJobWithBindingTasks",
            Plugins=("proportion",),
            Pods=[*bound, p_b1],
            Nodes=[n1],
            PodGroups=[pg_a, pg_b],
            Queues=[q1],
            ExpectBindMap={"ns1/pB1": "n1"},
            ExpectBindsNum=1,
        )
    ]


def _proportion(*enabled: str) -> list[list[dict[str, Any]]]:
    return [[plugin_option("proportion", *enabled)]]


ENQUEUE_TIERS = {
    "allEnable": _proportion("enabledAllocatable", "enabledOverused", "enableJobEnqueued"),
    "enqueueable": _proportion("enableJobEnqueued"),
    "allocatable": _proportion("enabledAllocatable"),
}


@pytest.mark.parametrize(
    ("case", "tiers"), [pytest.param(c, t, id=c.name) for c, t in _enqueue_and_allocable()]
)
def test_enqueue_and_allocable(case: Case, tiers: str) -> None:
    check(case, tiers_conf("enqueue, allocate", ENQUEUE_TIERS[tiers]))


@pytest.mark.parametrize("case", _allocate(), ids=lambda c: c.name)
def test_allocate(case: Case) -> None:
    check(case, tiers_conf("allocate, reclaim", _proportion("enableQueueOrder")))


@pytest.mark.parametrize("case", _no_double_counting(), ids=lambda c: c.name)
def test_no_double_counting_for_inqueue_job_with_binding_tasks(case: Case) -> None:
    tiers = _proportion("enabledAllocatable", "enabledOverused", "enableJobEnqueued")
    check(case, tiers_conf("enqueue, allocate", tiers))
