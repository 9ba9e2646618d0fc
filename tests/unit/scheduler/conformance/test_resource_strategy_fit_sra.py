"""Volcano ``pkg/scheduler/plugins/resource-strategy-fit/sra_test.go``: ``TestArguments`` (the
parsed ``sra`` and ``proportional`` settings) and ``TestNode`` (one row per upstream case:
every task's ``ssn.NodeOrderFn`` on every node, resource-strategy-fit alone in the tiers).
"""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.plugins import resource_strategy_fit as rsf
from shared.models import Model, Node, Pod
from tests.unit.scheduler.conformance.test_resource_strategy_fit import (
    assert_scores,
    node_order,
)
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)

T4, A10 = "nvidia.com/t4", "nvidia.com/a10"
PODS = {"Name": "pods", "Value": "10"}


def test_arguments() -> None:
    plugin = rsf.new(
        {
            "sra": {
                "enable": True,
                "resources": "nvidia.com/t4, nvidia.com/a10",
                "weight": 3,
                "resourceWeight": {T4: 1, A10: 2},
            },
            "proportional": {
                "enable": True,
                "resources": "nvidia.com/t4, nvidia.com/a10",
                "resourceProportion": {
                    f"{T4}.cpu": 3,
                    f"{T4}.memory": 6,
                    f"{A10}.cpu": 4,
                    f"{A10}.memory": 8,
                },
            },
        }
    )
    assert plugin.sra.weight == 3
    assert plugin.sra.weight_sum == 3
    assert plugin.sra.resources == {T4: 1, A10: 2}
    assert plugin.proportional == {T4: (3.0, 6.0), A10: (4.0, 8.0)}


def _pod(name: str, cpu: str, memory: str, **extra: str) -> Pod:
    req = {**build_resource_list(cpu, memory), **extra}
    return build_pod("c1", name, "", "Pending", req, "pg1", {}, {})


def _node(name: str, cpu: str, memory: str, **extra: str) -> Node:
    return build_node(name, {**build_resource_list(cpu, memory, PODS), **extra}, {})


def _objects() -> list[Model]:
    return [
        build_queue("c1", 1, None),
        _node("n1", "32", "64Gi"),
        _node("n2", "8", "16Gi", **{T4: "16"}),
        _node("n3", "8", "16Gi", **{A10: "16"}),
        _node("n4", "8", "16Gi", **{T4: "8", A10: "16"}),
        build_pod_group("pg1", "c1", "c1", 0, None, ""),
        _pod("p1", "1", "1Gi"),
        _pod("p2", "1.5", "0Gi", **{T4: "2"}),
        _pod("p3", "2", "4Gi", **{A10: "2"}),
        _pod("p4", "3", "4Gi", **{T4: "1", A10: "3"}),
    ]


def _sra(resources: str, weight: int, weights: dict[str, int]) -> dict[str, Any]:
    return {"enable": True, "resources": resources, "weight": weight, "resourceWeight": weights}


FIT = {"nvidia.com/t4": {"type": "MostAllocated", "weight": 3}}
FIT["cpu"] = {"type": "LeastAllocated", "weight": 1}
WITH_FIT = {
    "c1/p2": {"n1": 190.625, "n2": 237.5, "n3": 162.5, "n4": 312.5},
    "c1/p4": {"n1": 181.25, "n2": 162.5, "n3": 125, "n4": 200},
}

CASES = [
    pytest.param(
        {
            "resourceStrategyFitWeight": 0,
            "sra": _sra("nvidia.com/t4, nvidia.com/a10", 5, {T4: 2, A10: 3}),
        },
        {
            "c1/p1": {"n1": 500, "n2": 300, "n3": 200, "n4": 0},
            "c1/p2": {"n1": 0, "n2": 300, "n3": 0, "n4": 0},
            "c1/p3": {"n1": 0, "n2": 0, "n3": 200, "n4": 0},
            "c1/p4": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
        },
        id="case1: single job score result in multi-GPU resource",
    ),
    pytest.param(
        {"resourceStrategyFitWeight": 0, "sra": _sra("nvidia.com/t4", 5, {T4: 2})},
        {
            "c1/p1": {"n1": 500, "n2": 0, "n3": 500, "n4": 0},
            "c1/p2": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
            "c1/p3": {"n1": 0, "n2": 0, "n3": 500, "n4": 0},
            "c1/p4": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
        },
        id="case2: single job score result in single GPU resource",
    ),
    pytest.param(
        {
            "resourceStrategyFitWeight": 8,
            "resources": FIT,
            "sra": _sra("nvidia.com/t4", 0, {T4: 2}),
        },
        {
            "c1/p1": {"n1": 775, "n2": 700, "n3": 700, "n4": 700},
            "c1/p3": {"n1": 750, "n2": 600, "n3": 600, "n4": 600},
            **WITH_FIT,
        },
        id="case3: single job score result with sra policy and resourceStrategyFit",
    ),
    pytest.param(
        {
            "resourceStrategyFitWeight": 8,
            "resources": FIT,
            "sra": _sra("nvidia.com/t4", 5, {T4: 2}),
        },
        {
            "c1/p1": {"n1": 1275, "n2": 700, "n3": 1200, "n4": 700},
            "c1/p3": {"n1": 750, "n2": 600, "n3": 1100, "n4": 600},
            **WITH_FIT,
        },
        id="case4: single job score result with sra policy and resourceStrategyFit",
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), CASES)
def test_node(arguments: dict[str, Any], expected: dict[str, dict[str, float]]) -> None:
    assert_scores(node_order(_objects(), arguments), expected)
