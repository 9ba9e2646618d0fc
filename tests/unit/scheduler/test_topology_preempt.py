"""preempt with ``enableTopologyAwarePreemption``: minimal victims per node (reprieve) and the
best candidate node, against normal mode on the same objects."""

from __future__ import annotations

from typing import Any

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import (
    conf_text,
    group,
    node,
    pod,
    priority_class,
    schedule,
)

VALUES = {"low": 10, "mid": 50, "high": 1000}
PRIORITIES = [priority_class(name, value) for name, value in VALUES.items()]
TIERS: tuple[list[str | dict[str, Any]], ...] = (
    ["priority", "gang", "conformance"],
    ["predicates", "proportion", "nodeorder"],
)


def _conf(topology: bool, candidates: int = 1) -> str:
    return conf_text("preempt", *TIERS) + (
        "configurations:\n- name: preempt\n"
        f"  arguments: {{enableTopologyAwarePreemption: {str(topology).lower()},"
        f" minCandidateNodesAbsolute: {candidates}}}\n"
    )


def _running(name: str, node_name: str, cpu: str, priority: str) -> list[Model]:
    return [
        group(name, 0, phase="Running", priorityClassName=priority),
        pod(name, name, cpu, node=node_name, priority=VALUES[priority]),
    ]


PREEMPTOR = [group("urgent", 1, priorityClassName="high"), pod("urgent", "urgent", "2")]
REPRIEVE = [
    node("n1", cpu="3"),
    *_running("small-low", "n1", "1", "low"),
    *_running("big-mid", "n1", "2", "mid"),
    *PREEMPTOR,
]
TWO_NODES = [
    node("n1", cpu="2"),
    node("n2", cpu="2"),
    *_running("on-n1", "n1", "2", "mid"),
    *_running("on-n2", "n2", "2", "low"),
    *PREEMPTOR,
]


@pytest.mark.parametrize(
    ("objects", "topology", "candidates", "evicted", "node_name"),
    [
        pytest.param(
            REPRIEVE,
            False,
            1,
            ["default/big-mid", "default/small-low"],
            "n1",
            id="normal mode evicts lowest first until the preemptor fits",
        ),
        pytest.param(
            REPRIEVE,
            True,
            1,
            ["default/big-mid"],
            "n1",
            id="reprieve gives back a victim the preemptor fits without",
        ),
        pytest.param(
            TWO_NODES,
            True,
            1,
            ["default/on-n1"],
            "n1",
            id="with one candidate wanted the first node scanned with victims is taken",
        ),
        pytest.param(
            TWO_NODES,
            True,
            2,
            ["default/on-n2"],
            "n2",
            id="the node whose highest victim priority is lowest is chosen",
        ),
    ],
)
def test_topology_aware_preemption(
    objects: list[Model], topology: bool, candidates: int, evicted: list[str], node_name: str
) -> None:
    result = schedule([*PRIORITIES, *objects], _conf(topology, candidates))
    assert result.evictions == evicted
    assert result.pipelined == {"default/urgent": node_name}
