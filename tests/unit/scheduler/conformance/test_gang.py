"""Volcano ``pkg/scheduler/plugins/gang/gang_test.go``: ``TestShouldSkipUnschedulableForReleasing``,
one row per upstream case.

Upstream calls the helper on a hand-built job; what it decides shows at the end of a session:
gang's close hook writes no ``Unschedulable`` condition for a job that is short of its gang only
because scheduled pods are terminating. So each row is a session (allocate; gang with every
switch on) over the job's pods, and checks whether the PodGroup got that condition (expected
"skip" means no condition). The task statuses are made from pods as the cache makes them:
Running is a running pod on its node; Releasing a pod being deleted (on a node, or never
scheduled); Pending a pod without a node, here too big for any node so it stays Pending; and
Pipelined a pending pod that fits only onto the resources a releasing pod frees.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import pytest

from shared.models import Model, Pod
from tests.unit.scheduler.builders import plugin_option, schedule, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)

ONE = build_resource_list("1", "1Gi")
NODES = [build_node(f"node-{i}", build_resource_list("1", "1Gi"), {}) for i in (1, 2, 3)]
GANG = plugin_option(
    "gang", "enableJobReady", "enableJobPipelined", "enableJobStarving", "enableJobOrder"
)


def _task(name: str, status: str, node: str) -> Pod:
    req = build_resource_list("2", "2Gi") if status == "Pending" else ONE
    phase = "Running" if status == "Running" else "Pending"
    pod = build_pod("ns", name, node, phase, req, "job-1", {}, {})
    if status != "Releasing":
        return pod
    doc = msgspec.to_builtins(pod)
    doc["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return msgspec.convert(doc, Pod)


@dataclass
class Case:
    name: str
    min: int
    tasks: list[tuple[str, str, str]]  # (uid, status, nodeName) as upstream's newTask
    expected: bool


CASES = [
    Case(
        "partial termination",
        2,
        [("running", "Running", "node-1"), ("releasing", "Releasing", "node-2")],
        True,
    ),
    Case(
        "pending replacement still needs condition",
        2,
        [
            ("running", "Running", "node-1"),
            ("releasing", "Releasing", "node-2"),
            ("replacement", "Pending", ""),
        ],
        False,
    ),
    Case(
        "pipelined replacement still needs condition",
        2,
        [
            ("running", "Running", "node-1"),
            ("releasing", "Releasing", "node-2"),
            ("replacement", "Pipelined", "node-3"),
        ],
        False,
    ),
    Case(
        "never scheduled releasing task is not counted",
        1,
        [("releasing", "Releasing", "")],
        False,
    ),
    Case(
        "scheduled tasks below minAvailable",
        3,
        [("running", "Running", "node-1"), ("releasing", "Releasing", "node-2")],
        False,
    ),
]


def _objects(case: Case) -> list[Model]:
    objects: list[Model] = [
        build_queue("default", 1, None),
        *NODES,
        build_pod_group("job-1", "ns", "default", case.min, None, "Inqueue"),
    ]
    for uid, status, node in case.tasks:
        if status == "Pipelined":
            # node-3 is taken by a terminating pod of another job: the replacement fits only
            # onto what a terminating pod frees (there or on node-2), so it is pipelined.
            other = build_pod("ns", "other", node, "Running", ONE, "other", {}, {})
            doc = msgspec.to_builtins(other)
            doc["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
            objects += [
                build_pod_group("other", "ns", "default", 0, None, "Running"),
                msgspec.convert(doc, Pod),
                build_pod("ns", uid, "", "Pending", ONE, "job-1", {}, {}),
            ]
        else:
            objects.append(_task(uid, status, node))
    return objects


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_should_skip_unschedulable_for_releasing(case: Case) -> None:
    result = schedule(_objects(case), tiers_conf("allocate", [[GANG]]))
    if any(status == "Pipelined" for _, status, _ in case.tasks):
        assert "ns/replacement" in result.pipelined, result.pipelined
    conditions = {c.type: c.status for c in result.pod_groups["ns/job-1"].conditions}
    skipped = conditions.get("Unschedulable") != "True"
    assert skipped is case.expected, result.pod_groups["ns/job-1"]
