"""The pdb plugin's victim filter beyond upstream's table: which budgets count, the order in
which candidates spend them, and a preemption it stops in a whole session."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.api import TaskInfo
from services.scheduler.plugins.pdb import victims
from shared.models import PodDisruptionBudget
from tests.unit.scheduler.builders import plugin_option, schedule, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_group_with_prio,
    build_priority_class,
    build_queue,
    build_resource_list,
    open_session,
)

APP = {"app": "web"}


def budget(
    allowed: int,
    selector: dict[str, Any] | None = None,
    *,
    namespace: str = "ns",
    disrupted: tuple[str, ...] = (),
) -> PodDisruptionBudget:
    spec = {"selector": selector} if selector is not None else {}
    return msgspec.convert(
        {
            "metadata": {"name": "b", "namespace": namespace},
            "spec": spec,
            "status": {
                "disruptionsAllowed": allowed,
                "disruptedPods": dict.fromkeys(disrupted, "2024-05-01T10:00:00Z"),
            },
        },
        PodDisruptionBudget,
    )


def tasks(*labels: dict[str, str]) -> list[TaskInfo]:
    res = build_resource_list("1", "1G")
    objects: list[Any] = [
        build_queue("q", 1, None),
        build_node("n1", build_resource_list("8", "8G", {"Name": "pods", "Value": "10"}), {}),
        build_pod_group("pg", "ns", "q", 1, {}, "Running"),
        *(
            build_pod("ns", f"p{i}", "n1", "Running", res, "pg", pod_labels, {})
            for i, pod_labels in enumerate(labels)
        ),
    ]
    ssn = open_session(objects, tiers_conf("allocate", [[plugin_option("pdb")]]))
    [job] = ssn.jobs.values()
    return sorted(job.tasks.values(), key=lambda t: t.name)


MATCH = {"matchLabels": APP}
CASES = [
    ("no budget", [], [APP, APP], ["p0", "p1"]),
    ("candidates spend the budget in order", [budget(1, MATCH)], [APP, APP, APP], ["p0"]),
    ("a pod the budget does not select", [budget(0, MATCH)], [APP, {"app": "db"}], ["p1"]),
    ("a budget of another namespace", [budget(0, MATCH, namespace="other")], [APP], ["p0"]),
    ("a budget without selector selects nothing", [budget(0)], [APP], ["p0"]),
    ("an empty selector selects nothing", [budget(0, {})], [APP], ["p0"]),
    (
        "an invalid selector selects nothing",
        [budget(0, {"matchExpressions": [{"key": "app", "operator": "In"}]})],
        [APP],
        ["p0"],
    ),
    (
        "a matching expression",
        [budget(0, {"matchExpressions": [{"key": "app", "operator": "Exists"}]})],
        [APP, {"tier": "x"}],
        ["p1"],
    ),
    ("a pod already disrupted spends nothing", [budget(1, MATCH, disrupted=("p0",))], [APP, APP],
     ["p0", "p1"]),
    ("every budget that selects the pod must allow it", [budget(1, MATCH), budget(0, MATCH)],
     [APP], []),
    ("a pod without labels is never a victim, as upstream", [], [{}, APP], ["p1"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("budgets", "labels", "expect"), [pytest.param(b, lab, e, id=n) for n, b, lab, e in CASES]
)
def test_victims(
    budgets: list[PodDisruptionBudget], labels: list[dict[str, str]], expect: list[str]
) -> None:
    assert [t.name for t in victims(budgets, tasks(*labels))] == expect


@pytest.mark.parametrize(("allowed", "evicted"), [(0, []), (1, ["ns1/preemptee1"])])
def test_a_budget_stops_a_preemption(allowed: int, evicted: list[str]) -> None:
    res = build_resource_list("3", "3G")
    conf = tiers_conf(
        "allocate, preempt",
        [
            [
                plugin_option(
                    "priority",
                    "enableTaskOrder",
                    "enableJobOrder",
                    "enableJobStarving",
                    "enablePreemptable",
                ),
                plugin_option("pdb", "enablePreemptable"),
            ]
        ],
    )
    objects: list[Any] = [
        build_priority_class("low", 100),
        build_priority_class("high", 1000),
        build_queue("q1", 1, build_resource_list("6", "6G")),
        build_node("node1", build_resource_list("3", "3G", {"Name": "pods", "Value": "10"}), {}),
        build_pod_group_with_prio("pg1", "ns1", "q1", 1, {}, "Running", "low"),
        build_pod_group_with_prio("pg2", "ns1", "q1", 1, {}, "Inqueue", "high"),
        build_pod("ns1", "preemptee1", "node1", "Running", res, "pg1", {PREEMPTABLE: "true"}, {}),
        build_pod("ns1", "preemptor1", "", "Pending", res, "pg2", {}, {}),
        budget(allowed, {"matchLabels": {PREEMPTABLE: "true"}}, namespace="ns1"),
    ]
    result = schedule(objects, conf)
    assert sorted(result.evictions) == evicted
