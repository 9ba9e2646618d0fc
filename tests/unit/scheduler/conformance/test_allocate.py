"""Volcano ``pkg/scheduler/actions/allocate/allocate_test.go``: ``TestAllocate``,
``TestFareShareAllocate`` and the HyperNode tests ``TestAllocateWithNetWorkTopologies``,
``TestNodeLevelScoreWithNetWorkTopologies`` and ``TestHyperNodeBinpackWithNetWorkTopologies``
(their rows are in ``allocate_network_topology_rows.py``), one row per upstream case, same
objects, same tiers.

``TestAllocateWithPartitionPolicyNetworkTopology`` (``subGroupPolicy`` sub-jobs) has its rows
in ``allocate_sub_group_rows.py``.

Not expressible (listed in docs/compatibility.md): the nomination tests
(``NominatedHyperNode``, set by gangpreempt/gangreclaim upstream), ``TestAllocateWithPVC``
(volume binding), ``TestAllocateWithDRA`` (DRA claims), ``TestParseArgs`` and the worksheet
tests (internal structures).
"""

from __future__ import annotations

import pytest

from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.allocate_network_topology_rows import (
    HYPERNODE_BINPACK_CASES,
    NETWORK_TOPOLOGY_CASES,
    NODE_LEVEL_SCORE_CASES,
)
from tests.unit.scheduler.conformance.allocate_sub_group_rows import SUBGROUP_CASES
from tests.unit.scheduler.conformance.upstream import (
    Case,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
    check,
)

ALLOCATE_CASES = [
    Case(
        "prepredicate failed: node selector does not match",
        objects=[
            build_queue("c1", 1, None),
            build_node(
                "n1",
                build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "worker"},
            ),
            build_pod_group("pg1", "c1", "c1", 1, None, "Inqueue"),
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                {"nodeRole": "worker"},
            ),
        ],
        binds={"c1/p2": "n1"},
    ),
    Case(
        "prepredicate failed and tasks are not used up, continue on until min member meet",
        objects=[
            build_queue("c1", 1, None),
            build_node(
                "n1",
                build_resource_list("1", "2Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "master"},
            ),
            build_node(
                "n2",
                build_resource_list("1", "2Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "worker"},
            ),
            build_pod_group("pg1", "c1", "c1", 2, {"master": 1, "worker": 1}, "Inqueue"),
            build_pod(
                "c1",
                "p0",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            ),
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                {"nodeRole": "worker"},
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                {"nodeRole": "worker"},
            ),
        ],
        binds={"c1/p0": "n1", "c1/p2": "n2"},
    ),
    Case(
        "master's min member can not be allocated, break from allocating",
        objects=[
            build_queue("c1", 1, None),
            build_node(
                "n1",
                build_resource_list("1", "2Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "master"},
            ),
            build_node(
                "n2",
                build_resource_list("2", "2Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "worker"},
            ),
            build_pod_group("pg1", "c1", "c1", 2, {"master": 2, "worker": 0}, "Inqueue"),
            build_pod(
                "c1",
                "p0",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            ),
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                {"nodeRole": "worker"},
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                {"nodeRole": "worker"},
            ),
        ],
        binds={},
    ),
    Case(
        "one Job with two Pods on one node",
        objects=[
            build_queue("c1", 1, None),
            build_node("n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "c1", 0, None, "Inqueue"),
            build_pod("c1", "p1", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}),
            build_pod("c1", "p2", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}),
        ],
        binds={"c1/p1": "n1", "c1/p2": "n1"},
    ),
    Case(
        "two Jobs on one node",
        objects=[
            build_queue("c1", 1, None),
            build_queue("c2", 1, None),
            build_node("n1", build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "c1", 0, None, "Inqueue"),
            build_pod_group("pg2", "c2", "c2", 0, None, "Inqueue"),
            build_pod(
                "c1", "pg1-p-1", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "pg1-p-2", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c2", "pg2-p-1", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
            build_pod(
                "c2", "pg2-p-2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
        binds={"c2/pg2-p-1": "n1", "c1/pg1-p-1": "n1"},
    ),
    Case(
        "high priority queue should not block others",
        objects=[
            build_queue("c1", 1, None),
            build_queue("c2", 1, None),
            build_node("n1", build_resource_list("2", "4G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "c1", 0, None, "Inqueue"),
            build_pod_group("pg2", "c1", "c2", 0, None, "Inqueue"),
            build_pod("c1", "p1", "", "Pending", build_resource_list("3", "1G"), "pg1", {}, {}),
            build_pod("c1", "p2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}),
        ],
        binds={"c1/p2": "n1"},
    ),
]

FAIR_SHARE_CASES = [
    Case(
        "queue with low DRF share value has high priority, should allocate first",
        objects=[
            build_queue("q-1", 1, None),
            build_queue("q-2", 1, None),
            build_node(
                "node-1", build_resource_list("5", "5G", {"Name": "pods", "Value": "10"}), {}
            ),
            build_pod_group("pg-small-1", "ns-1", "q-1", 0, None, "Running"),
            build_pod_group("pg-large-1", "ns-1", "q-1", 0, None, "Inqueue"),
            build_pod_group("pg-large-2", "ns-1", "q-2", 0, None, "Inqueue"),
            build_pod(
                "ns-1",
                "pod-small-1",
                "node-1",
                "Running",
                build_resource_list("1", "1G"),
                "pg-small-1",
                {},
                {},
            ),
            build_pod(
                "ns-1",
                "pod-large-1",
                "",
                "Pending",
                build_resource_list("2", "2G"),
                "pg-large-1",
                {},
                {},
            ),
            build_pod(
                "ns-1",
                "pod-large-2",
                "",
                "Pending",
                build_resource_list("3", "2G"),
                "pg-large-2",
                {},
                {},
            ),
        ],
        binds={"ns-1/pod-large-2": "node-1"},
    ),
    Case(
        "queue's DRF share value will be updated and its priority will change before it is put back into the priority queue",  # noqa: E501
        objects=[
            build_queue("q-1", 1, None),
            build_queue("q-2", 1, None),
            build_node(
                "node-1", build_resource_list("5", "5G", {"Name": "pods", "Value": "10"}), {}
            ),
            build_pod_group("pg-small-1", "ns-1", "q-1", 0, None, "Running"),
            build_pod_group("pg-large-1", "ns-1", "q-1", 0, None, "Inqueue"),
            build_pod_group("pg-small-2", "ns-1", "q-2", 0, None, "Inqueue"),
            build_pod_group("pg-large-2", "ns-1", "q-2", 0, None, "Inqueue"),
            build_pod(
                "ns-1",
                "pod-small-1",
                "node-1",
                "Running",
                build_resource_list("1", "1G"),
                "pg-small-1",
                {},
                {},
            ),
            build_pod(
                "ns-1",
                "pod-large-1",
                "",
                "Pending",
                build_resource_list("2", "2G"),
                "pg-large-1",
                {},
                {},
            ),
            build_pod(
                "ns-1",
                "pod-large-2",
                "",
                "Pending",
                build_resource_list("2", "2G"),
                "pg-large-2",
                {},
                {},
            ),
            build_pod(
                "ns-1",
                "pod-small-2",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg-small-2",
                {},
                {},
            ),
        ],
        binds={"ns-1/pod-large-1": "node-1", "ns-1/pod-large-2": "node-1"},
    ),
    Case(
        "queue's one jobs has no pending tasks, should be put back to queues for next job",
        objects=[
            build_queue("q-1", 1, None),
            build_node(
                "node-1", build_resource_list("5", "5G", {"Name": "pods", "Value": "10"}), {}
            ),
            build_pod_group("pg-1", "ns-1", "q-1", 0, None, "Running"),
            build_pod_group("pg-2", "ns-1", "q-1", 0, None, "Inqueue"),
            build_pod(
                "ns-1",
                "pod-1",
                "node-1",
                "Running",
                build_resource_list("1", "1G"),
                "pg-1",
                None,
                None,
            ),
            build_pod(
                "ns-1", "pod-2", "", "Pending", build_resource_list("2", "2G"), "pg-2", None, None
            ),
        ],
        binds={"ns-1/pod-2": "node-1"},
    ),
]

ALLOCATE_TIERS = [
    [
        plugin_option(
            "gang", "enableJobOrder", "enableJobReady", "enableJobPipelined", "enableJobStarving"
        ),
        plugin_option("drf", "enablePreemptable", "enableJobOrder"),
        plugin_option("proportion", "enableQueueOrder", "enableReclaimable", "enabledAllocatable"),
        plugin_option("predicates", "enablePredicate"),
        plugin_option("nodeorder", "enableNodeOrder"),
    ]
]
FAIR_SHARE_TIERS = [
    [
        plugin_option("drf", "enablePreemptable", "enableJobOrder"),
        plugin_option("proportion", "enableQueueOrder", "enableReclaimable"),
        plugin_option("predicates", "enablePredicate"),
        plugin_option("nodeorder", "enableNodeOrder"),
    ]
]


@pytest.mark.parametrize("case", ALLOCATE_CASES, ids=lambda c: c.name)
def test_allocate(case: Case) -> None:
    check(case, tiers_conf("allocate", ALLOCATE_TIERS))


@pytest.mark.parametrize("case", FAIR_SHARE_CASES, ids=lambda c: c.name)
def test_fare_share_allocate(case: Case) -> None:
    check(case, tiers_conf("allocate", FAIR_SHARE_TIERS))


_GANG = plugin_option(
    "gang", "enableJobOrder", "enableJobReady", "enableJobPipelined", "enableJobStarving"
)
_NETWORK_TOPOLOGY = plugin_option(
    "network-topology-aware",
    "enableNodeOrder",
    "enabledHyperNodeOrder",
    "enabledHyperNodeGradient",
)
NETWORK_TOPOLOGY_TIERS = [
    [_GANG, plugin_option("predicates", "enablePredicate"), _NETWORK_TOPOLOGY]
]
NODE_LEVEL_SCORE_TIERS = [
    [
        _GANG,
        plugin_option("predicates", "enablePredicate"),
        plugin_option("binpack", "enableNodeOrder"),
        _NETWORK_TOPOLOGY,
    ]
]


@pytest.mark.parametrize("case", NETWORK_TOPOLOGY_CASES, ids=lambda c: c.name)
def test_allocate_with_network_topologies(case: Case) -> None:
    check(case, tiers_conf("allocate", NETWORK_TOPOLOGY_TIERS))


@pytest.mark.parametrize("case", NODE_LEVEL_SCORE_CASES, ids=lambda c: c.name)
def test_node_level_score_with_network_topologies(case: Case) -> None:
    check(case, tiers_conf("allocate", NODE_LEVEL_SCORE_TIERS))


@pytest.mark.parametrize("case", HYPERNODE_BINPACK_CASES, ids=lambda c: c.name)
def test_hyper_node_binpack_with_network_topologies(case: Case) -> None:
    check(case, tiers_conf("allocate", NETWORK_TOPOLOGY_TIERS))


SUBGROUP_TIERS = [
    [
        plugin_option(
            "gang",
            "enableJobOrder",
            "enableJobReady",
            "enableJobPipelined",
            "enableJobStarving",
            "enabledSubJobReady",
            "enabledSubJobOrder",
        ),
        plugin_option("predicates", "enablePredicate"),
        _NETWORK_TOPOLOGY,
    ]
]


@pytest.mark.parametrize("case", SUBGROUP_CASES, ids=lambda c: c.name)
def test_allocate_with_partition_policy_network_topology(case: Case) -> None:
    check(case, tiers_conf("allocate", SUBGROUP_TIERS))
