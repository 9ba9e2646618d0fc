"""Volcano ``pkg/scheduler/plugins/capacity/capacity_test.go``, one row per upstream case,
same objects, same tiers and actions: ``Test_capacityPlugin_OnSessionOpenWithoutHierarchy``,
``TestEnqueueAndAllocatable``, ``Test_capacityPlugin_OnSessionOpenWithHierarchy``,
``Test_buildHierarchicalQueueAttrs_nilSafety``,
``TestNoDoubleCountingForInqueueJobWithBindingTasks`` (its second session, with the first
session's binds still binding) and ``Test_capacityPlugin_AncestorReclaimScenarios`` (its
``ancestorReclaimLevel`` as the capacity plugin's argument).

Not expressible: ``Test_updateQueueAttrShare`` (internal share arithmetic), the DRA cases
(``TestCapacityPluginDRA``, ``TestParseDRA...``, ``TestSharedResourceClaimIsChargedOnce``,
``TestJobEnqueueable...DRA...``, ``TestDRAAllocatableIgnoresInqueue``,
``TestJobEnqueuedUpdatesDRAInqueueForDRAOnlyJob``, ``TestCheckDRAAllocatable_overflowRejected``:
Shoal models no ResourceClaims), ``TestJobEnqueuedOnOtherPluginsReject`` (a test-only rejecting
plugin).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    Case,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_group_with_min_resources,
    build_pod_with_priority,
    build_queue,
    build_queue_with_parents,
    build_queue_with_priority_and_resources_quantity,
    build_queue_with_resources_quantity,
    build_queue_with_state,
    build_resource_list,
    check,
    common,
    filtered,
    rows,
)


def _without_hierarchy() -> list[Case]:
    plugins = ("capacity", "predicates", "gang")
    n1 = build_node(
        "n1",
        build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
        {"selector": "worker"},
    )
    n2 = build_node("n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), {})
    p1 = build_pod("ns1", "p1", "n1", "Running", build_resource_list("1", "1Gi"), "pg1", {}, {})
    p2 = build_pod(
        "ns1",
        "p2",
        "",
        "Pending",
        build_resource_list("1", "1Gi"),
        "pg2",
        {},
        {"selector": "worker"},
    )
    pg1 = build_pod_group("pg1", "ns1", "q1", 1, None, "Running")
    pg2 = build_pod_group("pg2", "ns1", "q1", 1, None, "Inqueue")
    queue1 = build_queue_with_resources_quantity("q1", None, build_resource_list("2", "2Gi"))
    p3 = build_pod("ns1", "p3", "n1", "Running", build_resource_list("1", "1Gi"), "pg3", {}, {})
    p4 = build_pod("ns1", "p4", "", "Pending", build_resource_list("1", "1Gi"), "pg4", {}, {})
    pg3 = build_pod_group("pg3", "ns1", "q2", 1, None, "Running")
    pg4 = build_pod_group("pg4", "ns1", "q2", 1, None, "Inqueue")
    queue2 = build_queue_with_resources_quantity("q2", None, build_resource_list("1.5", "1.5Gi"))
    p5 = build_pod(
        "ns1",
        "p5",
        "n1",
        "Running",
        build_resource_list("2", "4Gi"),
        "pg5",
        {PREEMPTABLE: "false"},
        {},
    )
    p6 = build_pod("ns1", "p6", "n2", "Running", build_resource_list("2", "4Gi"), "pg5", {}, {})
    p7 = build_pod("ns1", "p7", "", "Pending", build_resource_list("2", "4Gi"), "pg6", {}, {})
    pg5 = build_pod_group("pg5", "ns1", "q3", 1, None, "Running")
    pg6 = build_pod_group("pg6", "ns1", "q4", 1, None, "Inqueue")
    queue3 = build_queue_with_resources_quantity("q3", build_resource_list("2", "4Gi"), None)
    queue4 = build_queue_with_resources_quantity("q4", build_resource_list("2", "4Gi"), None)
    n3 = build_node(
        "n3",
        build_resource_list(
            "2", "4Gi", {"Name": "nvidia.com/A100", "Value": "10"}, {"Name": "pods", "Value": "10"}
        ),
        {"selector": "worker"},
    )
    n4 = build_node(
        "n4",
        build_resource_list(
            "2", "4Gi", {"Name": "nvidia.com/A100", "Value": "10"}, {"Name": "pods", "Value": "10"}
        ),
        {},
    )
    p8 = build_pod(
        "ns1",
        "p8",
        "n3",
        "Running",
        build_resource_list("0", "0Gi", {"Name": "nvidia.com/A100", "Value": "10"}),
        "pg7",
        {PREEMPTABLE: "false"},
        {},
    )
    p9 = build_pod(
        "ns1",
        "p9",
        "n4",
        "Running",
        build_resource_list("0", "0Gi", {"Name": "nvidia.com/A100", "Value": "10"}),
        "pg7",
        {},
        {},
    )
    p10 = build_pod("ns1", "p10", "n3", "Running", build_resource_list("2", "4Gi"), "pg8", {}, {})
    p11 = build_pod("ns1", "p11", "n4", "Running", build_resource_list("2", "4Gi"), "pg8", {}, {})
    p12 = build_pod(
        "ns1",
        "p12",
        "",
        "Pending",
        build_resource_list("0", "0Gi", {"Name": "nvidia.com/A100", "Value": "10"}),
        "pg9",
        {},
        {},
    )
    pg7 = build_pod_group("pg7", "ns1", "q5", 1, None, "Running")
    pg8 = build_pod_group("pg8", "ns1", "q6", 1, None, "Running")
    pg9 = build_pod_group("pg9", "ns1", "q6", 1, None, "Inqueue")
    queue5 = build_queue_with_resources_quantity(
        "q5", build_resource_list("2", "4Gi", {"Name": "nvidia.com/A100", "Value": "10"}), None
    )
    queue6 = build_queue_with_resources_quantity(
        "q6", build_resource_list("2", "4Gi", {"Name": "nvidia.com/A100", "Value": "10"}), None
    )
    n5 = build_node("n5", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), {})
    n6 = build_node("n6", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), {})
    p13 = build_pod("ns1", "p13", "n5", "Running", build_resource_list("2", "4Gi"), "pg10", {}, {})
    p14 = build_pod("ns1", "p14", "", "Pending", build_resource_list("2", "4Gi"), "pg11", {}, {})
    p15 = build_pod("ns1", "p15", "", "Pending", build_resource_list("2", "4Gi"), "pg12", {}, {})
    pg10 = build_pod_group("pg10", "ns1", "q7", 1, None, "Running")
    pg11 = build_pod_group("pg11", "ns1", "q8", 1, None, "Inqueue")
    pg12 = build_pod_group("pg12", "ns1", "q9", 1, None, "Inqueue")
    queue7 = build_queue_with_priority_and_resources_quantity(
        "q7", 5, None, build_resource_list("2", "4Gi")
    )
    queue8 = build_queue_with_priority_and_resources_quantity(
        "q8", 1, None, build_resource_list("2", "4Gi")
    )
    queue9 = build_queue_with_priority_and_resources_quantity(
        "q9", 10, None, build_resource_list("2", "4Gi")
    )
    p16 = build_pod(
        "ns1", "p16", "n1", "Running", build_resource_list("1", "3Gi"), "pg16", {}, None
    )
    p17 = build_pod("ns1", "p17", "", "Pending", build_resource_list("1", "1Gi"), "pg17", {}, None)
    p18 = build_pod(
        "ns1", "p18", "n1", "Running", build_resource_list("1", "1Gi"), "pg18", {}, None
    )
    pg16 = build_pod_group("pg16", "ns1", "q10", 1, None, "Running")
    pg17 = build_pod_group("pg17", "ns1", "q10", 1, None, "Inqueue")
    pg18 = build_pod_group("pg18", "ns1", "q11", 1, None, "Running")
    queue10 = build_queue_with_resources_quantity(
        "q10", build_resource_list("2", "2Gi"), build_resource_list("4", "4Gi")
    )
    queue11 = build_queue_with_resources_quantity(
        "q11", build_resource_list("0", "0Gi"), build_resource_list("2", "2Gi")
    )
    p19 = build_pod(
        "ns1", "p19", "n1", "Running", build_resource_list("1", "1Gi"), "pg19", {}, None
    )
    p20 = build_pod("ns1", "p20", "", "Pending", build_resource_list("1", "2Gi"), "pg20", {}, None)
    p21 = build_pod(
        "ns1", "p21", "n1", "Running", build_resource_list("1", "1Gi"), "pg21", {}, None
    )
    pg19 = build_pod_group("pg19", "ns1", "q12", 1, None, "Running")
    pg20 = build_pod_group("pg20", "ns1", "q12", 1, None, "Inqueue")
    pg21 = build_pod_group("pg21", "ns1", "q13", 1, None, "Running")
    queue12 = build_queue_with_resources_quantity(
        "q12", build_resource_list("1", "2Gi"), build_resource_list("4", "4Gi")
    )
    queue13 = build_queue_with_resources_quantity(
        "q13", build_resource_list("0", "0Gi"), build_resource_list("2", "2Gi")
    )
    n7 = build_node(
        "n7",
        build_resource_list(
            "4", "8Gi", {"Name": "nvidia.com/gpu", "Value": "4"}, {"Name": "pods", "Value": "10"}
        ),
        None,
    )
    p22 = build_pod(
        "ns1", "p22", "n7", "Running", build_resource_list("2", "4Gi"), "pg22", None, None
    )
    p23 = build_pod(
        "ns1",
        "p23",
        "n7",
        "Running",
        build_resource_list("0", "0Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg23",
        None,
        None,
    )
    p24 = build_pod(
        "ns1",
        "p24",
        "n7",
        "Running",
        build_resource_list("2", "1Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg24",
        None,
        None,
    )
    p25 = build_pod(
        "ns1",
        "p25",
        "",
        "Pending",
        build_resource_list("2", "3Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg25",
        None,
        None,
    )
    pg22 = build_pod_group("pg22", "ns1", "queue14", 1, None, "Running")
    pg23 = build_pod_group("pg23", "ns1", "queue15", 1, None, "Running")
    pg24 = build_pod_group("pg24", "ns1", "queue16", 1, None, "Running")
    pg25 = build_pod_group("pg25", "ns1", "queue16", 1, None, "Inqueue")
    queue14 = build_queue_with_resources_quantity(
        "queue14", build_resource_list("2", "4Gi", {"Name": "nvidia.com/gpu", "Value": "2"}), None
    )
    queue15 = build_queue_with_resources_quantity("queue15", None, None)
    queue16 = build_queue_with_resources_quantity(
        "queue16", build_resource_list("2", "4Gi", {"Name": "nvidia.com/gpu", "Value": "2"}), None
    )
    n8 = build_node(
        "n8",
        build_resource_list(
            "4", "8Gi", {"Name": "nvidia.com/gpu", "Value": "1"}, {"Name": "pods", "Value": "10"}
        ),
        None,
    )
    p26 = build_pod(
        "ns1", "p26", "n8", "Running", build_resource_list("0", "4Gi"), "pg26", None, None
    )
    p27 = build_pod(
        "ns1", "p27", "n8", "Running", build_resource_list("1", "0Gi"), "pg27", None, None
    )
    p28 = build_pod(
        "ns1",
        "p28",
        "n8",
        "Running",
        build_resource_list("0", "0Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg28",
        None,
        None,
    )
    pg26 = build_pod_group("pg26", "ns1", "queue17", 1, None, "Running")
    pg27 = build_pod_group("pg27", "ns1", "queue17", 1, None, "Running")
    pg28 = build_pod_group("pg28", "ns1", "queue17", 1, None, "Running")
    queue17 = build_queue_with_resources_quantity("queue17", build_resource_list("2", "2Gi"), None)
    p29 = build_pod(
        "ns1", "p29", "n8", "Running", build_resource_list("2", "4Gi"), "pg29", None, None
    )
    pg29 = build_pod_group("pg29", "ns1", "queue18", 1, None, "Running")
    p30 = build_pod(
        "ns1",
        "p30",
        "",
        "Pending",
        build_resource_list("1", "0Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg30",
        None,
        None,
    )
    pg30 = build_pod_group("pg30", "ns1", "queue18", 1, None, "Inqueue")
    queue18 = build_queue_with_resources_quantity(
        "queue18", build_resource_list("2", "4Gi", {"Name": "nvidia.com/gpu", "Value": "1"}), None
    )
    p31 = build_pod(
        "ns1",
        "p31",
        "n8",
        "Running",
        build_resource_list("4", "4Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg31",
        None,
        None,
    )
    pg31 = build_pod_group("pg31", "ns1", "queue19", 1, None, "Running")
    queue19 = build_queue_with_resources_quantity(
        "queue19", build_resource_list("", "", {"Name": "nvidia.com/gpu", "Value": "1"}), None
    )
    p32 = build_pod(
        "ns1", "p32", "", "Pending", build_resource_list("1", "1Gi"), "pg32", None, None
    )
    pg32 = build_pod_group("pg32", "ns1", "queue20", 1, None, "Inqueue")
    queue20 = build_queue_with_resources_quantity("queue20", build_resource_list("2", "2Gi"), None)
    n9 = build_node("n9", build_resource_list("8", "100Gi", {"Name": "pods", "Value": "10"}), None)
    n10 = build_node(
        "n10", build_resource_list("8", "100Gi", {"Name": "pods", "Value": "10"}), None
    )
    p33 = build_pod(
        "ns1", "p33", "n9", "Running", build_resource_list("7", "90Gi"), "pg33", {}, None
    )
    p34 = build_pod("ns1", "p34", "", "Pending", build_resource_list("2", "5Gi"), "pg34", {}, None)
    p35 = build_pod(
        "ns1", "p35", "n10", "Running", build_resource_list("2", "5Gi"), "pg35", {}, None
    )
    pg33 = build_pod_group("pg33", "ns1", "queue21", 1, None, "Running")
    pg34 = build_pod_group("pg34", "ns1", "queue21", 1, None, "Inqueue")
    pg35 = build_pod_group("pg35", "ns1", "queue22", 1, None, "Running")
    queue21 = build_queue_with_resources_quantity(
        "queue21", build_resource_list("8", "100Gi"), build_resource_list("8", "100Gi")
    )
    queue22 = build_queue_with_resources_quantity("queue22", None, build_resource_list("2", "5Gi"))
    return [
        common(
            Name="case0: Pod allocatable when queue has not exceed capability",
            Plugins=plugins,
            Pods=[p1, p2],
            Nodes=[n1, n2],
            PodGroups=[pg1, pg2],
            Queues=[queue1],
            ExpectBindMap={
                "ns1/p2": "n1",
            },
            ExpectBindsNum=1,
        ),
        common(
            Name="case1: Pod not allocatable when queue exceed queue capability",
            Plugins=plugins,
            Pods=[p3, p4],
            Nodes=[n1, n2],
            PodGroups=[pg3, pg4],
            Queues=[queue2],
            ExpectBindsNum=0,
        ),
        common(
            Name="case2: Can reclaim from other queues when allocated < deserved",
            Plugins=plugins,
            Pods=[p5, p6, p7],
            Nodes=[n1, n2],
            PodGroups=[pg5, pg6],
            Queues=[queue3, queue4],
            ExpectPipeLined={
                "ns1/pg6": ["n2"],
            },
            ExpectEvicted=["ns1/p6"],
            ExpectEvictNum=1,
        ),
        common(
            Name=(
                "case3: CPU & Memory are overused, scalar resource is not overused, but "
                "candidate pod has not request CPU & Memory, reclaim should happen"
            ),
            Plugins=plugins,
            Pods=[p8, p9, p10, p11, p12],
            Nodes=[n3, n4],
            PodGroups=[pg7, pg8, pg9],
            Queues=[queue5, queue6],
            ExpectPipeLined={
                "ns1/pg9": ["n4"],
            },
            ExpectEvicted=["ns1/p9"],
            ExpectEvictNum=1,
        ),
        common(
            Name=(
                "case4: Pods are assigned according to the order of Queue Priority in which PGs "
                "are placed"
            ),
            Plugins=plugins,
            Pods=[p13, p14, p15],
            Nodes=[n5, n6],
            PodGroups=[pg10, pg11, pg12],
            Queues=[queue7, queue8, queue9],
            ExpectBindMap={
                "ns1/p15": "n6",
            },
            ExpectBindsNum=1,
        ),
        common(
            Name=(
                "case5: Can reclaim from other queues when allocated + req <= deserved on one "
                "dimension"
            ),
            Plugins=plugins,
            Pods=[p16, p17, p18],
            Nodes=[n1],
            PodGroups=[pg16, pg17, pg18],
            Queues=[queue10, queue11],
            ExpectPipeLined={
                "ns1/pg17": ["n1"],
            },
            ExpectEvicted=[
                "ns1/p18",
            ],
            ExpectEvictNum=1,
        ),
        common(
            Name="case6: Can not reclaim from other queues when allocated + req > deserved",
            Plugins=plugins,
            Pods=[p19, p20, p21],
            Nodes=[n1],
            PodGroups=[pg19, pg20, pg21],
            Queues=[queue12, queue13],
            ExpectPipeLined={},
            ExpectEvicted=[],
            ExpectEvictNum=0,
        ),
        common(
            Name=(
                "case7: allocated does not contain scalar dimension (GPU), deserved does; should "
                "not reclaim"
            ),
            Plugins=plugins,
            Pods=[p22, p23, p24, p25],
            Nodes=[n7],
            PodGroups=[pg22, pg23, pg24, pg25],
            Queues=[queue14, queue15, queue16],
            ExpectPipeLined={},
            ExpectEvicted=[],
            ExpectEvictNum=0,
        ),
        common(
            Name="case8: reclaimer dimensions are considered properly while evicting reclaimees",
            Plugins=plugins,
            Pods=[p26, p27, p28, p29, p30],
            Nodes=[n8],
            PodGroups=[pg26, pg27, pg28, pg29, pg30],
            Queues=[queue17, queue18],
            ExpectPipeLined={
                "ns1/pg30": ["n8"],
            },
            ExpectEvicted=["ns1/p28"],
            ExpectEvictNum=1,
        ),
        common(
            Name=(
                "case9: reclaimee has intersecting scalar dimensions with deserved shouldn't be "
                "reclaimed on cpu/memory"
            ),
            Plugins=plugins,
            Pods=[p31, p32],
            Nodes=[n8],
            PodGroups=[pg31, pg32],
            Queues=[queue19, queue20],
            ExpectPipeLined={},
            ExpectEvicted=[],
            ExpectEvictNum=0,
        ),
        common(
            Name=(
                "case10: PreemptiveFn respects capability — no reclaim when futureUsed would "
                "exceed capability"
            ),
            Plugins=plugins,
            Pods=[p33, p34, p35],
            Nodes=[n9, n10],
            PodGroups=[pg33, pg34, pg35],
            Queues=[queue21, queue22],
            ExpectPipeLined={},
            ExpectEvicted=[],
            ExpectEvictNum=0,
        ),
    ]


def _enqueue_and_allocatable() -> list[Case]:
    plugins = ("capacity",)
    n1 = build_node("n1", build_resource_list("3", "3G", {"Name": "pods", "Value": "10"}), None)
    n2 = build_node("n2", build_resource_list("3", "3G", {"Name": "pods", "Value": "10"}), None)
    res1c3g = build_resource_list("1", "3G")
    res3c1g = build_resource_list("3", "1G")
    res1c0g = build_resource_list("1", "0G")
    res0c1g = build_resource_list("0", "1G")
    res1c1g = build_resource_list("1", "1G")
    p1 = build_pod("ns1", "pod1", "n1", "Running", res1c3g, "pg1", None, None)
    p2 = build_pod("ns1", "pod2", "n2", "Running", res3c1g, "pg2", None, None)
    p3 = build_pod("ns1", "pod3", "", "Pending", res1c0g, "pg3", None, None)
    p4 = build_pod("ns1", "pod4", "", "Pending", res0c1g, "pg4", None, None)
    p5 = build_pod("ns1", "pod5", "", "Pending", res1c1g, "pg5", None, None)
    p6 = build_pod("ns1", "pod6", "", "Pending", res1c1g, "pg6", None, None)
    pg1 = build_pod_group_with_min_resources("pg1", "ns1", "q1", 1, None, res1c3g, "Running")
    pg2 = build_pod_group_with_min_resources("pg2", "ns1", "q2", 1, None, res3c1g, "Running")
    pg3 = build_pod_group_with_min_resources("pg3", "ns1", "q1", 1, None, res1c0g, "Pending")
    pg4 = build_pod_group_with_min_resources("pg4", "ns1", "q2", 1, None, res0c1g, "Pending")
    pg5 = build_pod_group_with_min_resources("pg5", "ns1", "q1", 1, None, res1c1g, "Pending")
    pg6WithClosedQueue = build_pod_group_with_min_resources(
        "pg6", "ns1", "q3", 1, None, res1c1g, "Pending"
    )
    queue1 = build_queue_with_resources_quantity(
        "q1", build_resource_list("2", "2G"), build_resource_list("2", "2G")
    )
    queue2 = build_queue_with_resources_quantity(
        "q2", build_resource_list("2", "2G"), build_resource_list("3", "3G")
    )
    closedQueue3 = build_queue_with_state("q3", 1, build_resource_list("3", "3G"), "Closed")
    return [
        common(
            Name=(
                "case0: memory exceed derserved, job only request cpu can be enqueued and allocated"
            ),
            Plugins=plugins,
            Pods=[p1, p2, p3],
            Nodes=[n1, n2],
            PodGroups=[pg1, pg2, pg3],
            Queues=[queue1, queue2],
            ExpectBindsNum=1,
            ExpectBindMap={"ns1/pod3": "n1"},
        ),
        common(
            Name=(
                "case1: cpu exceed derserved, job only request memory can be enqueued and allocated"
            ),
            Plugins=plugins,
            Pods=[p1, p2, p4],
            Nodes=[n1, n2],
            PodGroups=[pg1, pg2, pg4],
            Queues=[queue1, queue2],
            ExpectBindsNum=1,
            ExpectBindMap={"ns1/pod4": "n2"},
        ),
        common(
            Name="case2: exceed capacity, can not enqueue",
            Plugins=plugins,
            Pods=[p1, p2, p5],
            Nodes=[n1, n2],
            PodGroups=[pg1, pg2, pg5],
            Queues=[queue1, queue2],
            ExpectBindsNum=0,
            ExpectBindMap={},
        ),
        common(
            Name="case4: queue with non-open state, can not enqueue",
            Plugins=plugins,
            Pods=[p6],
            Nodes=[n1, n2],
            PodGroups=[pg6WithClosedQueue],
            Queues=[closedQueue3],
            ExpectBindsNum=0,
            ExpectBindMap={},
        ),
    ]


def _with_hierarchy() -> list[Case]:
    plugins = ("capacity", "predicates", "gang")
    n1 = build_node("n1", build_resource_list("8", "8Gi", {"Name": "pods", "Value": "11"}), {})
    p1 = build_pod("ns1", "p1", "", "Pending", build_resource_list("1", "1Gi"), "pg1", {}, {})
    pg1 = build_pod_group("pg1", "ns1", "q11", 1, None, "Inqueue")
    root = build_queue_with_parents("root", "", None, None)
    root1 = build_queue_with_parents("root", "", None, build_resource_list("16", "16Gi"))
    root2 = build_queue_with_parents(
        "root",
        "",
        build_resource_list(
            "16",
            "16Gi",
            {"Name": "nvidia.com/a100", "Value": "4"},
            {"Name": "rdma", "Value": "1000"},
        ),
        None,
    )
    queue1 = build_queue_with_parents("q1", "root", None, build_resource_list("4", "4Gi"))
    queue2 = build_queue_with_parents("q2", "root", None, build_resource_list("4", "4Gi"))
    queue11 = build_queue_with_parents("q11", "q1", None, build_resource_list("1", "1Gi"))
    queue12 = build_queue_with_parents("q12", "q1", None, build_resource_list("3", "3Gi"))
    p2 = build_pod("ns1", "p2", "", "Pending", build_resource_list("1", "1Gi"), "pg2", {}, {})
    pg2 = build_pod_group("pg2", "ns1", "q1", 1, None, "Pending")
    p3 = build_pod("ns1", "p3", "", "Pending", build_resource_list("2", "2Gi"), "pg3", {}, {})
    p4 = build_pod("ns1", "p4", "", "Pending", build_resource_list("2", "2Gi"), "pg3", {}, {})
    pg3 = build_pod_group("pg3", "ns1", "q31", 2, None, "Inqueue")
    queue3 = build_queue_with_parents(
        "q3",
        "root",
        build_resource_list("4", "4Gi", {"Name": "pods", "Value": "10"}),
        build_resource_list("4", "4Gi", {"Name": "pods", "Value": "10"}),
    )
    queue4 = build_queue_with_parents(
        "q4",
        "root",
        build_resource_list("2", "2Gi", {"Name": "pods", "Value": "1"}),
        build_resource_list("4", "4Gi", {"Name": "pods", "Value": "4"}),
    )
    queue31 = build_queue_with_parents(
        "q31",
        "q3",
        build_resource_list("2", "2Gi", {"Name": "pods", "Value": "2"}),
        build_resource_list("4", "4Gi", {"Name": "pods", "Value": "4"}),
    )
    queue32 = build_queue_with_parents(
        "q32",
        "q3",
        build_resource_list("2", "2Gi", {"Name": "pods", "Value": "2"}),
        build_resource_list("4", "4Gi", {"Name": "pods", "Value": "4"}),
    )
    queue33 = build_queue_with_parents(
        "q33",
        "q3",
        build_resource_list("0", "0Gi", {"Name": "pods", "Value": "2"}),
        build_resource_list("4", "4Gi", {"Name": "pods", "Value": "4"}),
    )
    p5 = build_pod("ns1", "p5", "n1", "Running", build_resource_list("4", "4Gi"), "pg4", {}, {})
    p6 = build_pod(
        "ns1",
        "p6",
        "n1",
        "Running",
        build_resource_list("2", "2Gi"),
        "pg5",
        {PREEMPTABLE: "false"},
        {},
    )
    p7 = build_pod("ns1", "p7", "n1", "Running", build_resource_list("2", "2Gi"), "pg5", {}, {})
    p8 = build_pod("ns1", "p8", "", "Pending", build_resource_list("2", "2Gi"), "pg6", {}, {})
    p9 = build_pod("ns1", "p9", "n1", "Running", build_resource_list("2", "2Gi"), "pg7", {}, {})
    p10 = build_pod("ns1", "p10", "", "Pending", build_resource_list("3", "3Gi"), "pg8", {}, {})
    pg4 = build_pod_group("pg4", "ns1", "q4", 1, None, "Running")
    pg5 = build_pod_group("pg5", "ns1", "q31", 1, None, "Running")
    pg6 = build_pod_group("pg6", "ns1", "q32", 1, None, "Inqueue")
    pg7 = build_pod_group("pg7", "ns1", "q32", 1, None, "Running")
    pg8 = build_pod_group("pg8", "ns1", "q33", 1, None, "Inqueue")
    queue5 = build_queue_with_parents("q5", "root", None, build_resource_list("", "4Gi"))
    queue51 = build_queue_with_parents("q51", "q5", None, build_resource_list("", "2Gi"))
    pg9 = build_pod_group("pg9", "ns1", "q51", 1, None, "Running")
    p11 = build_pod("ns1", "p11", "", "Pending", build_resource_list("1", ""), "pg9", {}, {})
    queue6 = build_queue_with_parents("q6", "root", None, build_resource_list("2", "4Gi"))
    queue61 = build_queue_with_parents("q61", "q6", None, None)
    queue62 = build_queue_with_parents("q62", "q6", None, None)
    pg10 = build_pod_group_with_min_resources(
        "pg10", "ns1", "q61", 1, None, build_resource_list("2", "4Gi"), "Pending"
    )
    pg11 = build_pod_group_with_min_resources(
        "pg11", "ns1", "q62", 1, None, build_resource_list("2", "4Gi"), "Pending"
    )
    queue7 = build_queue_with_parents("q7", "root", None, build_resource_list("6", "4Gi"))
    queue71 = build_queue(
        "q71",
        1,
        build_resource_list("6", "4Gi"),
        parent="q7",
        guarantee={"resource": {"cpu": "4", "memory": "3Gi"}},
    )
    queue72 = build_queue(
        "q72",
        1,
        build_resource_list("6", "4Gi"),
        parent="q7",
        guarantee={"resource": {"cpu": "4", "memory": "3Gi"}},
    )
    queue8 = build_queue_with_parents(
        "q8",
        "root",
        build_resource_list("4", "4Gi", {"Name": "nvidia.com/gpu", "Value": "8"}),
        None,
    )
    queue81 = build_queue_with_parents(
        "q81", "q8", build_resource_list("2", "2Gi", {"Name": "nvidia.com/gpu", "Value": "4"}), None
    )
    queue82 = build_queue_with_parents(
        "q82", "q8", build_resource_list("2", "2Gi", {"Name": "nvidia.com/gpu", "Value": "4"}), None
    )
    gpuNode = build_node(
        "n-gpu",
        build_resource_list(
            "8", "8Gi", {"Name": "nvidia.com/gpu", "Value": "8"}, {"Name": "pods", "Value": "10"}
        ),
        {},
    )
    pg12 = build_pod_group("pg12", "ns1", "q81", 1, None, "Inqueue")
    p12 = build_pod(
        "ns1",
        "p12",
        "",
        "Pending",
        build_resource_list("2", "2Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg12",
        {},
        {},
    )
    queue9 = build_queue_with_parents(
        "q9",
        "root",
        build_resource_list(
            "2",
            "2Gi",
            {"Name": "nvidia.com/gpu", "Value": "8"},
            {"Name": "hugepages-1Gi", "Value": "0"},
        ),
        None,
    )
    queue91 = build_queue_with_parents(
        "q91",
        "q9",
        build_resource_list(
            "2",
            "2Gi",
            {"Name": "nvidia.com/gpu", "Value": "4"},
            {"Name": "hugepages-1Gi", "Value": "0"},
        ),
        None,
    )
    n2 = build_node(
        "n2",
        build_resource_list(
            "8",
            "8Gi",
            {"Name": "nvidia.com/gpu", "Value": "8"},
            {"Name": "pods", "Value": "10"},
            {"Name": "hugepages-1Gi", "Value": "0"},
        ),
        {},
    )
    pg13 = build_pod_group("pg13", "ns1", "q91", 1, None, "Inqueue")
    p13 = build_pod(
        "ns1",
        "p13",
        "",
        "Pending",
        build_resource_list("2", "2Gi", {"Name": "nvidia.com/gpu", "Value": "1"}),
        "pg13",
        {},
        {},
    )
    queue10 = build_queue_with_parents("q10", "root", None, build_resource_list("10", "4Gi"))
    case11_queue1 = build_queue_with_parents("case11_queue1", "root", None, None)
    case11_queue11 = build_queue_with_parents(
        "case11_queue11",
        "case11_queue1",
        None,
        build_resource_list("4", "4Gi", {"Name": "nvidia.com/gpu", "Value": "4"}),
    )
    case11_queue12 = build_queue_with_parents(
        "case11_queue12",
        "case11_queue1",
        None,
        build_resource_list("4", "4Gi", {"Name": "nvidia.com/gpu", "Value": "4"}),
    )
    pg14 = build_pod_group("pg14", "ns1", "case11_queue11", 1, None, "Inqueue")
    pg15 = build_pod_group("pg15", "ns1", "case11_queue12", 1, None, "Inqueue")
    p14 = build_pod(
        "ns1",
        "p14",
        "",
        "Pending",
        build_resource_list("1", "1Gi", {"Name": "nvidia.com/gpu", "Value": "4"}),
        "pg14",
        {},
        {},
    )
    p15 = build_pod(
        "ns1",
        "p15",
        "",
        "Pending",
        build_resource_list("1", "1Gi", {"Name": "nvidia.com/gpu", "Value": "4"}),
        "pg15",
        {},
        {},
    )
    case12_queue1 = build_queue_with_parents(
        "case12_queue1",
        "root",
        build_resource_list("", "", {"Name": "nvidia.com/a100", "Value": "2"}),
        None,
    )
    case12_queue11 = build_queue_with_parents(
        "case12_queue11",
        "case12_queue1",
        build_resource_list("", "", {"Name": "nvidia.com/a100", "Value": "2"}),
        None,
    )
    case12_queue12 = build_queue_with_parents("case12_queue12", "case12_queue1", None, None)
    n3 = build_node(
        "n3",
        build_resource_list(
            "16",
            "16Gi",
            {"Name": "nvidia.com/a100", "Value": "5"},
            {"Name": "rdma/hca", "Value": "1001"},
            {"Name": "pods", "Value": "11"},
        ),
        {},
    )
    pg16 = build_pod_group("pg16", "ns1", "case12_queue11", 1, None, "Inqueue")
    pg17 = build_pod_group("pg17", "ns1", "case12_queue12", 1, None, "Running")
    pg18 = build_pod_group("pg18", "ns1", "case12_queue12", 1, None, "Running")
    p16 = build_pod(
        "ns1",
        "p16",
        "",
        "Pending",
        build_resource_list(
            "1",
            "1Gi",
            {"Name": "nvidia.com/a100", "Value": "2"},
            {"Name": "rdma/hca", "Value": "1"},
        ),
        "pg16",
        {},
        {},
    )
    p17 = build_pod(
        "ns1",
        "p17",
        "n3",
        "Running",
        build_resource_list(
            "1",
            "1Gi",
            {"Name": "nvidia.com/a100", "Value": "2"},
            {"Name": "rdma/hca", "Value": "1"},
        ),
        "pg17",
        {},
        {},
    )
    p18 = build_pod(
        "ns1",
        "p18",
        "n3",
        "Running",
        build_resource_list(
            "1",
            "1Gi",
            {"Name": "nvidia.com/a100", "Value": "2"},
            {"Name": "rdma/hca", "Value": "1"},
        ),
        "pg18",
        {PREEMPTABLE: "false"},
        {},
    )
    return [
        common(
            Name="case0: Pod allocatable when queue is leaf queue",
            Plugins=plugins,
            Pods=[p1],
            Nodes=[n1],
            PodGroups=[pg1],
            Queues=[root, queue1, queue2, queue11, queue12],
            ExpectBindMap={
                "ns1/p1": "n1",
            },
            ExpectBindsNum=1,
        ),
        common(
            Name="case1: Pod not allocatable when queue is not leaf queue",
            Plugins=plugins,
            Pods=[p2],
            Nodes=[n1],
            PodGroups=[pg2],
            Queues=[root, queue1, queue2, queue11, queue12],
            ExpectBindMap={},
            ExpectBindsNum=0,
        ),
        common(
            Name="case2: Pod allocatable when queue has not exceed capability",
            Plugins=plugins,
            Pods=[p3, p4],
            Nodes=[n1],
            PodGroups=[pg3],
            Queues=[root, queue3, queue4, queue31, queue32],
            ExpectBindMap={
                "ns1/p3": "n1",
                "ns1/p4": "n1",
            },
            ExpectBindsNum=2,
        ),
        common(
            Name="case3: Can reclaim from other queues when allocated < deserved",
            Plugins=plugins,
            Pods=[p5, p6, p7, p8],
            Nodes=[n1],
            PodGroups=[pg4, pg5, pg6],
            Queues=[root, queue3, queue31, queue32, queue4],
            ExpectPipeLined={
                "ns1/pg6": ["n1"],
            },
            ExpectEvicted=["ns1/p7"],
            ExpectEvictNum=1,
        ),
        common(
            Name="case4: Pod is not allocatable when ancestor queue's real capability not enough",
            Plugins=plugins,
            Pods=[p6, p9, p10],
            Nodes=[n1],
            PodGroups=[pg5, pg7, pg8],
            Queues=[root, queue3, queue31, queue32, queue33],
            ExpectBindMap={},
            ExpectBindsNum=0,
        ),
        common(
            Name=(
                "case5: If the capability cpu or memory is not specified, the value should be "
                "inherited from parent queue"
            ),
            Plugins=plugins,
            Pods=[p11],
            Nodes=[n1],
            PodGroups=[pg9],
            Queues=[root, queue5, queue51],
            ExpectBindMap={
                "ns1/p11": "n1",
            },
            ExpectBindsNum=1,
        ),
        common(
            Name=(
                "case6: podgroup can't be enqueued when any ancestor queue's capability is not "
                "enough"
            ),
            Plugins=plugins,
            Nodes=[n1],
            PodGroups=[pg10, pg11],
            Queues=[root, queue6, queue61, queue62],
            ExpectStatus={
                "ns1/pg10": "Inqueue",
                "ns1/pg11": "Pending",
            },
        ),
        common(
            Name=(
                "case7: the sum of sub queue 71 and 72's guarantee exceeds the capacity of "
                "queue7, but should not panic"
            ),
            Plugins=plugins,
            Nodes=[n1],
            Queues=[root, queue7, queue71, queue72],
        ),
        common(
            Name=(
                "case8: When the queue's deserved value has a scalar resource set, the check can "
                "pass"
            ),
            Plugins=plugins,
            Nodes=[gpuNode],
            PodGroups=[pg12],
            Pods=[p12],
            Queues=[root, queue8, queue81, queue82],
            ExpectBindMap={
                "ns1/p12": "n-gpu",
            },
            ExpectBindsNum=1,
        ),
        common(
            Name="case9: When some scalar resources are 0 in deserved, the check can still pass",
            Plugins=plugins,
            Nodes=[n2],
            PodGroups=[pg13],
            Pods=[p13],
            Queues=[root, queue9, queue91],
            ExpectBindMap={
                "ns1/p13": "n2",
            },
            ExpectBindsNum=1,
        ),
        common(
            Name="case10: root queue's capability > cluster total resource, but should not panic",
            Plugins=plugins,
            Nodes=[n1],
            Queues=[root1, queue10],
        ),
        common(
            Name=(
                "case11: If the capability scalar resources is not specified, the value should "
                "be inherited from parent queue"
            ),
            Plugins=plugins,
            Pods=[p14, p15],
            Nodes=[n2],
            PodGroups=[pg14, pg15],
            Queues=[root, case11_queue1, case11_queue11, case11_queue12],
            ExpectBindMap={
                "ns1/p14": "n2",
                "ns1/p15": "n2",
            },
            ExpectBindsNum=2,
        ),
        common(
            Name=(
                "case12: Can reclaim from other queues when allocated <= deserved on a single "
                "scalar dimension"
            ),
            Plugins=plugins,
            Pods=[p16, p17, p18],
            Nodes=[n3],
            PodGroups=[pg16, pg17, pg18],
            Queues=[root2, case12_queue1, case12_queue11, case12_queue12],
            ExpectPipeLined={
                "ns1/pg16": ["n3"],
            },
            ExpectEvicted=["ns1/p17"],
            ExpectEvictNum=1,
        ),
    ]


def _nil_safety() -> list[Case]:
    plugins = ("capacity", "predicates", "gang")
    n1 = build_node("n1", build_resource_list("4", "4Gi", {"Name": "pods", "Value": "10"}), {})
    return [
        common(
            Name="no-panic when root queue is absent (empty ssn.Queues)",
            Plugins=plugins,
            Pods=[],
            Nodes=[n1],
            PodGroups=[],
            Queues=[],
            ExpectBindMap={},
            ExpectBindsNum=0,
        ),
        common(
            Name="no-panic when job references a deleted queue",
            Plugins=plugins,
            Pods=[
                build_pod(
                    "ns1",
                    "orphan",
                    "",
                    "Pending",
                    build_resource_list("1", "1Gi"),
                    "pg-orphan",
                    {},
                    {},
                ),
            ],
            Nodes=[n1],
            PodGroups=[
                build_pod_group("pg-orphan", "ns1", "deleted-queue", 1, None, "Inqueue"),
            ],
            Queues=[build_queue_with_parents("root", "", None, None)],
            ExpectBindMap={},
            ExpectBindsNum=0,
        ),
    ]


def _no_double_counting() -> list[Case]:
    """The second session of the upstream test: pgA's three pods were bound in the first one
    (still Binding: node set, phase Pending); pgB arrives and must be enqueued and placed."""
    plugins = ("capacity",)
    n1 = build_node("n1", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None)
    res1cpu = build_resource_list("1", "1Gi")
    min_res3cpu = build_resource_list("3", "3Gi")
    min_res1cpu = build_resource_list("1", "1Gi")
    pg_a = build_pod_group_with_min_resources("pgA", "ns1", "q1", 3, None, min_res3cpu, "Inqueue")
    bound = [
        build_pod("ns1", f"pA{i}", "n1", "Pending", res1cpu, "pgA", None, None) for i in (1, 2, 3)
    ]
    pg_b = build_pod_group_with_min_resources("pgB", "ns1", "q1", 1, None, min_res1cpu, "Pending")
    p_b1 = build_pod("ns1", "pB1", "", "Pending", res1cpu, "pgB", None, None)
    q1 = build_queue_with_resources_quantity("q1", None, build_resource_list("4", "8Gi"))
    return [
        common(
            Name="TestNoDoubleCountingForInqueueJobWithBindingTasks",
            Plugins=plugins,
            Pods=[*bound, p_b1],
            Nodes=[n1],
            PodGroups=[pg_a, pg_b],
            Queues=[q1],
            ExpectBindMap={"ns1/pB1": "n1"},
            ExpectBindsNum=1,
        )
    ]


def _capacity(*enabled: str) -> dict[str, Any]:
    return plugin_option("capacity", *enabled)


PREDICATES = plugin_option("predicates", "enablePredicate")
GANG = plugin_option("gang", "enableJobStarving")
WITHOUT_HIERARCHY_TIERS = [
    [
        _capacity(
            "enabledAllocatable", "enablePreemptive", "enableReclaimable", "enableQueueOrder"
        ),
        PREDICATES,
        GANG,
    ]
]
ENQUEUE_TIERS = [
    [_capacity("enabledAllocatable", "enablePreemptive", "enabledOverused", "enableJobEnqueued")]
]
HIERARCHY_TIERS = [
    [
        _capacity(
            "enabledAllocatable",
            "enablePreemptive",
            "enableReclaimable",
            "enableQueueOrder",
            "enableHierarchy",
            "enableJobEnqueued",
        ),
        PREDICATES,
        GANG,
    ]
]
NIL_SAFETY_TIERS = [
    [
        _capacity(
            "enabledAllocatable",
            "enableReclaimable",
            "enableQueueOrder",
            "enableHierarchy",
            "enableJobEnqueued",
        ),
        PREDICATES,
        GANG,
    ]
]
DOUBLE_COUNTING_TIERS = [[_capacity("enabledAllocatable", "enabledOverused", "enableJobEnqueued")]]

GAPS: dict[str, str] = {}


@pytest.mark.parametrize("case", rows(_without_hierarchy(), GAPS))
def test_capacity_plugin_on_session_open_without_hierarchy(case: Case) -> None:
    check(case, tiers_conf("allocate, reclaim", filtered(WITHOUT_HIERARCHY_TIERS, case.plugins)))


@pytest.mark.parametrize("case", rows(_enqueue_and_allocatable(), GAPS))
def test_enqueue_and_allocatable(case: Case) -> None:
    check(case, tiers_conf("enqueue, allocate", filtered(ENQUEUE_TIERS, case.plugins)))


@pytest.mark.parametrize("case", rows(_with_hierarchy(), GAPS))
def test_capacity_plugin_on_session_open_with_hierarchy(case: Case) -> None:
    conf = tiers_conf("enqueue, reclaim, allocate", filtered(HIERARCHY_TIERS, case.plugins))
    check(case, conf)


@pytest.mark.parametrize("case", rows(_nil_safety(), GAPS))
def test_build_hierarchical_queue_attrs_nil_safety(case: Case) -> None:
    check(case, tiers_conf("allocate", filtered(NIL_SAFETY_TIERS, case.plugins)))


@pytest.mark.parametrize("case", rows(_no_double_counting(), GAPS))
def test_no_double_counting_for_inqueue_job_with_binding_tasks(case: Case) -> None:
    check(case, tiers_conf("enqueue, allocate", filtered(DOUBLE_COUNTING_TIERS, case.plugins)))


def _r(cpu: str, memory: str, **scalars: str) -> dict[str, str]:
    """``api.BuildResourceList`` with ``ScalarResource``s given as keyword arguments."""
    named = {"a100": "nvidia.com/a100", "rdma": "rdma", "hca": "rdma/hca", "pods": "pods"}
    return build_resource_list(
        cpu, memory, *({"Name": named[k], "Value": v} for k, v in scalars.items())
    )


def _gpu_pod(name: str, node: str, phase: str, group: str, **kw: Any) -> Any:
    """The 1 cpu, 1Gi, 1 a100, 1 rdma/hca pods of cases 1-4 (p1 of case 1 asks 4 a100)."""
    a100 = kw.pop("a100", "1")
    req = _r("1", "1Gi", a100=a100, hca="1")
    if "priority" in kw:
        return build_pod_with_priority(
            "ns1", name, node, phase, req, group, kw.get("labels", {}), {}, kw["priority"]
        )
    return build_pod("ns1", name, node, phase, req, group, kw.get("labels", {}), {})


def _project_tree() -> list[Model]:
    a100 = {"a100": "1"}
    return [
        build_queue_with_parents("root", "", _r("16", "16Gi", a100="4", rdma="1000"), None),
        build_queue_with_parents("project1_root", "root", _r("", "", **a100), _r("", "", a100="2")),
        build_queue_with_parents(
            "project1_non-preemptable", "project1_root", _r("", "", **a100), _r("", "", **a100)
        ),
        build_queue_with_parents("project1_preemptable", "project1_root", None, None),
        build_queue_with_parents(
            "project2_root", "root", _r("", "", a100="3"), _r("", "", a100="4")
        ),
        build_queue_with_parents(
            "project2_non-preemptable", "project2_root", _r("", "", a100="3"), _r("", "", a100="3")
        ),
        build_queue_with_parents("project2_preemptable", "project2_root", None, None),
    ]


def _level_tree() -> list[Model]:
    return [
        build_queue_with_parents("root", "", None, None),
        build_queue_with_parents("grand-a", "root", _r("2", "2Gi"), _r("4", "4Gi")),
        build_queue_with_parents("parent-a", "grand-a", _r("2", "2Gi"), _r("2", "2Gi")),
        build_queue_with_parents("queue-a", "parent-a", _r("2", "2Gi"), _r("2", "2Gi")),
        build_queue_with_parents("grand-b", "root", _r("3", "3Gi"), _r("4", "4Gi")),
        build_queue_with_parents("parent-b", "grand-b", _r("1", "1Gi"), _r("2", "2Gi")),
        build_queue_with_parents("queue-b", "parent-b", _r("1", "1Gi"), _r("2", "2Gi")),
    ]


def _victim_and_reclaimer(
    victim_queue: str, reclaimer_queue: str, victim: dict[str, str], reclaimer: dict[str, str]
) -> list[Model]:
    """Cases 5-11: p-victim running on n1 and p-reclaimer pending, one pod group each."""
    return [
        build_pod_group("pg-victim", "ns1", victim_queue, 1, None, "Running"),
        build_pod_group("pg-reclaimer", "ns1", reclaimer_queue, 1, None, "Inqueue"),
        build_pod("ns1", "p-victim", "n1", "Running", victim, "pg-victim", None, None),
        build_pod("ns1", "p-reclaimer", "", "Pending", reclaimer, "pg-reclaimer", None, None),
    ]


@dataclass
class AncestorScenario:
    case: Case
    level: int
    include_priority: bool


def _ancestor_reclaim_scenarios() -> list[AncestorScenario]:
    big = build_node("n1", _r("16", "16Gi", a100="4", hca="1001", pods="11"), {})
    small = build_node("n1", _r("2", "2Gi", pods="10"), {})
    two = _r("2", "2Gi")
    project = [
        build_pod_group(f"pg{i}", "ns1", "project2_preemptable", 1, None, "Running")
        for i in (1, 2, 3)
    ]
    running = [_gpu_pod(f"p{i}", "n1", "Running", f"pg{i}", priority=2) for i in (1, 2, 3)]

    def scenario(
        name: str,
        level: int,
        objects: list[Model],
        *,
        priority: bool = False,
        evicted: tuple[str, ...] = (),
        pipelined: dict[str, list[str]] | None = None,
    ) -> AncestorScenario:
        case = Case(name, objects, evicted=list(evicted), pipelined=pipelined or {})
        return AncestorScenario(case, level, priority)

    return [
        scenario(
            "case1: Can reclaim based on parent deserved when ancestorReclaimLevel is 1",
            1,
            [
                big,
                build_queue_with_parents("root", "", _r("16", "16Gi", a100="4", rdma="1000"), None),
                build_queue_with_parents("case1_queue1", "root", _r("", "", a100="1"), None),
                build_queue_with_parents("case1_queue11", "case1_queue1", None, None),
                build_queue_with_parents("case1_queue2", "root", None, None),
                build_pod_group("pg1", "ns1", "case1_queue2", 1, None, "Running"),
                build_pod_group("pg2", "ns1", "case1_queue11", 1, None, "Inqueue"),
                _gpu_pod("p1", "n1", "Running", "pg1", a100="4"),
                _gpu_pod("p2", "", "Pending", "pg2"),
            ],
            priority=True,
            evicted=("ns1/p1",),
            pipelined={"ns1/pg2": ["n1"]},
        ),
        scenario(
            "case2: Cross-parent reclaim pipelines project1 pending job when project2 child and"
            " parent are both over deserved",
            1,
            [
                big,
                *_project_tree(),
                *project,
                build_pod_group("pg4", "ns1", "project2_preemptable", 1, None, "Running"),
                build_pod_group("pg5", "ns1", "project1_preemptable", 1, None, "Pending"),
                *running,
                _gpu_pod("p4", "n1", "Running", "pg4", priority=1),
                _gpu_pod("p5", "", "Pending", "pg5"),
            ],
            priority=True,
            evicted=("ns1/p4",),
            pipelined={"ns1/pg5": ["n1"]},
        ),
        scenario(
            "case3: Cross-parent reclaim can evict sibling-queue victim first",
            1,
            [
                big,
                *_project_tree(),
                *project,
                build_pod_group("pg4_reclaimed", "ns1", "project2_preemptable", 1, None, "Inqueue"),
                build_pod_group("pg5_pipelined", "ns1", "project1_preemptable", 1, None, "Running"),
                build_pod_group("pg6", "ns1", "project2_non-preemptable", 1, None, "Pending"),
                *running,
                _gpu_pod("p4", "", "Pending", "pg4_reclaimed"),
                _gpu_pod("p5", "n1", "Running", "pg5_pipelined"),
                _gpu_pod("p6", "", "Pending", "pg6"),
            ],
            priority=True,
            evicted=("ns1/p3",),
            pipelined={"ns1/pg6": ["n1"]},
        ),
        scenario(
            "case4: Cross-parent reclaim is blocked when victim child is not over deserved",
            1,
            [
                build_node("n1", _r("8", "8Gi", a100="1", hca="1001", pods="11"), {}),
                build_queue_with_parents("root", "", _r("16", "16Gi", a100="4", rdma="1000"), None),
                build_queue_with_parents("case4_parent1", "root", _r("", "", a100="1"), None),
                build_queue_with_parents(
                    "case4_child1", "case4_parent1", _r("", "", a100="1"), None
                ),
                build_queue_with_parents("case4_child1_sibling", "case4_parent1", None, None),
                build_queue_with_parents("case4_parent2", "root", _r("", "", a100="1"), None),
                build_queue_with_parents(
                    "case4_child2", "case4_parent2", _r("", "", a100="1"), None
                ),
                build_pod_group("pg1", "ns1", "case4_child1", 1, None, "Running"),
                build_pod_group("pg2", "ns1", "case4_child2", 1, None, "Pending"),
                build_pod_group("pg3", "ns1", "case4_child1_sibling", 1, None, "Running"),
                _gpu_pod("p1", "n1", "Running", "pg1"),
                _gpu_pod("p2", "", "Pending", "pg2"),
                _gpu_pod("p3", "n1", "Running", "pg3", labels={PREEMPTABLE: "false"}),
            ],
            priority=True,
        ),
        scenario(
            "case5: level 0 allows reclaim based on leaf-level deserved checks",
            0,
            [small, *_level_tree(), *_victim_and_reclaimer("queue-b", "queue-a", two, two)],
            evicted=("ns1/p-victim",),
            pipelined={"ns1/pg-reclaimer": ["n1"]},
        ),
        scenario(
            "case6: level 1 allows reclaim when parent-level check passes",
            1,
            [small, *_level_tree(), *_victim_and_reclaimer("queue-b", "queue-a", two, two)],
            evicted=("ns1/p-victim",),
            pipelined={"ns1/pg-reclaimer": ["n1"]},
        ),
        scenario(
            "case7: level 2 blocks reclaim when grandparent-level check fails",
            2,
            [small, *_level_tree(), *_victim_and_reclaimer("queue-b", "queue-a", two, two)],
        ),
        scenario(
            "case8: level 1 blocks sibling reclaim when leaf deserved is unset and no ancestor"
            " gate applies",
            1,
            [
                small,
                build_queue_with_parents("root", "", None, None),
                build_queue_with_parents("parent", "root", _r("4", "4Gi"), _r("4", "4Gi")),
                build_queue_with_parents("queue-a", "parent", None, None),
                build_queue_with_parents("queue-b", "parent", None, None),
                *_victim_and_reclaimer("queue-b", "queue-a", two, two),
            ],
        ),
        scenario(
            "case9: level 2 blocks reclaim when leaf deserved is unset and queues share"
            " grandparent",
            2,
            [
                small,
                build_queue_with_parents("root", "", None, None),
                build_queue_with_parents("grand", "root", _r("2", "2Gi"), _r("2", "2Gi")),
                build_queue_with_parents("parent-a", "grand", None, None),
                build_queue_with_parents("queue-a", "parent-a", None, None),
                build_queue_with_parents("parent-b", "grand", None, None),
                build_queue_with_parents("queue-b", "parent-b", None, None),
                *_victim_and_reclaimer("queue-b", "queue-a", two, two),
            ],
        ),
        scenario(
            "case10: level 2 blocks reclaim in unbalanced shared-grandparent tree when leaf"
            " deserved is unset",
            2,
            [
                small,
                build_queue_with_parents("root", "", None, None),
                build_queue_with_parents("grand", "root", _r("1", "1Gi"), _r("2", "2Gi")),
                build_queue_with_parents("parent-deep", "grand", _r("1", "1Gi"), _r("2", "2Gi")),
                build_queue_with_parents("queue-deep", "parent-deep", None, None),
                build_queue_with_parents("queue-shallow", "grand", None, None),
                *_victim_and_reclaimer("queue-deep", "queue-shallow", two, two),
            ],
        ),
        scenario(
            "case11: unbalanced level2 blocks reclaim when depth-2 ancestor is not over deserved",
            2,
            [
                build_node("n1", _r("4", "4Gi", pods="10", a100="2"), {}),
                build_queue_with_parents("root", "", None, None),
                build_queue_with_parents("shallow-parent", "root", _r("", "", a100="1"), None),
                build_queue_with_parents(
                    "queue-shallow", "shallow-parent", _r("", "", a100="1"), None
                ),
                build_queue_with_parents("deep-grand", "root", _r("", "", a100="2"), None),
                build_queue_with_parents("deep-parent", "deep-grand", _r("", "", a100="1"), None),
                build_queue_with_parents("queue-deep", "deep-parent", _r("", "", a100="1"), None),
                *_victim_and_reclaimer(
                    "queue-deep",
                    "queue-shallow",
                    _r("1", "1Gi", a100="2"),
                    _r("1", "1Gi", a100="1"),
                ),
            ],
        ),
    ]


def _ancestor_tiers(level: int, include_priority: bool) -> list[list[dict[str, Any]]]:
    capacity = plugin_option(
        "capacity",
        "enabledAllocatable",
        "enablePreemptive",
        "enableReclaimable",
        "enableQueueOrder",
        "enableHierarchy",
        "enableJobEnqueued",
        arguments={"ancestorReclaimLevel": level},
    )
    tier = [capacity, PREDICATES, GANG]
    if include_priority:
        tier.append(plugin_option("priority", "enableJobOrder", "enableTaskOrder"))
    return [tier]


@pytest.mark.parametrize("scenario", _ancestor_reclaim_scenarios(), ids=lambda s: s.case.name)
def test_capacity_plugin_ancestor_reclaim_scenarios(scenario: AncestorScenario) -> None:
    tiers = _ancestor_tiers(scenario.level, scenario.include_priority)
    check(scenario.case, tiers_conf("enqueue, reclaim, allocate", tiers))
