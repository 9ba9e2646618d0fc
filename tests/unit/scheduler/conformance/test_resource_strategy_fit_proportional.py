"""Volcano ``pkg/scheduler/plugins/resource-strategy-fit/proportional_test.go``:
``Test_checkNodeResourceIsProportional``, one row per upstream case. The node's idle is its
allocatable (nothing placed); the plugin's proportional predicate (``nvidia.com/gpu``: 4 cpu
and 4G memory kept per idle GPU) is asked about the task on that node.
"""

from __future__ import annotations

import pytest

from services.scheduler.api.status import Code
from services.scheduler.plugins import resource_strategy_fit as rsf
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
)

GPU = "nvidia.com/gpu"
ARGUMENTS = {
    "proportional": {
        "enable": True,
        "resources": GPU,
        "resourceProportion": {f"{GPU}.cpu": 4, f"{GPU}.memory": 4},
    }
}


def _resources(cpu: str, memory: str, gpu: str) -> dict[str, str]:
    """``api.BuildResourceListWithGPU``."""
    return {"cpu": cpu, "memory": memory, GPU: gpu}


T1 = _resources("4", "4G", "0")
T2 = _resources("10", "10G", "0")
T3 = _resources("10", "10G", "1")
N1 = _resources("30", "30G", "6")
N2 = _resources("26", "26G", "2")

CASES = [
    pytest.param(T1, N1, Code.SUCCESS, id="cpu_task_less_than_reserved_resource"),
    pytest.param(T2, N1, Code.UNRESOLVABLE, id="cpu_task_greater_than_reserved_resource"),
    pytest.param(T3, N1, Code.SUCCESS, id="gpu_task_no_proportional_check"),
    pytest.param(T2, N2, Code.SUCCESS, id="cpu_task_less_than_idle_resource"),
]


@pytest.mark.parametrize(("task", "node", "want"), CASES)
def test_check_node_resource_is_proportional(
    task: dict[str, str], node: dict[str, str], want: Code
) -> None:
    objects = [
        build_queue("c1", 1, None),
        build_node("n1", node, {}),
        build_pod_group("pg1", "c1", "c1", 0, None, "Inqueue"),
        build_pod("c1", "t1", "", "Pending", task, "pg1", {}, {}),
    ]
    option = plugin_option(rsf.NAME, "enablePredicate", arguments=ARGUMENTS)
    ssn = session(objects, tiers_conf("allocate", [[option]]))
    [predicate] = ssn.points.dynamic_predicate.all
    verdict = predicate(ssn.jobs["c1/pg1"].tasks["c1/t1"], ssn.nodes)
    if want is Code.SUCCESS:
        assert verdict is None or bool(verdict.passed[0])
    else:
        assert verdict is not None and not verdict.passed[0]
        [(status, failed)] = verdict.failures
        assert status.code is want and bool(failed[0])
        assert status.message == f"proportional of resource {GPU} check failed"
