"""Volcano ``pkg/scheduler/plugins/binpack/binpack_test.go``: ``TestNode``, one row per upstream
case (both are named ``single job`` there, so pytest numbers them), same objects and arguments.
A session with binpack alone (``enableNodeOrder``) scores every task of the job on every node,
as upstream's ``ssn.NodeOrderFn(task, node)``, within 1e-8.

Not expressible: ``TestArguments`` (reads the plugin's parsed weight struct; its one rule that
shows in scores, a negative resource weight read as 1, is what Shoal does too).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.framework.placement import Placer
from shared.models import Node, Pod
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)

EPS = 1e-8
GPU, FOO = "nvidia.com/gpu", "example.com/foo"
PODS = {"Name": "pods", "Value": "10"}


def _pod(name: str, node: str, cpu: str, memory: str, **extra: str) -> Pod:
    return build_pod(
        "c1", name, node, "Pending", {**build_resource_list(cpu, memory), **extra}, "pg1", {}, {}
    )


def _node(name: str, **extra: str) -> Node:
    cpu, memory = ("4", "16Gi") if name == "n2" else ("2", "4Gi")
    node = build_node(name, {**build_resource_list(cpu, memory, PODS), **extra}, {})
    doc = msgspec.to_builtins(node)
    doc["status"]["capacity"] = build_resource_list(
        cpu, memory, PODS
    )  # addResource: allocatable only
    return msgspec.convert(doc, Node)


CASES = [
    pytest.param(
        {
            "binpack.weight": 10,
            "binpack.cpu": 2,
            "binpack.memory": 3,
            "binpack.resources": "nvidia.com/gpu, example.com/foo",
            "binpack.resources.nvidia.com/gpu": 7,
            "binpack.resources.example.com/foo": 8,
        },
        {
            "c1/p1": {"n1": 700, "n2": 137.5, "n3": 0},
            "c1/p2": {"n1": 0, "n2": 375, "n3": 0},
            "c1/p3": {"n1": 0, "n2": 531.25, "n3": 0},
            "c1/p4": {"n1": 0, "n2": 173.076923076, "n3": 0},
        },
        id="single job",
    ),
    pytest.param(
        {
            "binpack.weight": 1,
            "binpack.cpu": 1,
            "binpack.memory": 1,
            "binpack.resources": "nvidia.com/gpu",
            "binpack.resources.nvidia.com/gpu": 23,
        },
        {
            "c1/p1": {"n1": 75, "n2": 15.625, "n3": 0},
            "c1/p2": {"n1": 0, "n2": 37.5, "n3": 0},
            "c1/p3": {"n1": 0, "n2": 50.5, "n3": 0},
            "c1/p4": {"n1": 0, "n2": 50, "n3": 0},
        },
        id="single job",
    ),
]


@pytest.mark.parametrize(("arguments", "expected"), CASES)
def test_node(arguments: dict[str, Any], expected: dict[str, dict[str, float]]) -> None:
    objects = [
        build_queue("c1", 1, None),
        _node("n1"),
        _node("n2", **{GPU: "4"}),
        _node("n3", **{FOO: "16"}),
        build_pod_group("pg1", "c1", "c1", 0, None, ""),
        _pod("p1", "n1", "1", "1Gi"),
        _pod("p2", "n3", "1.5", "0Gi"),
        _pod("p3", "", "2", "10Gi", **{GPU: "2"}),
        _pod("p4", "", "3", "4Gi", **{FOO: "3"}),
    ]
    option = plugin_option("binpack", "enableNodeOrder", arguments=arguments)
    ssn = session(objects, tiers_conf("allocate", [[option]]))
    placer = Placer(ssn)
    got = {
        task.key: dict(zip(ssn.nodes.names, placer.scores(task, slice(None)).tolist(), strict=True))
        for job in ssn.jobs.values()
        for task in job.tasks.values()
    }
    assert got.keys() == expected.keys()
    for task, scores in expected.items():
        for node, score in scores.items():
            assert abs(got[task][node] - score) <= EPS, (task, node, got[task])
