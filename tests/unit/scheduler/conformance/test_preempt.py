"""Volcano ``pkg/scheduler/actions/preempt/preempt_test.go``: ``TestPreempt`` and
``TestTopologyAwarePreempt``, one row per upstream case, same objects, same tiers.

Not expressible: ``TestNormalPreemptRechecksPredicateAfterEviction`` (a test-only predicate
plugin that reads pod names) and the benchmark fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.models import Pod
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    Case,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_group_with_prio,
    build_pod_with_preemption_policy,
    build_pod_with_priority,
    build_priority_class,
    build_queue,
    build_queue_with_priority_and_resources_quantity,
    build_resource_list,
    check,
    rows,
)

HIGH_PRIO = build_priority_class("high-priority", 100000)
LOW_PRIO = build_priority_class("low-priority", 10)


def build_pod_with_pod_anti_affinity(
    namespace: str,
    name: str,
    node_name: str,
    phase: str,
    req: dict[str, str],
    group_name: str,
    labels: dict[str, str],
    selector: dict[str, str],
    topology_key: str,
) -> Pod:
    """The test file's own ``buildPodWithPodAntiAffinity``: anti-affine to its own labels."""
    affinity: dict[str, Any] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": labels}, "topologyKey": topology_key}
            ]
        }
    }
    return build_pod(
        namespace, name, node_name, phase, req, group_name, labels, selector, affinity=affinity
    )


PREEMPT_CASES = [
    Case(
        "do not preempt if there are enough idle resources",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("10", "10G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "q1", 3, {"": 3}, "Inqueue"),
            build_pod(
                "c1", "preemptee1", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptee2", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
        ],
    ),
    Case(
        "do not preempt if job is pipelined",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("3", "3G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "q1", 1, {"": 2}, "Inqueue"),
            build_pod_group("pg2", "c1", "q1", 1, {"": 2}, "Inqueue"),
            build_pod(
                "c1", "preemptee1", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptee2", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptee3", "n1", "Running", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
            build_pod(
                "c1", "preemptor2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
    ),
    Case(
        "preempt one task of different job to fit both jobs on one node",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("2", "2G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {"": 2}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 2}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "false"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
            build_pod(
                "c1", "preemptor2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "preempt enough tasks to fit large task of different job",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("6", "6G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {"": 3}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee3",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "false"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("5", "5G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee2", "c1/preemptee1"],
    ),
    Case(
        "preempt low priority job in same queue",
        objects=[
            build_queue("q1", 1, build_resource_list("4", "4G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("3", "3G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "preempt low priority job in same queue: allocatable and has enough resource, don't preempt",  # noqa: E501
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("3", "3G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
    ),
    Case(
        "preempt low priority job in same queue but not pod with preemptable=false or higher priority",  # noqa: E501
        objects=[
            build_queue("q1", 1, build_resource_list("3", "3G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "false"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod_with_priority(
                "c1",
                "preemptee3",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
                100000,
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee2"],
    ),
    Case(
        "unBestEffort high-priority pod preempt BestEffort low-priority pod in same queue",
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "1"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod("c1", "preemptee1", "n1", "Running", {}, "pg1", {PREEMPTABLE: "true"}, {}),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "BestEffort high-priority pod preempt BestEffort low-priority pod in same queue",
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "1"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod("c1", "preemptee1", "n1", "Running", {}, "pg1", {PREEMPTABLE: "true"}, {}),
            build_pod("c1", "preemptor1", "", "Pending", {}, "pg2", {}, {}),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "can not preempt resources when task preemption policy is never",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("1", "1Gi", {"Name": "pods", "Value": "1"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, None, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, None, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod_with_preemption_policy(
                "c1",
                "preemptor1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg2",
                {},
                {},
                "Never",
            ),
        ],
    ),
    Case(
        "rollback evictions when preemptor exceeds queue capacity after evicting victims",
        objects=[
            build_queue("q1", 1, build_resource_list("3", "3G")),
            build_node("n1", build_resource_list("10", "10G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {"": 2}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("4", "4G"), "pg2", {}, {}
            ),
        ],
    ),
    Case(
        "only commit evictions on the node where preemption succeeds",
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("3", "3G", {"Name": "pods", "Value": "10"}), {}),
            build_node("n2", build_resource_list("4", "4G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod_group_with_prio("pg3", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n2",
                "Running",
                build_resource_list("4", "4G"),
                "pg3",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee2"],
    ),
    Case(
        "multi-queue: preemptorTasks must not be overwritten by intra-job preemption of another queue",  # noqa: E501
        objects=[
            build_queue("q1", 1, None),
            build_queue("q2", 1, build_resource_list("4", "4G")),
            build_node("n1", build_resource_list("2", "2G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "q1", 1, {"": 1}, "Inqueue"),
            build_pod_group_with_prio("pg2", "c1", "q2", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg3", "c1", "q2", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1", "q1-runner1", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1",
                "q2-preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg2",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "q2-preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg3", {}, {}
            ),
        ],
        evicted=["c1/q2-preemptee1"],
    ),
]

TOPOLOGY_AWARE_CASES = [
    Case(
        "do not preempt if there are enough idle resources",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("10", "10G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "q1", 3, {"": 3}, "Inqueue"),
            build_pod(
                "c1", "preemptee1", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptee2", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
        ],
    ),
    Case(
        "do not preempt if job is pipelined",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("3", "3G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group("pg1", "c1", "q1", 1, {"": 2}, "Inqueue"),
            build_pod_group("pg2", "c1", "q1", 1, {"": 2}, "Inqueue"),
            build_pod(
                "c1", "preemptee1", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptee2", "n1", "Running", build_resource_list("1", "1G"), "pg1", {}, {}
            ),
            build_pod(
                "c1", "preemptee3", "n1", "Running", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
            build_pod(
                "c1", "preemptor2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
    ),
    Case(
        "preempt one task of different job to fit both jobs on one node",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("2", "2G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {"": 2}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 2}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "false"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
            build_pod(
                "c1", "preemptor2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "preempt enough tasks to fit large task of different job",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("6", "6G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {"": 3}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee3",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "false"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("5", "5G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee2", "c1/preemptee1"],
    ),
    Case(
        "preempt low priority job in same queue",
        objects=[
            build_queue("q1", 1, build_resource_list("4", "4G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("3", "3G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "preempt low priority job in same queue: allocatable and has enough resource, don't preempt",  # noqa: E501
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("3", "3G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
    ),
    Case(
        "preempt low priority job in same queue but not pod with preemptable=false or higher priority",  # noqa: E501
        objects=[
            build_queue("q1", 1, build_resource_list("3", "3G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "10"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 1, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "false"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod_with_priority(
                "c1",
                "preemptee3",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
                100000,
            ),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee2"],
    ),
    Case(
        "unBestEffort high-priority pod preempt BestEffort low-priority pod in same queue",
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "1"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod("c1", "preemptee1", "n1", "Running", {}, "pg1", {PREEMPTABLE: "true"}, {}),
            build_pod(
                "c1", "preemptor1", "", "Pending", build_resource_list("3", "3G"), "pg2", {}, {}
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "BestEffort high-priority pod preempt BestEffort low-priority pod in same queue",
        objects=[
            build_queue("q1", 1, build_resource_list("6", "6G")),
            build_node("n1", build_resource_list("12", "12G", {"Name": "pods", "Value": "1"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod("c1", "preemptee1", "n1", "Running", {}, "pg1", {PREEMPTABLE: "true"}, {}),
            build_pod("c1", "preemptor1", "", "Pending", {}, "pg2", {}, {}),
        ],
        evicted=["c1/preemptee1"],
    ),
    Case(
        "can not preempt resources when task preemption policy is never",
        objects=[
            build_queue("q1", 1, None),
            build_node("n1", build_resource_list("1", "1Gi", {"Name": "pods", "Value": "1"}), {}),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, None, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, None, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod_with_preemption_policy(
                "c1",
                "preemptor1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg2",
                {},
                {},
                "Never",
            ),
        ],
    ),
    Case(
        "preempt low-priority pod when high-priority pod has PodAntiAffinity conflict",
        objects=[
            build_queue("q1", 1, build_resource_list("2", "2G")),
            build_node(
                "n1",
                build_resource_list("2", "2Gi", {"Name": "pods", "Value": "2"}),
                {"kubernetes.io/hostname": "n1"},
            ),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 0, {}, "Inqueue", "low-priority"),
            build_pod_group_with_prio("pg3", "c1", "q1", 1, {"": 1}, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg2",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod_with_pod_anti_affinity(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true", "test": "test"},
                {},
                "kubernetes.io/hostname",
            ),
            build_pod_with_pod_anti_affinity(
                "c1",
                "preemptor1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg3",
                {"test": "test"},
                {},
                "kubernetes.io/hostname",
            ),
        ],
        evicted=["c1/preemptee2"],
    ),
    Case(
        "preemption with priority queues",
        objects=[
            build_queue_with_priority_and_resources_quantity(
                "q1", 1, build_resource_list("1", "1G"), build_resource_list("1", "1G")
            ),
            build_queue_with_priority_and_resources_quantity(
                "q2", 10, build_resource_list("1", "1G"), build_resource_list("1", "1G")
            ),
            build_node("n1", build_resource_list("2", "2Gi", {"Name": "pods", "Value": "2"}), {}),
            build_pod_group_with_prio("pg3", "c1", "q2", 1, None, "Running", "high-priority"),
            build_pod_group_with_prio("pg1", "c1", "q1", 0, None, "Running", "low-priority"),
            build_pod_group_with_prio("pg2", "c1", "q1", 1, None, "Inqueue", "high-priority"),
            build_pod(
                "c1",
                "preemptee2",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg3",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod(
                "c1",
                "preemptee1",
                "n1",
                "Running",
                build_resource_list("1", "1G"),
                "pg1",
                {PREEMPTABLE: "true"},
                {},
            ),
            build_pod_with_preemption_policy(
                "c1",
                "preemptor1",
                "",
                "Pending",
                build_resource_list("1", "1G"),
                "pg2",
                {},
                {},
                "PreemptLowerPriority",
            ),
        ],
        evicted=["c1/preemptee1"],
    ),
]

PREEMPT_TIERS = [
    [
        plugin_option("conformance", "enablePreemptable"),
        plugin_option("gang", "enablePreemptable", "enableJobPipelined", "enableJobStarving"),
        plugin_option(
            "priority",
            "enableTaskOrder",
            "enableJobOrder",
            "enablePreemptable",
            "enableJobPipelined",
            "enableJobStarving",
        ),
        plugin_option("proportion", "enabledOverused", "enabledAllocatable", "enableQueueOrder"),
    ]
]
TOPOLOGY_AWARE_TIERS = [
    [
        *PREEMPT_TIERS[0][:3],
        plugin_option(
            "proportion",
            "enabledOverused",
            "enabledAllocatable",
            "enableQueueOrder",
            "enablePredicate",
        ),
        plugin_option("predicates", "enablePreemptable", "enablePredicate"),
        plugin_option("capacity", "enableQueueOrder"),
    ]
]


@pytest.mark.parametrize("case", PREEMPT_CASES, ids=lambda c: c.name)
def test_preempt(case: Case) -> None:
    conf = tiers_conf(
        "preempt", PREEMPT_TIERS, {"preempt": {"enableTopologyAwarePreemption": False}}
    )
    check(case, conf, extra=[HIGH_PRIO, LOW_PRIO])


TOPOLOGY_AWARE_GAPS: dict[str, str] = {}


@pytest.mark.parametrize("case", rows(TOPOLOGY_AWARE_CASES, TOPOLOGY_AWARE_GAPS))
def test_topology_aware_preempt(case: Case) -> None:
    conf = tiers_conf(
        "preempt", TOPOLOGY_AWARE_TIERS, {"preempt": {"enableTopologyAwarePreemption": True}}
    )
    check(case, conf, extra=[HIGH_PRIO, LOW_PRIO])
