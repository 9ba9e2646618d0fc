"""resource-strategy-fit reads a pod's own ``volcano.sh/resource-strategy-scoring-type`` and
``-weight`` annotations: two pods of one shape and request that differ only there must not
share cached node scores (the placement cache is keyed by shape and request)."""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.plugins import resource_strategy_fit as rsf
from tests.unit.scheduler.builders import plugin_option, schedule, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)

PODS = {"Name": "pods", "Value": "10"}
CONF = tiers_conf(
    "allocate",
    [[plugin_option("resource-strategy-fit", "enableNodeOrder"), plugin_option("predicates")]],
)


def _pod(name: str, group: str, node: str, phase: str, strategy: str | None) -> Any:
    pod = build_pod("ns", name, node, phase, build_resource_list("1", "1G"), group, {}, {})
    if strategy is not None:
        pod.metadata.annotations[rsf.STRATEGY_ANNOTATION] = strategy
        pod.metadata.annotations[rsf.WEIGHT_ANNOTATION] = '{"cpu": 1}'
    return pod


@pytest.mark.parametrize(
    "strategies",
    [(None, rsf.MOST_ALLOCATED), (rsf.MOST_ALLOCATED, None)],
    ids=["default-first", "annotated-first"],
)
def test_pods_of_one_shape_score_by_their_own_strategy(strategies: tuple[str | None, ...]) -> None:
    """busy has 3 of 8 CPUs used, idle none: the default LeastAllocated pod goes to idle, the
    MostAllocated one to busy, whichever is placed first."""
    groups = [build_pod_group(f"pg{i}", "ns", "q", 1, {}, "Inqueue") for i in (1, 2)]
    pods = [_pod(f"p{i}", f"pg{i}", "", "Pending", s) for i, s in enumerate(strategies, 1)]
    filler = [_pod(f"f{i}", "pg0", "busy", "Running", None) for i in range(3)]
    objects: list[Any] = [
        build_queue("q", 1, None),
        build_node("busy", build_resource_list("8", "16G", PODS), {}),
        build_node("idle", build_resource_list("8", "16G", PODS), {}),
        build_pod_group("pg0", "ns", "q", 1, {}, "Running"),
        *groups,
        *filler,
        *pods,
    ]
    binds = schedule(objects, CONF).binds
    want = {
        f"ns/p{i}": "busy" if s == rsf.MOST_ALLOCATED else "idle"
        for i, s in enumerate(strategies, 1)
    }
    assert {k: v for k, v in binds.items() if k in want} == want
