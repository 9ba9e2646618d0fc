"""Volcano ``pkg/scheduler/plugins/resource-strategy-fit/resource_strategy_fit_test.go``: every
test function, one row per upstream case (``t.Run`` names as row ids).

``Test_calculateWeight`` reads the plugin's parsed ``weight`` and ``resources``;
``TestScore`` builds a node whose ``used`` is a running pod's request and scores the pending
task on it (cpu in millicores and memory in bytes, as the Go ``Resource`` fields);
``TestResourceStrategyFitPlugin`` scores every task on every node of a session with the
plugin alone (``enableNodeOrder``), as ``ssn.NodeOrderFn``; ``TestAllocate`` runs allocate
with the case's tiers; the helper tests call the module's helpers.
``TestResourceStrategyFitPlugin_OnSessionOpen`` opens the plugin with zero weights on an
empty session (upstream builds the struct with zero weights; here ``resourceStrategyFitWeight:
0``) and checks it registers no node order.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.framework.placement import Placer
from services.scheduler.plugins import resource_strategy_fit as rsf
from shared.models import Model, Node, Pod
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
    check,
    common,
)

EPS = 1e-8
GPU, FOO = "nvidia.com/gpu", "example.com/foo"
PODS = {"Name": "pods", "Value": "10"}
LEAST, MOST = rsf.LEAST_ALLOCATED, rsf.MOST_ALLOCATED


def _strategy(kind: str, weight: int) -> dict[str, Any]:
    return {"type": kind, "weight": weight}


# -- Test_calculateWeight --------------------------------------------------------------------
CALCULATE_WEIGHT = [
    pytest.param(
        {
            "resourceStrategyFitWeight": 10,
            "resources": {"cpu": _strategy(MOST, 1), "memory": _strategy(LEAST, 2)},
        },
        10,
        {"cpu": (MOST, 1), "memory": (LEAST, 2)},
        id="test1",
    ),
    pytest.param(
        {"resources": {"cpu": _strategy(MOST, 1), "memory": _strategy(LEAST, 2)}},
        10,
        {"cpu": (MOST, 1), "memory": (LEAST, 2)},
        id="test2",
    ),
    pytest.param(
        {"resourceStrategyFitWeight": 10},
        10,
        {"cpu": (LEAST, 1), "memory": (LEAST, 1)},
        id="test3",
    ),
    pytest.param(
        {
            "ResourceStrategyFitPlusWeight": 10,
            "resources": {"cpu": _strategy(LEAST, 1), "*": _strategy(MOST, 2)},
        },
        10,
        {"cpu": (LEAST, 1)},
        id="test4",
    ),
    pytest.param(
        {
            "ResourceStrategyFitPlusWeight": 10,
            "resources": {
                "nvidia.com/gpu/*": _strategy(MOST, 3),
                "cloudml.gpu**": _strategy(LEAST, 2),
            },
        },
        10,
        {"nvidia.com/gpu/*": (MOST, 3)},
        id="test5",
    ),
    pytest.param(
        {
            "ResourceStrategyFitPlusWeight": 10,
            "resources": {
                "memory": _strategy(LEAST, 1),
                "cloudml.*.gpu": _strategy(MOST, 2),
                "*.com/gpu": _strategy(MOST, 3),
            },
        },
        10,
        {"memory": (LEAST, 1)},
        id="test6",
    ),
    pytest.param(
        {
            "ResourceStrategyFitPlusWeight": 10,
            "resources": {
                "nvidia.com/gpu/*": _strategy(MOST, 3),
                "example.com/foo/*": _strategy(LEAST, 2),
                "*test*resource*": _strategy(MOST, 4),
                "*": _strategy(LEAST, 1),
            },
        },
        10,
        {"nvidia.com/gpu/*": (MOST, 3), "example.com/foo/*": (LEAST, 2)},
        id="test7",
    ),
]


@pytest.mark.parametrize(("arguments", "weight", "resources"), CALCULATE_WEIGHT)
def test_calculate_weight(
    arguments: dict[str, Any], weight: int, resources: dict[str, tuple[str, int]]
) -> None:
    plugin = rsf.new(arguments)
    assert plugin.weight == weight
    assert {n: (s.type, s.weight) for n, s in plugin.resources.items()} == resources


# -- TestScore -------------------------------------------------------------------------------
def _least(weight: int, cpu: int, memory: int) -> dict[str, Any]:
    return {
        "resourceStrategyFitWeight": weight,
        "resources": {"cpu": _strategy(LEAST, cpu), "memory": _strategy(LEAST, memory)},
    }


def _most(weight: int, cpu: int, memory: int) -> dict[str, Any]:
    return {
        "resourceStrategyFitWeight": weight,
        "resources": {"cpu": _strategy(MOST, cpu), "memory": _strategy(MOST, memory)},
    }


def _mixed(weight: int, cpu: str, cpu_weight: int, memory: str, memory_weight: int) -> Any:
    return {
        "resourceStrategyFitWeight": weight,
        "resources": {
            "cpu": _strategy(cpu, cpu_weight),
            "memory": _strategy(memory, memory_weight),
        },
    }


def _pod_level(kind: str, weights: str) -> dict[str, str]:
    return {rsf.STRATEGY_ANNOTATION: kind, rsf.WEIGHT_ANNOTATION: weights}


def _milli(value: int) -> str:
    return f"{value}m"


# (task cpu m, memory bytes, annotations), (used cpu m, used memory, alloc cpu m, alloc memory)
SCORE = [
    pytest.param((100, 100, {}), (200, 200, 500, 500), _least(10, 1, 1), 400, id="test1"),
    pytest.param((100, 100, {}), (200, 200, 400, 400), _least(10, 1, 1), 250, id="test2"),
    pytest.param((100, 100, {}), (200, 200, 500, 500), _most(10, 1, 1), 600, id="test3"),
    pytest.param((100, 100, {}), (200, 200, 400, 400), _most(10, 1, 1), 750, id="test4"),
    pytest.param(
        (100, 100, {}),
        (200, 200, 500, 500),
        _mixed(10, LEAST, 2, MOST, 1),
        466.66666667,
        id="test5",
    ),
    pytest.param(
        (100, 100, {}),
        (200, 200, 500, 500),
        _mixed(10, LEAST, 1, MOST, 2),
        533.33333333,
        id="test6",
    ),
    pytest.param(
        (0, 100, {}), (200, 200, 500, 500), _mixed(10, LEAST, 1, MOST, 2), 600, id="test7"
    ),
    pytest.param(
        (100, 100, {}), (200, 200, 0, 400), _mixed(10, LEAST, 1, MOST, 2), 500, id="test8"
    ),
    pytest.param(
        (100, 100, {}),
        (200, 200, 500, 500),
        {"resourceStrategyFitWeight": 10, "resources": {"memory": _strategy(MOST, 2)}},
        600,
        id="test9",
    ),
    pytest.param(
        (100, 100, _pod_level(LEAST, '{"cpu": 2, "memory": 1}')),
        (200, 200, 500, 500),
        _least(10, 1, 1),
        400,
        id="pod-level-scoring-least-allocated",
    ),
    pytest.param(
        (100, 100, _pod_level(MOST, '{"cpu": 1, "memory": 2}')),
        (200, 200, 500, 500),
        _least(10, 1, 1),
        600,
        id="pod-level-scoring-most-allocated",
    ),
    pytest.param(
        (100, 100, _pod_level(LEAST, "invalid-json")),
        (200, 200, 500, 500),
        _least(10, 1, 1),
        0,
        id="pod-level-scoring-invalid-json",
    ),
    pytest.param(
        (100, 100, _pod_level(LEAST, '{"cpu": 2}')),
        (200, 200, 500, 500),
        _least(10, 1, 1),
        400,
        id="pod-level-scoring-missing-resource-weight",
    ),
    pytest.param(
        (0, 0, {}), (200, 200, 500, 500), _least(10, 1, 1), 0, id="zero-resources-requested"
    ),
    pytest.param(
        (100, 100, {}), (500, 500, 500, 500), _least(10, 1, 1), 0, id="node-fully-allocated"
    ),
    pytest.param(
        (100, 100, {}),
        (200, 200, 500, 500),
        _mixed(10, LEAST, 3, MOST, 1),
        450,
        id="mixed-scoring-strategies",
    ),
    pytest.param(
        (100, 100, {}), (200, 200, 500, 500), _least(20, 5, 5), 800, id="high-weight-scenario"
    ),
]


def _requests(cpu: int, memory: int) -> dict[str, str]:
    return {
        k: v for k, v in (("cpu", _milli(cpu)), ("memory", str(memory))) if v not in ("0m", "0")
    }


def _annotated(pod: Pod, annotations: dict[str, str]) -> Pod:
    doc = msgspec.to_builtins(pod)
    doc["metadata"]["annotations"].update(annotations)
    return msgspec.convert(doc, Pod)


@pytest.mark.parametrize(("task", "node", "arguments", "want"), SCORE)
def test_score(
    task: tuple[int, int, dict[str, str]],
    node: tuple[int, int, int, int],
    arguments: dict[str, Any],
    want: float,
) -> None:
    cpu, memory, annotations = task
    used_cpu, used_memory, alloc_cpu, alloc_memory = node
    alloc = {"cpu": _milli(alloc_cpu), "memory": str(alloc_memory)}
    objects: list[Model] = [
        build_queue("c1", 1, None),
        build_node("n1", alloc, {}),
        build_pod_group("pg1", "c1", "c1", 0, None, "Inqueue"),
        build_pod("c1", "used", "n1", "Running", _requests(used_cpu, used_memory), "pg1", {}, {}),
        _annotated(
            build_pod("c1", "p", "", "Pending", _requests(cpu, memory), "pg1", {}, {}),
            annotations,
        ),
    ]
    option = plugin_option(rsf.NAME, "enableNodeOrder", arguments=arguments)
    ssn = session(objects, tiers_conf("allocate", [[option]]))
    scores = Placer(ssn).scores(ssn.jobs["c1/pg1"].tasks["c1/p"], slice(None))
    assert abs(float(scores[0]) - want) <= EPS, scores


# -- Test_mostRequestedScore / Test_leastRequestedScore ---------------------------------------
HELPERS = [
    pytest.param((0.0, 0.0, 0.0, 0), 0.0, id="test1"),
    pytest.param((1.0, 2.0, 2.0, 1), None, id="test2"),
]


@pytest.mark.parametrize(("args", "want"), HELPERS)
def test_most_requested_score(args: tuple[float, float, float, int], want: float | None) -> None:
    assert rsf.most_requested(*args) == want


@pytest.mark.parametrize(("args", "want"), HELPERS)
def test_least_requested_score(args: tuple[float, float, float, int], want: float | None) -> None:
    assert rsf.least_requested(*args) == want


# -- TestResourceStrategyFitPlugin_OnSessionOpen ----------------------------------------------
@pytest.mark.parametrize("case", ["test1"])
def test_resource_strategy_fit_plugin_on_session_open(case: str) -> None:
    option = plugin_option(rsf.NAME, "enableNodeOrder", arguments={"resourceStrategyFitWeight": 0})
    ssn = session([], tiers_conf("allocate", [[option]]))
    assert ssn.points.node_order.all == []
    assert ssn.points.dynamic_predicate.all == []


# -- TestResourceStrategyFitPlugin -----------------------------------------------------------
def _scalar_pod(name: str, cpu: str, memory: str, **extra: str) -> Pod:
    req = {**build_resource_list(cpu, memory), **extra}
    return build_pod("c1", name, "", "Pending", req, "pg1", {}, {})


def _scalar_node(name: str, **extra: str) -> Node:
    return build_node(name, {**build_resource_list("4", "4Gi", PODS), **extra}, {})


PLUGIN = [
    pytest.param(
        [
            _scalar_pod("p1", "1", "1Gi", **{FOO: "2"}),
            _scalar_pod("p2", "1", "1Gi", **{FOO: "3"}),
            _scalar_pod("p3", "1", "10Gi", **{GPU: "2"}),
            _scalar_pod("p4", "1", "1Gi", **{GPU: "3"}),
        ],
        [
            _scalar_node("n1", **{GPU: "10"}),
            _scalar_node("n2", **{GPU: "5"}),
            _scalar_node("n3", **{FOO: "10"}),
            _scalar_node("n4", **{FOO: "5"}),
        ],
        {
            "resourceStrategyFitWeight": 10,
            "resources": {GPU: _strategy(MOST, 1), FOO: _strategy(LEAST, 1)},
        },
        {
            "c1/p1": {"n1": 0, "n2": 0, "n3": 800, "n4": 600},
            "c1/p2": {"n1": 0, "n2": 0, "n3": 700, "n4": 400},
            "c1/p3": {"n1": 200, "n2": 400, "n3": 0, "n4": 0},
            "c1/p4": {"n1": 300, "n2": 600, "n3": 0, "n4": 0},
        },
        id="single job",
    ),
    pytest.param(
        [_scalar_pod("p5", "1", "1Gi", **{GPU: "4", FOO: "4"})],
        # n6 adds example.com/foo twice (5, then 10): the later value stands.
        [_scalar_node("n5", **{GPU: "10", FOO: "5"}), _scalar_node("n6", **{FOO: "10"})],
        {
            "resourceStrategyFitWeight": 10,
            "resources": {GPU: _strategy(MOST, 1), FOO: _strategy(LEAST, 2)},
        },
        {"c1/p5": {"n5": 266.66666666, "n6": 399.99999999}},
        id="single job",
    ),
]


def node_order(objects: list[Model], arguments: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Every task's ``ssn.NodeOrderFn`` on every node, the plugin alone in the tiers."""
    option = plugin_option(rsf.NAME, "enableNodeOrder", arguments=arguments)
    ssn = session(objects, tiers_conf("allocate", [[option]]))
    placer = Placer(ssn)
    return {
        task.key: dict(zip(ssn.nodes.names, placer.scores(task, slice(None)).tolist(), strict=True))
        for job in ssn.jobs.values()
        for task in job.tasks.values()
    }


def assert_scores(got: dict[str, dict[str, float]], expected: dict[str, dict[str, float]]) -> None:
    assert got.keys() == expected.keys()
    for task, scores in expected.items():
        for node, score in scores.items():
            assert abs(got[task][node] - score) <= 1e-6, (task, node, got[task])


@pytest.mark.parametrize(("pods", "nodes", "arguments", "expected"), PLUGIN)
def test_resource_strategy_fit_plugin(
    pods: list[Pod],
    nodes: list[Node],
    arguments: dict[str, Any],
    expected: dict[str, dict[str, float]],
) -> None:
    objects: list[Model] = [
        build_queue("c1", 1, None),
        *nodes,
        build_pod_group("pg1", "c1", "c1", 0, None, ""),
        *pods,
    ]
    assert_scores(node_order(objects, arguments), expected)


# -- TestAllocate ----------------------------------------------------------------------------
def _allocate_cases() -> list[Any]:
    kind = "nodeResourceType"
    worker = {"volcano.sh/task-spec": "worker"}

    def pod(name: str, node: str, phase: str, selector: str, gpu: bool) -> Pod:
        req = {**build_resource_list("1", "1G"), **({GPU: "2"} if gpu else {})}
        return build_pod("c1", name, node, phase, req, "pg1", worker, {kind: selector})

    def node(name: str, label: str, gpu: bool) -> Node:
        alloc = {**build_resource_list("5", "10Gi", PODS), **({GPU: "10"} if gpu else {})}
        return build_node(name, alloc, {kind: label})

    nodes = [node("n1", "gpu", True), node("n2", "gpu", True)]
    nodes += [node("n3", "cpu", False), node("n4", "cpu", False)]
    group = build_pod_group("pg1", "c1", "c1", 1, None, "Inqueue")
    queue = build_queue("c1", 1, None)
    return [
        common(
            Name="GPU MostAllocated",
            PodGroups=[group],
            Pods=[pod("p1", "", "Pending", "gpu", True), pod("p2", "n2", "Running", "gpu", True)],
            Nodes=nodes,
            Queues=[queue],
            ExpectBindMap={"c1/p1": "n2"},
            ExpectBindsNum=1,
        ),
        common(
            Name="cpu LeastAllocated",
            PodGroups=[group],
            Pods=[pod("p3", "", "Pending", "cpu", False), pod("p4", "n3", "Running", "cpu", False)],
            Nodes=nodes,
            Queues=[queue],
            ExpectBindMap={"c1/p3": "n4"},
            ExpectBindsNum=1,
        ),
    ]


ALLOCATE_TIERS = [
    [
        plugin_option(
            rsf.NAME,
            "enableNodeOrder",
            arguments={
                "resourceStrategyFitWeight": 10,
                "resources": {GPU: _strategy(MOST, 2), "cpu": _strategy(LEAST, 1)},
            },
        ),
        plugin_option(
            "gang", "enableJobOrder", "enableJobReady", "enableJobPipelined", "enableJobStarving"
        ),
        plugin_option("drf", "enablePreemptable", "enableJobOrder"),
        plugin_option("proportion", "enableQueueOrder", "enableReclaimable", "enabledAllocatable"),
        plugin_option("predicates", "enablePredicate"),
        plugin_option("nodeorder", "enableNodeOrder"),
    ]
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in _allocate_cases()])
def test_allocate(case: Any) -> None:
    check(case, tiers_conf("allocate", ALLOCATE_TIERS))


# -- Test_findResourceConfigWithPrefix -------------------------------------------------------
def _table(**entries: tuple[str, int]) -> dict[str, rsf.ResourceStrategy]:
    return {name: rsf.ResourceStrategy(kind, weight) for name, (kind, weight) in entries.items()}


FIND = [
    pytest.param(
        "nvidia.com/gpu",
        {"nvidia.com/gpu": (MOST, 3), "nvidia.com/*": (LEAST, 1)},
        (MOST, 3),
        id="exact_match_priority",
    ),
    pytest.param(
        "nvidia.com/gpu/v100",
        {"nvidia.com/gpu/*": (MOST, 2), "nvidia.com/*": (LEAST, 1)},
        (MOST, 2),
        id="longest_prefix_match",
    ),
    pytest.param("example.com/foo", {"nvidia.com/gpu/*": (MOST, 2)}, None, id="no_match_found"),
    pytest.param("any.resource", {}, None, id="empty_resources_map"),
    pytest.param(
        "cloudml.gpu/tensorflow/v2",
        {
            "cloudml.gpu/tensorflow/*": (MOST, 3),
            "cloudml.gpu/*": (LEAST, 2),
            "cloudml/*": (MOST, 1),
        },
        (MOST, 3),
        id="multiple_valid_wildcards_longest_match",
    ),
]


@pytest.mark.parametrize(("name", "resources", "want"), FIND)
def test_find_resource_config_with_prefix(
    name: str, resources: dict[str, tuple[str, int]], want: tuple[str, int] | None
) -> None:
    found = rsf.find_resource_config(name, _table(**resources))
    assert (None if found is None else (found.type, found.weight)) == want
