"""Volcano ``pkg/scheduler/plugins/nodegroup/nodegroup_test.go``: its three tests, one row per
upstream case (named by its ``Name``), same objects and arguments.

- ``TestNodeGroup``: a session with nodegroup alone (``enableNodeOrder``, ``enablePredicate``,
  the case's ``enableHierarchy``): the one task's score on every node (all of them, as
  upstream's ``ssn.NodeOrderFn``) and its predicate code on every node.
- ``TestNodeGroupResourceLimits``: the same tier without hierarchy; the predicate code of the
  case's pending task on n1 and n2, with the queue's ``volcano.sh/nodegroup-resource-limits``.
- ``TestNodeGroupResourceLimitAllocationEvent``: the first task fits n1, is allocated there,
  and the second then overfills the group's limit.

Upstream's ``ssn.PredicateFn`` is read as the placer's static verdict per node (the node's
group against the queue's affinity) followed by the dynamic one (the limits); upstream
compares only the first status's code, so the rows do too.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import pytest

from services.scheduler.api import TaskInfo
from services.scheduler.api.status import Code, Status
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.session import Session
from services.scheduler.framework.statement import Statement
from shared.models import Model, Pod, Queue
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_resource_list,
)

GROUP = "volcano.sh/nodegroup-name"
LIMITS = "volcano.sh/nodegroup-resource-limits"
OK = Code.SUCCESS
UNRESOLVABLE = Code.UNRESOLVABLE


def make_queue(
    name: str,
    affinity: dict[str, Any] | None,
    *,
    parent: str = "",
    annotations: dict[str, str] | None = None,
) -> Queue:
    """``util.MakeQueue(name).Affinity(...).Parent(...).Annotations(...).Obj()``: weight 1,
    Open."""
    spec: dict[str, Any] = {"weight": 1}
    if affinity is not None:
        spec["affinity"] = affinity
    if parent:
        spec["parent"] = parent
    doc = {
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": spec,
        "status": {"state": "Open"},
    }
    return msgspec.convert(doc, Queue)


def affinity(
    required: list[str] | None = None,
    preferred: list[str] | None = None,
    anti_required: list[str] | None = None,
    anti_preferred: list[str] | None = None,
) -> dict[str, Any]:
    """A ``schedulingv1.Affinity`` literal; a sub-struct the Go literal leaves out is nil."""
    doc: dict[str, Any] = {}
    if required is not None or preferred is not None:
        doc["nodeGroupAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": required or [],
            "preferredDuringSchedulingIgnoredDuringExecution": preferred or [],
        }
    if anti_required is not None or anti_preferred is not None:
        doc["nodeGroupAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": anti_required or [],
            "preferredDuringSchedulingIgnoredDuringExecution": anti_preferred or [],
        }
    return doc


def verdicts(ssn: Session, task: TaskInfo) -> dict[str, Status | None]:
    """Per node, the first rejection (static, then dynamic), or None: ``ssn.PredicateFn``."""
    placer = Placer(ssn)
    static = placer.static(task)
    out: dict[str, Status | None] = {
        name: static.reasons[int(code)] if code >= 0 else None
        for name, code in zip(ssn.nodes.names, static.codes.tolist(), strict=True)
    }
    for found in placer.dynamic(task):
        for status, failed in found.failures:
            for row in np.flatnonzero(failed).tolist():
                name = ssn.nodes.names[row]
                out[name] = out[name] or status
    return out


def codes(ssn: Session, task: TaskInfo) -> dict[str, Code]:
    return {
        name: OK if status is None else status.code for name, status in verdicts(ssn, task).items()
    }


def nodegroup_conf(arguments: dict[str, Any], *, hierarchy: bool = False) -> str:
    switches = ("enableNodeOrder", "enablePredicate", *(("enableHierarchy",) if hierarchy else ()))
    return tiers_conf("allocate", [[plugin_option("nodegroup", *switches, arguments=arguments)]])


# -- TestNodeGroup --------------------------------------------------------------------------
def _pending(name: str, group: str) -> Pod:
    return build_pod("c1", name, "", "Pending", build_resource_list("2", "4Gi"), group, None, None)


P1, P2, P3, P4, P5, P6 = (_pending(f"p{i}", f"pg{i}") for i in range(1, 7))
N1 = build_node("n1", build_resource_list("2", "4Gi"), {GROUP: "group1"})
N2 = build_node("n2", build_resource_list("4", "16Gi"), {GROUP: "group2"})
N3 = build_node("n3", build_resource_list("4", "16Gi"), {GROUP: "group3"})
N4 = build_node("n4", build_resource_list("4", "16Gi"), {GROUP: "group4"})
N5 = build_node("n5", build_resource_list("4", "16Gi"), {})
NODES = [N1, N2, N3, N4, N5]

PG1 = build_pod_group("pg1", "c1", "q1", 0, None, "")
PG2 = build_pod_group("pg2", "c1", "q2", 0, None, "")
PG3 = build_pod_group("pg3", "c1", "q1-child", 0, None, "")
PG4 = build_pod_group("pg4", "c1", "q-no-affinity-child", 0, None, "")
PG5 = build_pod_group("pg5", "c1", "root-no-affinity", 0, None, "")
PG6 = build_pod_group("pg6", "c1", "q3", 0, None, "")

ROOT_Q = make_queue(
    "root", affinity(["group1", "group3"], ["group3"], ["group2", "group4"], ["group4"])
)
NO_AFFINITY_ROOT_Q = make_queue("root-no-affinity", None)
QUEUE1 = make_queue(
    "q1",
    affinity(["group1", "group3"], ["group3"], ["group2", "group4"], ["group4"]),
    parent="root",
)
QUEUE2 = make_queue("q2", affinity(["group1"], ["group3"], ["group2"], ["group4"]), parent="root")
QUEUE3 = make_queue("q3", affinity(preferred=["group1", "group3"]))
NO_AFFINITY_Q = make_queue("q-no-affinity", None, parent="root")
QUEUE1_CHILD = make_queue("q1-child", None, parent="q1")
NO_AFFINITY_Q_CHILD = make_queue("q-no-affinity-child", None, parent="q-no-affinity")

SUBSET_SCORES = {"n1": 100.0, "n2": 0.0, "n3": 150.0, "n4": -1.0, "n5": 0.0}
SUBSET_CODES = {"n1": OK, "n2": UNRESOLVABLE, "n3": OK, "n4": OK, "n5": UNRESOLVABLE}
ZERO = dict.fromkeys(("n1", "n2", "n3", "n4", "n5"), 0.0)

NODE_GROUP_CASES = [
    pytest.param(
        [PG1, QUEUE1, P1],
        {},
        False,
        SUBSET_SCORES,
        SUBSET_CODES,
        id="case: soft constraints is subset of hard constraints",
    ),
    pytest.param(
        [PG2, QUEUE2, P2],
        {},
        False,
        {"n1": 100.0, "n2": 0.0, "n3": 50.0, "n4": -1.0, "n5": 0.0},
        SUBSET_CODES,
        id="case: soft constraints is not subset of hard constraints",
    ),
    pytest.param(
        [PG5, NO_AFFINITY_ROOT_Q, P5],
        {"strict": False},
        False,
        ZERO,
        {"n1": UNRESOLVABLE, "n2": UNRESOLVABLE, "n3": UNRESOLVABLE, "n4": UNRESOLVABLE, "n5": OK},
        id="case: affinity is not set for the queue, pods still cannot be scheduled to nodes "
        "with the nodegroup label when strict=false",
    ),
    pytest.param(
        [PG3, ROOT_Q, QUEUE1, QUEUE1_CHILD, P3],
        {},
        True,
        SUBSET_SCORES,
        SUBSET_CODES,
        id="case: affinity inherits from parent queue",
    ),
    pytest.param(
        [PG4, ROOT_Q, NO_AFFINITY_Q, NO_AFFINITY_Q_CHILD, P4],
        {},
        True,
        SUBSET_SCORES,
        SUBSET_CODES,
        id="case: affinity inherits from ancestor queue if parent queue has no affinity",
    ),
    pytest.param(
        # pg4 names q-no-affinity-child, which this case leaves out: upstream's snapshot
        # drops a job of a missing queue, so its loop checks nothing. Shoal's test session
        # keeps the job (only run_session drops it), so the row checks the table's values.
        [PG4, NO_AFFINITY_Q, P4],
        {},
        False,
        ZERO,
        dict.fromkeys(("n1", "n2", "n3", "n4", "n5"), UNRESOLVABLE),
        id="case: queue without affinity",
    ),
    pytest.param(
        [PG6, QUEUE3, P6],
        {"enablePreferredOrder": True},
        False,
        {"n1": 50.0, "n2": 0.0, "n3": 25.0, "n4": 0.0, "n5": 0.0},
        {"n1": OK, "n2": UNRESOLVABLE, "n3": OK, "n4": UNRESOLVABLE, "n5": UNRESOLVABLE},
        id="case: preferred nodegroup priority ordering",
    ),
]


@pytest.mark.parametrize(("objects", "arguments", "hierarchy", "scores", "want"), NODE_GROUP_CASES)
def test_node_group(
    objects: list[Model],
    arguments: dict[str, Any],
    hierarchy: bool,
    scores: dict[str, float],
    want: dict[str, Code],
) -> None:
    ssn = session([*NODES, *objects], nodegroup_conf(arguments, hierarchy=hierarchy))
    tasks = [task for job in ssn.jobs.values() for task in job.tasks.values()]
    assert tasks
    for task in tasks:
        placer = Placer(ssn)
        got = dict(zip(ssn.nodes.names, placer.scores(task, slice(None)).tolist(), strict=True))
        assert got == scores, task.key
        assert codes(ssn, task) == want, task.key


# -- TestNodeGroupResourceLimits ------------------------------------------------------------
def _limit_pod(name: str, node: str, phase: str, group: str) -> Pod:
    return build_pod("limit", name, node, phase, build_resource_list("2", "4Gi"), group, None, None)


LIMIT_NODE = build_resource_list("16", "64Gi", {"Name": "pods", "Value": "32"})
LIMIT_NODES = [
    build_node("n1", LIMIT_NODE, {GROUP: "group1"}),
    build_node("n2", LIMIT_NODE, {GROUP: "group2"}),
]
LIMIT_AFFINITY = affinity(["group1", "group2"], ["group1"])


def _limit_case(
    name: str,
    queue: str,
    annotation: str | None,
    want: dict[str, Code],
    *,
    used: bool = False,
) -> Any:
    annotations = {LIMITS: annotation} if annotation is not None else None
    objects: list[Model] = [make_queue(queue, LIMIT_AFFINITY, annotations=annotations)]
    if used:
        objects += [
            _limit_pod("used", "n1", "Running", "pg-used"),
            build_pod_group("pg-used", "limit", queue, 0, None, "Running"),
        ]
    objects += [
        _limit_pod("pending", "", "Pending", "pg-pending"),
        build_pod_group("pg-pending", "limit", queue, 0, None, ""),
    ]
    return pytest.param(objects, want, id=name)


BOTH = {"n1": OK, "n2": OK}
ONLY_N2 = {"n1": UNRESOLVABLE, "n2": OK}
RESOURCE_LIMIT_CASES = [
    _limit_case("no annotation keeps existing behavior", "q-no-limit", None, BOTH),
    _limit_case(
        "under nodegroup limit permits preferred nodegroup",
        "q-under-limit",
        '{"group1":{"cpu":"3","memory":"8Gi"}}',
        BOTH,
    ),
    _limit_case(
        "omitted resource dimension is unlimited",
        "q-cpu-only-limit",
        '{"group1":{"cpu":"3"}}',
        BOTH,
    ),
    _limit_case(
        "specified resource dimension is enforced",
        "q-cpu-only-over-limit",
        '{"group1":{"cpu":"1"}}',
        ONLY_N2,
    ),
    _limit_case(
        "over nodegroup limit rejects preferred nodegroup and permits fallback",
        "q-over-limit",
        '{"group1":{"cpu":"3","memory":"8Gi"}}',
        ONLY_N2,
        used=True,
    ),
    _limit_case(
        "invalid annotation rejects queue tasks",
        "q-invalid-limit",
        '{"group1":{"cpu":',
        {"n1": UNRESOLVABLE, "n2": UNRESOLVABLE},
    ),
]


@pytest.mark.parametrize(("objects", "want"), RESOURCE_LIMIT_CASES)
def test_node_group_resource_limits(objects: list[Model], want: dict[str, Code]) -> None:
    ssn = session([*LIMIT_NODES, *objects], nodegroup_conf({}))
    task = ssn.jobs["limit/pg-pending"].tasks["limit/pending"]
    assert codes(ssn, task) == want


# -- TestNodeGroupResourceLimitAllocationEvent ----------------------------------------------
def test_node_group_resource_limit_allocation_event() -> None:
    """allocation event updates nodegroup usage"""
    queue = make_queue(
        "q-event-limit",
        affinity(["group1"]),
        annotations={LIMITS: '{"group1":{"cpu":"3","memory":"8Gi"}}'},
    )
    objects: list[Model] = [
        build_node("n1", LIMIT_NODE, {GROUP: "group1"}),
        queue,
        build_pod_group("pg-1", "limit", "q-event-limit", 0, None, ""),
        build_pod_group("pg-2", "limit", "q-event-limit", 0, None, ""),
        _limit_pod("pending-1", "", "Pending", "pg-1"),
        _limit_pod("pending-2", "", "Pending", "pg-2"),
    ]
    ssn = session(objects, nodegroup_conf({}))
    task1 = ssn.jobs["limit/pg-1"].tasks["limit/pending-1"]
    task2 = ssn.jobs["limit/pg-2"].tasks["limit/pending-2"]
    assert codes(ssn, task1) == {"n1": OK}
    Statement(ssn).allocate(task1, ssn.nodes.index["n1"])
    assert codes(ssn, task2) == {"n1": UNRESOLVABLE}
