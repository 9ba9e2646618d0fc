"""Volcano ``pkg/scheduler/actions/enqueue/enqueue_test.go`` (``TestEnqueue``): one row per
upstream case, with its tiers (drf, proportion, sla, gang).
"""

from __future__ import annotations

import pytest

from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    Case,
    build_pod,
    build_pod_group,
    build_pod_group_with_min_resources,
    build_queue,
    build_resource_list,
    check,
)

ENQUEUE_CASES = [
    Case(
        "when podgroup status is inqueue",
        objects=[
            build_queue("c1", 1, build_resource_list("4", "4G")),
            build_queue("c2", 1, build_resource_list("4", "4G")),
            build_pod_group("pg1", "c1", "c1", 2, None, "Inqueue"),
            build_pod("c1", "p1", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}),
            build_pod("c1", "p2", "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}),
        ],
        phases={"c1/pg1": "Inqueue"},
    ),
    Case(
        "when podgroup status is pending",
        objects=[
            build_queue("c1", 1, build_resource_list("4", "4G")),
            build_queue("c2", 1, build_resource_list("4", "4G")),
            build_pod_group("pg1", "c1", "c1", 1, None, "Pending"),
            build_pod_group("pg2", "c1", "c2", 1, None, "Pending"),
            build_pod("c1", "p1", "", "Pending", build_resource_list("3", "1G"), "pg1", {}, {}),
            build_pod("c1", "p2", "", "Pending", build_resource_list("1", "1G"), "pg2", {}, {}),
        ],
        phases={"c1/pg1": "Inqueue", "c1/pg2": "Inqueue"},
    ),
    Case(
        "when podgroup status is running",
        objects=[
            build_queue("c1", 1, build_resource_list("4", "4G")),
            build_pod_group("pg1", "c1", "c1", 2, None, "Running"),
            build_pod("c1", "p1", "", "Running", build_resource_list("1", "1G"), "pg1", {}, {}),
            build_pod("c1", "p2", "", "Running", build_resource_list("1", "1G"), "pg1", {}, {}),
        ],
        phases={"c1/pg1": "Running"},
    ),
    Case(
        "pggroup cannot enqueue because the specified queue is c1, but there is only c2",
        objects=[
            build_queue("c2", 1, build_resource_list("4", "4G")),
            build_pod_group("pg1", "c1", "c1", 0, None, "Pending"),
        ],
        phases={},
    ),
    Case(
        "pggroup cannot enqueue because queue resources are less than podgroup MinResources",
        objects=[
            build_queue("c1", 1, build_resource_list("1", "1G")),
            build_pod_group_with_min_resources(
                "pg1", "c1", "c1", 1, None, build_resource_list("8", "8G"), "Pending"
            ),
        ],
        phases={"c1/pg1": "Pending"},
    ),
]

ENQUEUE_TIERS = [
    [
        plugin_option("drf", "enableJobOrder", "enableJobEnqueued"),
        plugin_option("proportion", "enableQueueOrder", "enableJobEnqueued"),
        plugin_option(
            "sla",
            "enableJobOrder",
            "enableJobEnqueued",
            arguments={"sla-waiting-time": "3m"},
        ),
        plugin_option("gang", "enableJobOrder"),
    ]
]


@pytest.mark.parametrize("case", ENQUEUE_CASES, ids=lambda c: c.name)
def test_enqueue(case: Case) -> None:
    check(case, tiers_conf("enqueue", ENQUEUE_TIERS))
