"""The rows of Volcano
``pkg/scheduler/plugins/network-topology-aware/network_topology_aware_test.go``
(``TestNetworkTopologyAwareNodeScore_Hard``, ``_Soft``, ``TestBatchNodeOrderFn``,
``TestHyperNodeOrderFn``), one ``plugin_row(...)`` per upstream case with upstream's objects,
arguments and expected scores, translated mechanically from the Go literals; run by
``test_network_topology_aware.py``. (``tasks`` is a field upstream's table fills and its test
never reads.)
"""

from __future__ import annotations

from services.scheduler.api.hypernodes import TOP
from tests.unit.scheduler.conformance.upstream import (
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_group_with_network_topologies,
    build_pod_group_with_sub_group_policy,
    build_queue,
    build_resource_list,
    build_sub_group_policy,
    common,
    member_config,
    plugin_row,
)

# TestNetworkTopologyAwareNodeScore_Hard
NODE_SCORE_HARD_ROWS = [
    plugin_row(
        name="Tasks in job first scheduler, score all nodes zero",
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "", "q1", 1, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p4",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                )
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        expected={"s3-n1": 0.0, "s4-n1": 0.0, "s5-n1": 0.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score zero when the hyperNode of node has empty LCA hyperNode with jobAllocatedHyperNode",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s3", "q1", 1, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node("s0", 3, [member_config("s1", "HyperNode", "exact")]),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s5-n1", "s6-n1"],
        expected={"s5-n1": 0.0, "s6-n1": 0.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score nodes according to node hypernode LCA hyperNode tier",
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s3", "q1", 1, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        expected={"s3-n1": 100.0, "s4-n1": 66.6, "s5-n1": 33.3},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier of the hyperNode and jobAllocatedHyperNode when hyperNodesInfo has two tier",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s1", "q1", 1, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s1-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s1-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s1-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={1: {"s1", "s2"}, 2: {"s0"}},
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    2,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    1,
                    [
                        member_config("s1-n1", "Node", "exact"),
                        member_config("s1-n2", "Node", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    1,
                    [
                        member_config("s2-n1", "Node", "exact"),
                        member_config("s2-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {"s1-n1", "s1-n2", "s2-n1", "s2-n2"},
                "s1": {"s1-n1", "s1-n2"},
                "s2": {"s2-n1", "s2-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s1-n1", "s2-n1"],
        expected={"s1-n1": 100.0, "s2-n1": 50.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier of the hyperNode and jobAllocatedHyperNode when hyperNodesInfo has one tier",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s1", "q1", 1, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s1-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s1-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s1-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={1: {"s1", "s2"}},
            HyperNodesMap={
                "s1": build_hyper_node(
                    "s1",
                    1,
                    [
                        member_config("s1-n1", "Node", "exact"),
                        member_config("s1-n2", "Node", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    1,
                    [
                        member_config("s2-n1", "Node", "exact"),
                        member_config("s2-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={"s1": {"s1-n1", "s1-n2"}, "s2": {"s2-n1", "s2-n2"}},
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s1-n1", "s2-n1"],
        expected={"s1-n1": 100.0, "s2-n1": 0.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier of the hyperNode and jobAllocatedHyperNode with plugin weight 2",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s3", "q1", 1, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 2},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        expected={"s3-n1": 200.0, "s4-n1": 133.3, "s5-n1": 66.6},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier and task num of the hyperNode when there are at least two hyperNodes have max hyperNode tier score",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s1", "q1", 3, None, "Inqueue", "hard", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "s4-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p4",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        tasks={"task1": "s3-n1", "task2": "s3-n2", "task3": "s4-n1", "test4": ""},
        expected={"s3-n1": 116.6, "s4-n1": 91.6, "s5-n1": 33.3},
    ),
]

# TestNetworkTopologyAwareNodeScore_Soft
NODE_SCORE_SOFT_ROWS = [
    plugin_row(
        name="Tasks in job first scheduler, score all nodes zero",
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "", "q1", 1, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p4",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                )
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        expected={"s3-n1": 0.0, "s4-n1": 0.0, "s5-n1": 0.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score zero when the hyperNode of node has empty LCA hyperNode with jobAllocatedHyperNode",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s3", "q1", 1, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node("s0", 3, [member_config("s1", "HyperNode", "exact")]),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s5-n1", "s6-n1"],
        expected={"s5-n1": 0.0, "s6-n1": 0.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score nodes according to node hypernode LCA hyperNode tier",
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s3", "q1", 1, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        expected={"s3-n1": 100.0, "s4-n1": 66.6, "s5-n1": 33.3},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier of the hyperNode and jobAllocatedHyperNode when hyperNodesInfo has two tier",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s1", "q1", 1, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s1-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s1-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s1-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={1: {"s1", "s2"}, 2: {"s0"}},
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    2,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    1,
                    [
                        member_config("s1-n1", "Node", "exact"),
                        member_config("s1-n2", "Node", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    1,
                    [
                        member_config("s2-n1", "Node", "exact"),
                        member_config("s2-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {"s1-n1", "s1-n2", "s2-n1", "s2-n2"},
                "s1": {"s1-n1", "s1-n2"},
                "s2": {"s2-n1", "s2-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s1-n1", "s2-n1"],
        expected={"s1-n1": 100.0, "s2-n1": 50.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier of the hyperNode and jobAllocatedHyperNode when hyperNodesInfo has one tier",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s1", "q1", 1, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s1-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s1-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s1-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s2-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={1: {"s1", "s2"}},
            HyperNodesMap={
                "s1": build_hyper_node(
                    "s1",
                    1,
                    [
                        member_config("s1-n1", "Node", "exact"),
                        member_config("s1-n2", "Node", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    1,
                    [
                        member_config("s2-n1", "Node", "exact"),
                        member_config("s2-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={"s1": {"s1-n1", "s1-n2"}, "s2": {"s2-n1", "s2-n2"}},
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s1-n1", "s2-n1"],
        expected={"s1-n1": 100.0, "s2-n1": 0.0},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier of the hyperNode and jobAllocatedHyperNode with plugin weight 2",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s3", "q1", 1, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 2},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        expected={"s3-n1": 200.0, "s4-n1": 133.3, "s5-n1": 66.6},
    ),
    plugin_row(
        name="Tasks in job rescheduled, score hyperNodes according to node LCA hyperNode tier and task num of the hyperNode when there are at least two hyperNodes have max hyperNode tier score",  # noqa: E501
        TestCommonStruct=common(
            PodGroups=[
                build_pod_group_with_network_topologies(
                    "pg1", "c1", "s1", "q1", 3, None, "Inqueue", "soft", 0
                )
            ],
            Pods=[
                build_pod(
                    "c1",
                    "p1",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "master"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p2",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p3",
                    "s4-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "c1",
                    "p4",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"weight": 1},
        scoreNodes=["s3-n1", "s4-n1", "s5-n1"],
        tasks={"task1": "s3-n1", "task2": "s3-n2", "task3": "s4-n1", "test4": ""},
        expected={"s3-n1": 116.6, "s4-n1": 91.6, "s5-n1": 33.3},
    ),
]

# TestBatchNodeOrderFn
BATCH_NODE_ORDER_ROWS = [
    plugin_row(
        name="score empty nodes for single task with no network topology and no hypernode-level binpacking",  # noqa: E501
        testCommonStruct=common(
            PodGroups=[build_pod_group("pg1", "ns1", "q1", 1, None, "Inqueue")],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    None,
                    None,
                )
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={"hypernode.binpack.normal-pod.enable": False},
        expectedScores={},
        expectErr=False,
    ),
    plugin_row(
        name="score empty nodes for single task with no network topology and default plugin arguments",  # noqa: E501
        testCommonStruct=common(
            PodGroups=[build_pod_group("pg1", "ns1", "q1", 1, None, "Inqueue")],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    None,
                    None,
                )
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={},
        expectedScores={
            "s3-n1": 25.8,
            "s3-n2": 25.8,
            "s4-n1": 21.6,
            "s4-n2": 21.6,
            "s5-n1": 19.9,
            "s5-n2": 19.9,
            "s6-n1": 15.7,
            "s6-n2": 15.7,
        },
        expectErr=False,
    ),
    plugin_row(
        name="score empty nodes for single task with no network topology and customized plugin arguments",  # noqa: E501
        testCommonStruct=common(
            PodGroups=[build_pod_group("pg1", "ns1", "q1", 1, None, "Inqueue")],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("2", "4G", {"Name": "example.com/foo", "Value": "8"}),
                    "pg1",
                    None,
                    None,
                )
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list(
                        "2",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list(
                        "2",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list(
                        "4",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list(
                        "4",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list(
                        "2",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list(
                        "2",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list(
                        "4",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list(
                        "4",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={
            "weight": 10,
            "hypernode.binpack.cpu": 1,
            "hypernode.binpack.memory": 4,
            "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
            "hypernode.binpack.resources.nvidia.com/gpu": 2,
            "hypernode.binpack.resources.example.com/foo": 3,
            "hypernode.binpack.normal-pod.enable": True,
            "hypernode.binpack.normal-pod.fading": 0,
        },
        expectedScores={
            "s3-n1": 500.0,
            "s3-n2": 500.0,
            "s4-n1": 468.75,
            "s4-n2": 468.75,
            "s5-n1": 281.3,
            "s5-n2": 281.3,
            "s6-n1": 250.0,
            "s6-n2": 250.0,
        },
        expectErr=False,
    ),
    plugin_row(
        name="score non-empty nodes for single task with no network topology and customized plugin arguments",  # noqa: E501
        testCommonStruct=common(
            PodGroups=[build_pod_group("pg1", "ns1", "q1", 1, None, "Inqueue")],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("2", "4G", {"Name": "example.com/foo", "Value": "8"}),
                    "pg1",
                    None,
                    None,
                ),
                build_pod(
                    "ns1",
                    "p2",
                    "s3-n1",
                    "Running",
                    build_resource_list("2", "4G", {"Name": "example.com/foo", "Value": "8"}),
                    "pg1",
                    None,
                    None,
                ),
                build_pod(
                    "ns1",
                    "p3",
                    "s3-n2",
                    "Running",
                    build_resource_list("2", "4G", {"Name": "example.com/foo", "Value": "8"}),
                    "pg1",
                    None,
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list(
                        "2",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list(
                        "2",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list(
                        "4",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list(
                        "4",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list(
                        "2",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list(
                        "2",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list(
                        "4",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list(
                        "4",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={
            "weight": 10,
            "hypernode.binpack.cpu": 1,
            "hypernode.binpack.memory": 4,
            "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
            "hypernode.binpack.resources.nvidia.com/gpu": 2,
            "hypernode.binpack.resources.example.com/foo": 3,
            "hypernode.binpack.normal-pod.enable": True,
            "hypernode.binpack.normal-pod.fading": 0,
        },
        expectedScores={
            "s3-n1": 0.0,
            "s3-n2": 0.0,
            "s4-n1": 468.8,
            "s4-n2": 468.8,
            "s5-n1": 281.3,
            "s5-n2": 281.3,
            "s6-n1": 250.0,
            "s6-n2": 250.0,
        },
        expectErr=False,
    ),
    plugin_row(
        name="score nodes for tasks with network topology",
        testCommonStruct=common(
            PodGroups=[
                build_pod_group_with_sub_group_policy(
                    "pg1",
                    "ns1",
                    "s1",
                    "q1",
                    2,
                    None,
                    "Inqueue",
                    "hard",
                    2,
                    [build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 2)],
                )
            ],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "ns1",
                    "p2",
                    "s4-n1",
                    "Running",
                    build_resource_list("2", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={},
        expectedScores={
            "s3-n1": 66.7,
            "s3-n2": 66.7,
            "s4-n1": 116.7,
            "s4-n2": 116.7,
            "s5-n1": 33.3,
            "s5-n2": 33.3,
            "s6-n1": 33.3,
            "s6-n2": 33.3,
        },
        expectErr=False,
    ),
]

# TestHyperNodeOrderFn
HYPER_NODE_ORDER_ROWS = [
    plugin_row(
        name="score hypernodes for a subjob with default plugin arguments",
        testCommonStruct=common(
            PodGroups=[
                build_pod_group_with_sub_group_policy(
                    "pg1",
                    "ns1",
                    "",
                    "q1",
                    2,
                    None,
                    "Inqueue",
                    "hard",
                    2,
                    [build_sub_group_policy("task1", ["volcano.sh/task-spec"], "", 0)],
                )
            ],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("4", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "ns1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("4", "4G"),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list("2", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list("4", "8G", {"Name": "pods", "Value": "10"}),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={},
        expectedScores={
            "s0": 25.0,
            "s1": 58.3,
            "s2": 45.8,
            "s3": 0.0,
            "s4": 100.0,
            "s5": 0.0,
            "s6": 75.0,
            TOP: 25.0,
        },
        expectErr=False,
    ),
    plugin_row(
        name="score hypernodes for a subjob with customized plugin arguments",
        testCommonStruct=common(
            PodGroups=[
                build_pod_group_with_sub_group_policy(
                    "pg1",
                    "ns1",
                    "",
                    "q1",
                    2,
                    None,
                    "Inqueue",
                    "hard",
                    2,
                    [build_sub_group_policy("task1", ["volcano.sh/task-spec"], "", 0)],
                )
            ],
            Pods=[
                build_pod(
                    "ns1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("4", "4G", {"Name": "example.com/foo", "Value": "8"}),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
                build_pod(
                    "ns1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("4", "4G", {"Name": "example.com/foo", "Value": "8"}),
                    "pg1",
                    {"volcano.sh/task-spec": "worker"},
                    None,
                ),
            ],
            Nodes=[
                build_node(
                    "s3-n1",
                    build_resource_list(
                        "2",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s3-n2",
                    build_resource_list(
                        "2",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "0"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s4-n1",
                    build_resource_list(
                        "4",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "8"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s4-n2",
                    build_resource_list(
                        "4",
                        "4G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "0"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s5-n1",
                    build_resource_list(
                        "2",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s5-n2",
                    build_resource_list(
                        "2",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "0"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s6-n1",
                    build_resource_list(
                        "4",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "16"},
                        ],
                    ),
                    None,
                ),
                build_node(
                    "s6-n2",
                    build_resource_list(
                        "4",
                        "8G",
                        *[
                            {"Name": "pods", "Value": "10"},
                            {"Name": "example.com/foo", "Value": "0"},
                        ],
                    ),
                    None,
                ),
            ],
            HyperNodesSetByTier={
                1: {"s3", "s4", "s5", "s6"},
                2: {"s1", "s2"},
                3: {"s0"},
            },
            HyperNodesMap={
                "s0": build_hyper_node(
                    "s0",
                    3,
                    [
                        member_config("s1", "HyperNode", "exact"),
                        member_config("s2", "HyperNode", "exact"),
                    ],
                ),
                "s1": build_hyper_node(
                    "s1",
                    2,
                    [
                        member_config("s3", "HyperNode", "exact"),
                        member_config("s4", "HyperNode", "exact"),
                    ],
                ),
                "s2": build_hyper_node(
                    "s2",
                    2,
                    [
                        member_config("s5", "HyperNode", "exact"),
                        member_config("s6", "HyperNode", "exact"),
                    ],
                ),
                "s3": build_hyper_node(
                    "s3",
                    1,
                    [
                        member_config("s3-n1", "Node", "exact"),
                        member_config("s3-n2", "Node", "exact"),
                    ],
                ),
                "s4": build_hyper_node(
                    "s4",
                    1,
                    [
                        member_config("s4-n1", "Node", "exact"),
                        member_config("s4-n2", "Node", "exact"),
                    ],
                ),
                "s5": build_hyper_node(
                    "s5",
                    1,
                    [
                        member_config("s5-n1", "Node", "exact"),
                        member_config("s5-n2", "Node", "exact"),
                    ],
                ),
                "s6": build_hyper_node(
                    "s6",
                    1,
                    [
                        member_config("s6-n1", "Node", "exact"),
                        member_config("s6-n2", "Node", "exact"),
                    ],
                ),
            },
            HyperNodes={
                "s0": {
                    "s3-n1",
                    "s3-n2",
                    "s4-n1",
                    "s4-n2",
                    "s5-n1",
                    "s5-n2",
                    "s6-n1",
                    "s6-n2",
                },
                "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
                "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
                "s3": {"s3-n1", "s3-n2"},
                "s4": {"s4-n1", "s4-n2"},
                "s5": {"s5-n1", "s5-n2"},
                "s6": {"s6-n1", "s6-n2"},
            },
            Queues=[build_queue("q1", 1, None)],
        ),
        arguments={
            "weight": 10,
            "hypernode.binpack.cpu": 3,
            "hypernode.binpack.memory": 4,
            "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
            "hypernode.binpack.resources.nvidia.com/gpu": 2,
            "hypernode.binpack.resources.example.com/foo": 3,
            "hypernode.binpack.normal-pod.enable": True,
            "hypernode.binpack.normal-pod.fading": 0,
        },
        expectedScores={
            "s0": 266.7,
            "s1": 700.0,
            "s2": 450.0,
            "s3": 0.0,
            "s4": 0.0,
            "s5": 0.0,
            "s6": 800.0,
            TOP: 266.7,
        },
        expectErr=False,
    ),
]
