"""The ``subGroupPolicy`` rows of Volcano ``pkg/scheduler/actions/allocate/allocate_test.go``
(``TestAllocateWithPartitionPolicyNetworkTopology``), one ``common(...)`` per upstream case with
upstream's objects and expectations, translated mechanically from the Go literals; run by
``test_allocate.py``.
"""

from __future__ import annotations

from tests.unit.scheduler.conformance.upstream import (
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group_with_sub_group_policy,
    build_queue,
    build_resource_list,
    build_sub_group_policy,
    build_sub_group_policy_with_min_sub_groups,
    build_sub_group_policy_with_sub_group_size,
    common,
    member_config,
)

# TestAllocateWithPartitionPolicyNetworkTopology
SUBGROUP_CASES = [
    common(
        Name="podgroup hard network topology constrain and subGroup soft network topology constrain, can allocate job when resources are enough",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "soft", 0),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        MinimalBindCheck=True,
        ExpectBindsNum=3,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup soft network topology constrain, can allocate job when minavailable < replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                1,
                None,
                "Inqueue",
                "hard",
                1,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "soft", 0),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup soft network topology constrain, two available hyperNodes, can allocate job to nodes with affinity",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                1,
                None,
                "Inqueue",
                "hard",
                1,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "soft", 0),
                ],
            ),
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
            ),
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
        HyperNodes={
            "s0": {"s0-n1"},
            "s1": {"s1-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindMap={
            "c1/p1": "s1-n2",
        },
        ExpectBindsNum=1,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup soft network topology constrain and tasks in job rescheduled, can allocate job when resources are enough",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s2",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "soft", 0),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup soft network topology constrain and tasks in job rescheduled, can allocate job when resources are enough and minavailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s2",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "soft", 0),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup soft network topology constrain and tasks in job rescheduled, can allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s1",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "soft", 0),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup soft network topology constrain and subGroup hard network topology constrain, can allocate job when resources are enough",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "soft",
                0,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 2
                    ),
                    build_sub_group_policy_with_sub_group_size(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
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
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                ],
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
            "s1": {"s1-n3"},
            "s2": {"s0-n1", "s0-n2", "s1-n3"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        MinimalBindCheck=True,
        ExpectBindsNum=3,
        ExpectBindMap={
            "c1/p1": "s1-n3",
        },
    ),
    common(
        Name="podgroup soft network topology constrain and subGroup hard network topology constrain, can allocate job when minavailable < replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                1,
                None,
                "Inqueue",
                "soft",
                0,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup soft network topology constrain and subGroup hard network topology constrain, can not allocate job when cross highestTierAllowed tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "soft",
                0,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s0-n1", "s0-n2", "s1-n3", "s1-n4"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup soft network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate job when resources are enough",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s2",
                "q1",
                2,
                None,
                "Inqueue",
                "soft",
                0,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                "s1-n3",
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        ExpectBindMap={
            "c1/p3": "s1-n4",
        },
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup soft network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can not allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s1",
                "q1",
                2,
                None,
                "Inqueue",
                "soft",
                0,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 2),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                "s4-n2",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
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
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job when highestTierAllowed not reached",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=3,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job according to the network topology constrain of subGroup policy",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1
                    ),
                    build_sub_group_policy_with_sub_group_size(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
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
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                ],
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
            "s1": {"s1-n3"},
            "s2": {"s0-n1", "s0-n2", "s1-n3"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=3,
        ExpectBindMap={
            "c1/p1": "s1-n3",
        },
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job when multi hyperNodes are available",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job when minavailable < replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                1,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, two available hyperNodes, can allocate job to nodes with affinity",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                "s1-n3",
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        ExpectBindMap={
            "c1/p3": "s1-n4",
        },
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate job when highestTierAllowed not reached and minavailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 2),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate job when highestTierAllowed not reached and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s3",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                3,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 2),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can not allocate job when cross highestTierAllowed tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 1),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can not allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s3",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                3,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 2),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                "s4-n2",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
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
            "s0": {"s3-n1", "s3-n2", "s4-n1", "s4-n2", "s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s1": {"s3-n1", "s3-n2", "s4-n1", "s4-n2"},
            "s2": {"s5-n1", "s5-n2", "s6-n1", "s6-n2"},
            "s3": {"s3-n1", "s3-n2"},
            "s4": {"s4-n1", "s4-n2"},
            "s5": {"s5-n1", "s5-n2"},
            "s6": {"s6-n1", "s6-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate job when LCAHyperNode is empty",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                3,
                [
                    build_sub_group_policy("task1", ["volcano.sh/task-spec"], "hard", 2),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job according to the network topology constrain of subGroup policy with minSubGroups",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                5,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1, 1
                    ),
                    build_sub_group_policy_with_min_sub_groups(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2, 2
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
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
            build_node(
                "s2-n5", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1", "s2"}, 2: {"s3"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
            ),
            "s2": build_hyper_node(
                "s2",
                1,
                [
                    member_config("s2-n5", "Node", "exact"),
                ],
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
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
            "s1": {"s1-n3", "s1-n4"},
            "s2": {"s2-n5"},
            "s3": {"s0-n1", "s0-n2", "s1-n3", "s1-n4", "s2-n5"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=5,
        ExpectBindMap={
            "c1/p1": "s2-n5",
        },
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job according to the network topology constrain of subGroup policy with minSubGroups and minavailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1, 1
                    ),
                    build_sub_group_policy_with_min_sub_groups(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
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
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                ],
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
            "s1": {"s1-n3"},
            "s2": {"s0-n1", "s0-n2", "s1-n3"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=3,
        ExpectBindMap={
            "c1/p1": "s1-n3",
        },
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can allocate job according to the network topology constrain of subGroup policy with minSubGroups and hypernode resources meet minSubGroups",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1, 2
                    ),
                    build_sub_group_policy_with_min_sub_groups(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master2"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master3"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master4"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p6",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p7",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
                None,
            ),
            build_pod(
                "c1",
                "p8",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=4,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can not allocate job when minMember is not satisfied",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                5,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1, 1
                    ),
                    build_sub_group_policy_with_min_sub_groups(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain, can not allocate job when minSubGroups is not satisfied",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1, 1
                    ),
                    build_sub_group_policy_with_min_sub_groups(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2, 2
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain with minSubGroups and tasks in job rescheduled, two available hyperNodes, can allocate job to nodes with affinity",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 2, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                "s1-n3",
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        ExpectBindMap={
            "c1/p3": "s1-n4",
        },
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain with minSubGroups and tasks in job rescheduled, can not allocate job when hypernode resources are insufficient.",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                2,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 2, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                "s1-n3",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "s1-n4",
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain with minSubGroups and tasks in job rescheduled, can allocate job when highestTierAllowed not reached and minAvailable = replicas",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                4,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 2, 2, 2
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
            build_pod(
                "c1",
                "p4",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="podgroup hard network topology constrain and subGroup hard network topology constrain with minSubGroups and tasks in job rescheduled, can allocate job when subGroup is rescheduled",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 1, 2
                    ),
                    build_sub_group_policy_with_min_sub_groups(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 2, 1
                    ),
                ],
            ),
        ],
        Pods=[
            # should use different role, because allocate actions default to enable the role caches when predicate  # noqa: E501
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
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master2"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "s0-n1",
                "Running",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master3"},
                None,
            ),
            build_pod(
                "c1",
                "p4",
                "s0-n2",
                "Running",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-spec": "master4"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p6",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p7",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
                None,
            ),
            build_pod(
                "c1",
                "p8",
                "",
                "Pending",
                build_resource_list("2", "4Gi"),
                "pg1",
                {"volcano.sh/task-instance": "worker2"},
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
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="rescheduling scenario: SubJob with multiple pending tasks, GetMinResources returns sum of all pending tasks resources",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                4,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 4
                    ),
                ],
            ),
        ],
        Pods=[
            # 2 Running tasks + 2 Pending tasks in the same SubJob
            # GetMinResources should return 4 CPU, 8G (sum of 2 pending tasks)
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
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
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="rescheduling scenario: SubJob with single pending task",
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 3
                    ),
                ],
            ),
        ],
        Pods=[
            # 2 Running tasks + 1 Pending task
            # GetMinResources should return 2 CPU, 4G (1 pending task)
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
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
                "s0-n1", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s1-n3", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                ],
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
            "s1": {"s1-n3"},
            "s2": {"s0-n1", "s0-n2", "s1-n3"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=1,
        MinimalBindCheck=True,
    ),
    common(
        Name="rescheduling scenario: multiple SubJobs with different pending task counts",
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s2",
                "q1",
                6,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    # SubJob1: 2 Running, 1 Pending (GetMinResources = 2 CPU, 4G)
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 3
                    ),
                    # SubJob2: 1 Running, 2 Pending (GetMinResources = 4 CPU, 8G)
                    build_sub_group_policy_with_sub_group_size(
                        "task2", ["volcano.sh/task-instance"], "hard", 1, 3
                    ),
                ],
            ),
        ],
        Pods=[
            # SubJob1: task-spec=master
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
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "master"},
                None,
            ),
            # SubJob2: task-instance=worker
            build_pod(
                "c1",
                "p4",
                "s1-n3",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p5",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p6",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-instance": "worker"},
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
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=3,
        MinimalBindCheck=True,
    ),
    common(
        Name="rescheduling scenario: pending tasks with different resource requirements",
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                1,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 3
                    ),
                ],
            ),
        ],
        Pods=[
            # 1 Running task + 2 Pending tasks with different resource requirements
            # Pending task 1: 2 CPU, 4G
            # Pending task 2: 4 CPU, 8G
            # GetMinResources should return 6 CPU, 12G
            # Use stable pod names to ensure consistent scheduling order across different environments  # noqa: E501
            build_pod(
                "c1",
                "p1-running",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p2-pending-small",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3-pending-large",
                "",
                "Pending",
                build_resource_list("4", "8G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
        ],
        Nodes=[
            build_node(
                "s0-n1", build_resource_list("10", "20Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("10", "20Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="rescheduling scenario: insufficient resources for pending tasks allocation",
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s0",
                "q1",
                3,
                None,
                "Inqueue",
                "hard",
                1,
                [
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 1, 3
                    ),
                ],
            ),
        ],
        Pods=[
            # 1 Running task + 2 Pending tasks, each needs 4 CPU
            # HyperNode s0 only has 4 CPU available (8 total - 4 used by running task)
            # Cannot allocate both pending tasks
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("4", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("4", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
            build_pod(
                "c1",
                "p3",
                "",
                "Pending",
                build_resource_list("4", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
                None,
            ),
        ],
        Nodes=[
            # Only 4 CPU available after running task uses 4 CPU
            build_node(
                "s0-n1", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "s0-n2", build_resource_list("4", "8Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        HyperNodesSetByTier={1: {"s0"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
        },
        HyperNodes={
            "s0": {"s0-n1", "s0-n2"},
        },
        Queues=[
            build_queue("q1", 1, None),
        ],
        # Gang scheduling requires all 3 tasks, but only 1 is running and resources insufficient for 2 pending  # noqa: E501
        ExpectBindsNum=0,
        MinimalBindCheck=True,
    ),
    common(
        Name="rescheduling scenario: SubJob rescheduling within tier-2 HyperNode constraint",
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "s2",
                "q1",
                4,
                None,
                "Inqueue",
                "hard",
                2,
                [
                    # SubJob with hard topology constraint at tier 2 (same as job level)
                    build_sub_group_policy_with_sub_group_size(
                        "task1", ["volcano.sh/task-spec"], "hard", 2, 4
                    ),
                ],
            ),
        ],
        Pods=[
            # Running tasks in s0 HyperNode
            # AllocatedHyperNode is set to s2 (tier-2), which contains both s0 and s1
            build_pod(
                "c1",
                "p1",
                "s0-n1",
                "Running",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker"},
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
            # Pending tasks can be scheduled to any node within s2 (s0-n1, s0-n2, s1-n3, s1-n4)
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
        ],
        HyperNodesSetByTier={1: {"s0", "s1"}, 2: {"s2"}},
        HyperNodesMap={
            "s0": build_hyper_node(
                "s0",
                1,
                [
                    member_config("s0-n1", "Node", "exact"),
                    member_config("s0-n2", "Node", "exact"),
                ],
            ),
            "s1": build_hyper_node(
                "s1",
                1,
                [
                    member_config("s1-n3", "Node", "exact"),
                    member_config("s1-n4", "Node", "exact"),
                ],
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
        Queues=[
            build_queue("q1", 1, None),
        ],
        # Both pending tasks should be allocated within s2 (which contains s0 and s1)
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
    common(
        Name="no network topology at job or subgroup level but has SubJobPolicy, can allocate job successfully",  # noqa: E501
        PodGroups=[
            build_pod_group_with_sub_group_policy(
                "pg1",
                "c1",
                "",
                "q1",
                2,
                None,
                "Inqueue",
                "",
                0,
                [
                    build_sub_group_policy_with_min_sub_groups(
                        "worker", ["volcano.sh/task-spec"], "", 0, 1, 2
                    ),
                ],
            ),
        ],
        Pods=[
            build_pod(
                "c1",
                "p1",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker-0"},
                None,
            ),
            build_pod(
                "c1",
                "p2",
                "",
                "Pending",
                build_resource_list("2", "4G"),
                "pg1",
                {"volcano.sh/task-spec": "worker-1"},
                None,
            ),
        ],
        Nodes=[
            build_node(
                "n1", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
            build_node(
                "n2", build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None
            ),
        ],
        Queues=[
            build_queue("q1", 1, None),
        ],
        ExpectBindsNum=2,
        MinimalBindCheck=True,
    ),
]
