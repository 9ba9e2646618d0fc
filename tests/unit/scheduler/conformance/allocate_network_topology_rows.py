"""The HyperNode rows of Volcano ``pkg/scheduler/actions/allocate/allocate_test.go``
(``TestAllocateWithNetWorkTopologies``, ``TestNodeLevelScoreWithNetWorkTopologies``,
``TestHyperNodeBinpackWithNetWorkTopologies``), one ``common(...)`` per upstream case with
upstream's objects and expectations, translated mechanically from the Go literals; run by
``test_allocate.py``.

Upstream's harness takes the HyperNodes, their tiers and their real nodes as three tables; a
row here gives the same three, and ``common`` checks they agree with the objects (a row with
only the tier and node tables becomes HyperNodes whose members are those nodes). Five
highestTierName rows build map key "s0" from a HyperNode named "s1"; the key is its name here.
"""

from __future__ import annotations

from tests.unit.scheduler.conformance.upstream import (
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group_using_network_topologies_with_tier_name,
    build_pod_group_with_network_topologies,
    build_queue,
    build_resource_list,
    common,
    member_config,
)

# TestAllocateWithNetWorkTopologies
NETWORK_TOPOLOGY_CASES = [
    common(
        Name="soft network topology constrain, can allocate job when resources are enough",
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 3, None, "Inqueue", "soft", 0
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={0: {"s0", "s1"}, 1: {"s2"}},
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        MinimalBindCheck=True,
        ExpectBindsNum=3,
    ),
    common(
        Name="soft network topology constrain, can allocate job when minavailable < replicas",
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 1, None, "Inqueue", "soft", 0
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="soft network topology constrain, two available hyperNodes, can allocate job to nodes with affinity",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 1, None, "Inqueue", "soft", 0
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            )
        ],
        Nodes=[
            build_node(
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n2",
                build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "master"},
            ),
        ],
        HyperNodesSetByTier={0: {"s0", "s1"}},
        HyperNodes={"s0": {"s0-n1"}, "s1": {"s1-n2"}},
        Queues=[build_queue("q1", 1, None)],
        ExpectBindMap={"c1/p1": "s1-n2"},
        ExpectBindsNum=1,
    ),
    common(
        Name="soft network topology constrain and tasks in job rescheduled, can allocate job when resources are enough",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "soft", 0
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="soft network topology constrain and tasks in job rescheduled, can allocate job when resources are enough and minavailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s0", "q1", 3, None, "Inqueue", "soft", 0
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="soft network topology constrain and tasks in job rescheduled, can allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s3", "q1", 2, None, "Inqueue", "soft", 0
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
                "s3-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s3-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s3", "s4", "s5", "s6"}, 2: {"s1", "s2"}, 3: {"s0"}},
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
                [member_config("s3-n1", "Node", "exact"), member_config("s3-n2", "Node", "exact")],
            ),
            "s4": build_hyper_node(
                "s4",
                1,
                [member_config("s4-n1", "Node", "exact"), member_config("s4-n2", "Node", "exact")],
            ),
            "s5": build_hyper_node(
                "s5",
                1,
                [member_config("s5-n1", "Node", "exact"), member_config("s5-n2", "Node", "exact")],
            ),
            "s6": build_hyper_node(
                "s6",
                1,
                [member_config("s6-n1", "Node", "exact"), member_config("s6-n2", "Node", "exact")],
            ),
        },
        HyperNodes={
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can not allocate job when cross highestTierAllowed tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 3, None, "Inqueue", "hard", 1
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can allocate job when highestTierAllowed not reached",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 3, None, "Inqueue", "hard", 2
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=3,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can allocate job when multi hyperNodes are available",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 2, None, "Inqueue", "hard", 1
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can allocate job when minavailable < replicas",
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 1, None, "Inqueue", "hard", 1
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, two available hyperNodes, can allocate job to nodes with affinity",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 1, None, "Inqueue", "hard", 1
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                {"nodeRole": "master"},
            )
        ],
        Nodes=[
            build_node(
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n2",
                build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}),
                {"nodeRole": "master"},
            ),
        ],
        HyperNodesSetByTier={0: {"s0", "s1"}},
        HyperNodes={"s0": {"s0-n1"}, "s1": {"s1-n2"}},
        Queues=[build_queue("q1", 1, None)],
        ExpectBindMap={"c1/p1": "s1-n2"},
        ExpectBindsNum=1,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can allocate job when highestTierAllowed not reached",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "hard", 2
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can allocate job when highestTierAllowed not reached and minavailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s0", "q1", 3, None, "Inqueue", "hard", 2
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can allocate job when highestTierAllowed not reached and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s3", "q1", 2, None, "Inqueue", "hard", 2
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
                "s3-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s3-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s3", "s4", "s5", "s6"}, 2: {"s1", "s2"}, 3: {"s0"}},
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
                [member_config("s3-n1", "Node", "exact"), member_config("s3-n2", "Node", "exact")],
            ),
            "s4": build_hyper_node(
                "s4",
                1,
                [member_config("s4-n1", "Node", "exact"), member_config("s4-n2", "Node", "exact")],
            ),
            "s5": build_hyper_node(
                "s5",
                1,
                [member_config("s5-n1", "Node", "exact"), member_config("s5-n2", "Node", "exact")],
            ),
            "s6": build_hyper_node(
                "s6",
                1,
                [member_config("s6-n1", "Node", "exact"), member_config("s6-n2", "Node", "exact")],
            ),
        },
        HyperNodes={
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can not allocate job when cross highestTierAllowed tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "hard", 1
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can not allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s3", "q1", 2, None, "Inqueue", "hard", 1
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
                "s3-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s3-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s3", "s4", "s5", "s6"}, 2: {"s1", "s2"}, 3: {"s0"}},
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
                [member_config("s3-n1", "Node", "exact"), member_config("s3-n2", "Node", "exact")],
            ),
            "s4": build_hyper_node(
                "s4",
                1,
                [member_config("s4-n1", "Node", "exact"), member_config("s4-n2", "Node", "exact")],
            ),
            "s5": build_hyper_node(
                "s5",
                1,
                [member_config("s5-n1", "Node", "exact"), member_config("s5-n2", "Node", "exact")],
            ),
            "s6": build_hyper_node(
                "s6",
                1,
                [member_config("s6-n1", "Node", "exact"), member_config("s6-n2", "Node", "exact")],
            ),
        },
        HyperNodes={
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can allocate job when LCAHyperNode is empty",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "hard", 2
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
        },
        HyperNodes={"s0": {"s0-n1", "s0-n2"}, "s1": {"s1-n3", "s1-n4"}},
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can not allocate job when cross highestTierName tier",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "", "q1", 3, None, "Inqueue", "hard", "volcano.sh/task-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1, "volcano.sh/job-spec": 2},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s1",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can allocate job when the tier corresponding to highestTierName not reached",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "", "q1", 3, None, "Inqueue", "hard", "volcano.sh/job-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1, "volcano.sh/job-spec": 2},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s1",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=3,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain, can allocate job when multi hyperNodes are available",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "", "q1", 2, None, "Inqueue", "hard", "volcano.sh/task-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1, "volcano.sh/job-spec": 2},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s1",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and task in job rescheduled, can allocate job when the tier corresponding to highestTierName not reached",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "hard", "volcano.sh/job-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1, "volcano.sh/job-spec": 2},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s1",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and task in job rescheduled, can allocate job when the tier corresponding to highestTierName not reached and minavailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "s0", "q1", 3, None, "Inqueue", "hard", "volcano.sh/job-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1, "volcano.sh/job-spec": 2},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s1",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and task in job rescheduled, can allocate job when the tier corresponding to highestTierName not reached and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "s3", "q1", 2, None, "Inqueue", "hard", "volcano.sh/job-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s3-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s3-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s4-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s5-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s6-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s3", "s4", "s5", "s6"}, 2: {"s1", "s2"}, 3: {"s0"}},
        HyperNodesTierNameMap={
            "volcano.sh/task-spec": 1,
            "volcano.sh/job-spec": 2,
            "volcano.sh/hypernode-spec": 3,
        },
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                3,
                [
                    member_config("s1", "HyperNode", "exact"),
                    member_config("s2", "HyperNode", "exact"),
                ],
                "volcano.sh/hypernode-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                2,
                [
                    member_config("s3", "HyperNode", "exact"),
                    member_config("s4", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s5", "HyperNode", "exact"),
                    member_config("s6", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
            "s3": build_hyper_node(
                "s3",
                1,
                [member_config("s3-n1", "Node", "exact"), member_config("s3-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s4": build_hyper_node(
                "s4",
                1,
                [member_config("s4-n1", "Node", "exact"), member_config("s4-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s5": build_hyper_node(
                "s5",
                1,
                [member_config("s5-n1", "Node", "exact"), member_config("s5-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s6": build_hyper_node(
                "s6",
                1,
                [member_config("s6-n1", "Node", "exact"), member_config("s6-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
        },
        HyperNodes={
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology constrain and tasks in job rescheduled, can not allocate job when cross the tier corresponding to highestTierName",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "hard", "volcano.sh/task-spec"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1, "volcano.sh/job-spec": 2},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
                "volcano.sh/job-spec",
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="hard network topology with highestTierName constrain and tasks in job rescheduled, can allocate job when here is no corresponding highestTierAllowed for highestTierName",  # noqa: E501
        PodGroups=[
            build_pod_group_using_network_topologies_with_tier_name(
                "pg1", "c1", "s0", "q1", 2, None, "Inqueue", "hard", "volcano.sh/hypercluster"
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "s0-n2",
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
                "s0-n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}},
        HyperNodesTierNameMap={"volcano.sh/task-spec": 1},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
                "volcano.sh/task-spec",
            ),
        },
        HyperNodes={"s0": {"s0-n1", "s0-n2"}, "s1": {"s1-n3", "s1-n4"}},
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
]

# TestNodeLevelScoreWithNetWorkTopologies
NODE_LEVEL_SCORE_CASES = [
    common(
        Name="hard network topology constrain, allocate job to highest score hypeNode with node level binpack",  # noqa: E501
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 2, None, "Inqueue", "hard", 1
            ),
            build_pod_group_with_network_topologies(
                "pg2", "c1", "", "q1", 2, None, "Running", "", 1
            ),
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("4", "8Gi"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "s0-n1",
                "Running",
                build_resource_list("2", "4Gi"),
                "pg2",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "s0-n2",
                "Running",
                build_resource_list("4", "8Gi"),
                "pg2",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
        ],
        Nodes=[
            build_node(
                "s0-n1", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("8", "16Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("8", "16Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=2,
        ExpectBindMap={"c1/p1": "s0-n1", "c1/p2": "s0-n2"},
    )
]

# TestHyperNodeBinpackWithNetWorkTopologies
HYPERNODE_BINPACK_CASES = [
    common(
        Name="hard network topology constrain, allocate task to node under LCAHyperNode",
        PodGroups=[
            build_pod_group_with_network_topologies(
                "pg1", "c1", "", "q1", 4, None, "Inqueue", "hard", 2
            )
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("4", "8Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("4", "8Gi"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("4", "8Gi"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("4", "8Gi"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
        ],
        Nodes=[
            build_node(
                "s0-n1", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n4", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s2-n5", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s2-n6", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [member_config("s0-n1", "Node", "exact"), member_config("s0-n2", "Node", "exact")],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [member_config("s1-n3", "Node", "exact"), member_config("s1-n4", "Node", "exact")],
            ),
            "s2": build_hyper_node(
                "s2",
                1,
                [member_config("s2-n5", "Node", "exact"), member_config("s2-n6", "Node", "exact")],
            ),
            "s3": build_hyper_node(
                "s3",
                2,
                [
                    member_config("s0", "HyperNode", "exact"),
                    member_config("s1", "HyperNode", "exact"),
                    member_config("s2", "HyperNode", "exact"),
                ],
            ),
        },
        HyperNodesSetByTier={1: {"s0", "s1", "s2"}, 2: {"s3"}},
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s2-n5", "s2-n6"},
            "s3": {"s0-n1", "s0-n2", "s1-n3", "s2-n5", "s1-n4", "s2-n6"},
        },
        Queues=[build_queue("q1", 1, None)],
        ExpectBindsNum=4,
        ExpectBindNumsInHyperNode=[2, 2],
    )
]
