"""Volcano ``pkg/scheduler/plugins/tdm/tdm_test.go``: its three tests, one row per upstream case
(named as its ``t.Run``), same objects and arguments.

- ``Test_parseRevocableZone``: the window a ``tdm.revocable-zone.*`` argument stands for
  (its length in seconds, or an error), through the plugin's ``revocable_zone_window``.
- ``Test_TDM``: a session with tdm alone (``enableNodeOrder``, ``enablePredicate``): which
  nodes pass the predicates for the one task, and its score on each.
- ``Test_TDM_victimsFn``: a session with tdm alone (``enabledVictim``): how many victims the
  victim-tasks hook names (upstream sleeps one evict period first; Shoal applies none).

Upstream reads the wall clock and expects ``0:00-0:01`` windows to be closed, so its tests
assume they do not run in the first minute after midnight; the sessions here run at noon.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from services.scheduler.actions import default_actions
from services.scheduler.conf import parse_conf
from services.scheduler.framework.placement import Placer
from services.scheduler.plugins import default_plugins
from services.scheduler.plugins.tdm import revocable_zone_window
from services.scheduler.runner import run_session
from services.scheduler.snapshot import Snapshot
from shared.models import Model, Node, Pod, PodGroup
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)

NOON = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
EPS = 1e-8
RZ = "volcano.sh/revocable-zone"
PREEMPTABLE = "volcano.sh/preemptable"


@pytest.mark.parametrize(
    ("rz", "delta", "err"),
    [
        pytest.param(rz, delta, err, id=f"case {i}")
        for i, (rz, delta, err) in enumerate(
            [
                ("00:00_01:00", 0, True),
                ("00:00-01:00", 60 * 60, False),
                ("0:00-23:59", 23 * 60 * 60 + 59 * 60, False),
                ("0:00", 0, True),
                ("1:00-0:00", 23 * 60 * 60, False),
                ("1:0-0:0", 0, True),
                ("   1:00-0:00    ", 23 * 60 * 60, False),
                ("23:59-23:59", 24 * 60 * 60, False),
                ("63:59-23:59", 0, True),
            ]
        )
    ],
)
def test_parse_revocable_zone(rz: str, delta: int, err: bool) -> None:
    try:
        start, end = revocable_zone_window(rz, NOON)
    except ValueError:
        assert err
        assert delta == 0  # upstream's zero start and end
        return
    assert not err
    assert int(end.timestamp()) - int(start.timestamp()) == delta


def _annotated(pod: Pod, annotations: dict[str, str]) -> Pod:
    doc = msgspec.to_builtins(pod)
    doc["metadata"]["annotations"].update(annotations)
    return msgspec.convert(doc, Pod)


def _node(name: str, zone: str | None) -> Node:
    pods = {"Name": "pods", "Value": "10"}
    return build_node(name, build_resource_list("16", "64Gi", pods), {RZ: zone} if zone else {})


def _pending(name: str, annotations: dict[str, str]) -> Pod:
    pod = build_pod("c1", name, "", "Pending", build_resource_list("1", "1Gi"), "pg1", {}, {})
    return _annotated(pod, annotations)


NODES = [
    _node("n1", "rz1"),
    _node("n2", "rz1"),
    _node("n3", None),
    _node("n4", None),
    _node("n5", "rz2"),
]
TDM_CASES = [
    pytest.param(
        _pending("p1", {RZ: "*"}),
        {"n1": 100, "n2": 100, "n3": 0, "n4": 0},
        id="preemptable task rz available",
    ),
    pytest.param(_pending("p2", {}), {"n3": 0, "n4": 0}, id="not preemptable task"),
    pytest.param(
        _pending("p3", {RZ: "*"}),
        {"n1": 100, "n2": 100, "n3": 0, "n4": 0},
        id="preemptable task and multiple rz",
    ),
]


@pytest.mark.parametrize(("pod", "expected"), TDM_CASES)
def test_tdm(pod: Pod, expected: dict[str, float]) -> None:
    arguments = {"tdm.revocable-zone.rz1": "0:00-0:00", "tdm.revocable-zone.rz2": "0:00-0:01"}
    option = plugin_option("tdm", "enableNodeOrder", "enablePredicate", arguments=arguments)
    objects: list[Model] = [
        build_queue("c1", 1, None),
        *NODES,
        build_pod_group("pg1", "c1", "c1", 0, None, ""),
        pod,
    ]
    ssn = session(objects, tiers_conf("allocate", [[option]]), NOON)
    task = ssn.jobs["c1/pg1"].tasks[f"c1/{pod.metadata.name}"]
    placer = Placer(ssn)
    passed = placer.feasible(task, resources=False)
    predicated = [name for name, ok in zip(ssn.nodes.names, passed.tolist(), strict=True) if ok]
    assert sorted(predicated) == sorted(expected)
    scores = dict(zip(ssn.nodes.names, placer.scores(task, slice(None)).tolist(), strict=True))
    for node in predicated:
        assert abs(scores[node] - expected[node]) <= EPS, (node, scores)


def _running(ns: str, name: str, node: str, group: str, preemptable: str) -> Pod:
    pod = build_pod(ns, name, node, "Running", build_resource_list("1", "1Gi"), group, {}, {})
    return _annotated(pod, {PREEMPTABLE: preemptable})


P1_5 = [_running("c1", f"p{i}", "n1", "pg1", "true" if i <= 3 else "false") for i in range(1, 6)]
P6_10 = [_running("c2", f"p{i}", "n2", "pg2", "true") for i in range(6, 11)]
Q1, Q2 = build_queue("c1", 1, None), build_queue("c2", 1, None)
N1, N2 = _node("n1", "rz1"), _node("n2", "rz1")


def _pg(name: str, ns: str, annotations: dict[str, str]) -> PodGroup:
    doc = msgspec.to_builtins(build_pod_group(name, ns, ns, 0, None, ""))
    doc["metadata"]["annotations"] = annotations
    return msgspec.convert(doc, PodGroup)


def _pg1(key: str, value: str) -> PodGroup:
    return _pg("pg1", "c1", {f"volcano.sh/jdb-{key}": value})


def _pg2(key: str, value: str) -> PodGroup:
    return _pg("pg2", "c2", {f"volcano.sh/jdb-{key}": value})


ONE_MINUTE = {"tdm.revocable-zone.rz1": "0:00-0:01"}
VICTIM_CASES: list[tuple[list[Model], dict[str, Any], int]] = [
    (
        [_pg1("max-unavailable", "30%"), Q1, *P1_5, N1],
        {**ONE_MINUTE, "tdm.evict.period": "100ms"},
        2,
    ),
    (
        [_pg1("max-unavailable", "30%"), Q1, *P1_5, N1],
        {"tdm.revocable-zone.rz1": "0:00-0:00", "tdm.evict.period": "100ms"},
        0,
    ),
    ([_pg1("max-unavailable", "99%"), Q1, *P1_5, N1], {**ONE_MINUTE, "tdm.evict.period": "1s"}, 3),
    ([_pg2("max-unavailable", "50%"), Q2, *P6_10, N2], {**ONE_MINUTE, "tdm.evict.period": "1s"}, 3),
    (
        [
            _pg2("max-unavailable", "50%"),
            _pg1("max-unavailable", "90%"),
            Q1,
            Q2,
            *P1_5,
            *P6_10,
            N1,
            N2,
        ],
        {**ONE_MINUTE, "tdm.evict.period": "1s"},
        6,
    ),
    ([_pg2("max-unavailable", "3"), Q2, *P6_10, N2], {**ONE_MINUTE, "tdm.evict.period": "1s"}, 3),
    ([_pg2("min-available", "3"), Q2, *P6_10, N2], {**ONE_MINUTE, "tdm.evict.period": "1s"}, 2),
    ([_pg2("min-available", "30%"), Q2, *P6_10, N2], {**ONE_MINUTE, "tdm.evict.period": "1s"}, 3),
    (
        [_pg2("min-available", "2"), _pg1("max-unavailable", "3"), Q1, Q2, *P1_5, *P6_10, N1, N2],
        {**ONE_MINUTE, "tdm.evict.period": "1s"},
        6,
    ),
]


@pytest.mark.parametrize(
    ("objects", "arguments", "want"),
    [pytest.param(*case, id=f"case {i}") for i, case in enumerate(VICTIM_CASES)],
)
def test_tdm_victims_fn(objects: list[Model], arguments: dict[str, Any], want: int) -> None:
    option = plugin_option("tdm", "enabledVictim", arguments=arguments)
    conf = tiers_conf("shuffle", [[option]])
    assert len(session(objects, conf, NOON).victim_tasks([])) == want
    # ... and the shuffle action evicts exactly those.
    plugins, actions = default_plugins(), default_actions()
    parsed = parse_conf(conf, plugins=plugins, actions=actions)
    result = run_session(Snapshot.of(objects), parsed, NOON, plugins=plugins, actions=actions)
    assert len(result.evictions) == want
