"""Volcano ``pkg/scheduler/plugins/network-topology-aware/network_topology_aware_test.go``:
``TestNew``, ``TestNetworkTopologyAwareNodeScore_Hard``, ``_Soft``, ``TestBatchNodeOrderFn``,
``TestHyperNodeOrderFn`` (rows in ``network_topology_aware_rows.py``) and the allocate rows of
``TestHyperNodeGradientPreFiltering``, one row per upstream case.

As upstream, a node-score row opens a session with the plugin alone, takes the job's pending
task with the PodGroup's allocated-HyperNode annotation as the HyperNode the job spans, and
scores the row's nodes (all nodes for ``TestBatchNodeOrderFn``; upstream's empty map is every
node at 0 here); a HyperNode-score row scores every HyperNode with real nodes, the top included.
Shoal has no sub-groups: the rows built with ``subGroupPolicy`` put every pod of the job in one
sub-job, scored as the job. The ``SubJob`` rows of ``TestHyperNodeGradientPreFiltering`` run the
job's gradient, which is the same function upstream.

Not expressible (listed in docs/compatibility.md): ``TestReverseAndCapEvictionGradients``, the
two ``Evict purpose`` rows of ``TestHyperNodeGradientPreFiltering`` and
``TestHyperNodeGradientForSubJobFn_NoSubJobPolicyRespectsHardTopology`` (eviction gradients:
Shoal's gang eviction searches no HyperNodes), ``Test_initHyperNodeResourceCache`` and
``Test_batchNodeOrderFnForNormalPods`` (timings at scale, no assertion on results).
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import pytest

from services.scheduler.api.hypernodes import TOP
from services.scheduler.api.sub_job import GroupedJobInfo
from services.scheduler.framework.session import Session
from services.scheduler.plugins.network_topology_aware import NAME, NetworkTopologyAware, new
from shared.models import HyperNode, Model
from shared.models.volcano import JOB_ALLOCATED_HYPERNODE
from tests.unit.scheduler.builders import group, node, plugin_option, pod, queue, tiers_conf
from tests.unit.scheduler.conformance.network_topology_aware_rows import (
    BATCH_NODE_ORDER_ROWS,
    HYPER_NODE_ORDER_ROWS,
    NODE_SCORE_HARD_ROWS,
    NODE_SCORE_SOFT_ROWS,
)
from tests.unit.scheduler.conformance.upstream import PluginRow, open_session

EPS = 1e-1
ALL_SWITCHES = ("enabledHyperNodeOrder", "enableNodeOrder", "enabledHyperNodeGradient")

NEW_ROWS: list[Any] = [
    pytest.param(
        {},
        (1, 1, 1, {}, True, 0.8),
        id="build plugin with no arguments",
    ),
    pytest.param(
        {
            "weight": 2,
            "hypernode.binpack.cpu": 3,
            "hypernode.binpack.memory": 4,
            "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
            "hypernode.binpack.resources.nvidia.com/gpuxxx": 5,
            "hypernode.binpack.resources.example.com/foo": 6,
            "hypernode.binpack.normal-pod.enable": False,
            "hypernode.binpack.normal-pod.fading": 0,
        },
        (2, 3, 4, {"nvidia.com/gpu": 1, "example.com/foo": 6}, False, 0.0),
        id="build plugin with customized valid arguments",
    ),
    pytest.param(
        {
            "weight": -1,
            "hypernode.binpack.cpu": -1,
            "hypernode.binpack.memory": -1,
            "hypernode.binpack.resources": "nvidia.com/gpuxxx, example.com/foo",
            "hypernode.binpack.resources.nvidia.com/gpu": -1,
            "hypernode.binpack.resources.example.com/foo": -1,
            "hypernode.binpack.normal-pod.enable": "a",
            "hypernode.binpack.normal-pod.fading": -1,
        },
        (1, 1, 1, {"nvidia.com/gpuxxx": 1, "example.com/foo": 1}, True, 0.8),
        id="build plugin with customized invalid arguments",
    ),
]


@pytest.mark.parametrize(("arguments", "want"), NEW_ROWS)
def test_new(arguments: dict[str, Any], want: tuple[Any, ...]) -> None:
    plugin = new(arguments)
    extra = {k: v for k, v in plugin.binpack.items() if k not in ("cpu", "memory")}
    got = (
        plugin.weight,
        plugin.binpack["cpu"],
        plugin.binpack["memory"],
        extra,
        plugin.normal_pods,
        plugin.fading,
    )
    assert got == want


def _session(row: PluginRow, switches: tuple[str, ...]) -> tuple[Session, NetworkTopologyAware]:
    option = plugin_option(NAME, *switches, arguments=row.arguments or None)
    ssn = open_session(row.case.objects, tiers_conf("allocate", [[option]]))
    (plugin,) = [p for p in ssn.plugins if isinstance(p, NetworkTopologyAware)]
    return ssn, plugin


def _node_scores(row: PluginRow, switches: tuple[str, ...]) -> dict[str, float]:
    """``ssn.BatchNodeOrderFn(parseTask(ssn.Jobs), nodes)``."""
    ssn, plugin = _session(row, switches)
    (job,) = ssn.jobs.values()
    task = min((t for t in job.pending_tasks()), key=lambda t: t.key)
    assert ssn.topology is not None
    annotation = job.pod_group.metadata.annotations.get(JOB_ALLOCATED_HYPERNODE, "")
    if isinstance(job, GroupedJobInfo):
        # Upstream's ``task.JobAllocatedHyperNode``: the HyperNode the task's sub-job spans.
        ssn.topology.placing[job.sub_job_of[task.key].uid] = annotation
    elif job.key in ssn.topology.jobs:
        ssn.topology.placing[job.key] = annotation
    names = row.nodes if row.nodes is not None else ssn.nodes.names
    rows = np.array([ssn.nodes.index[n] for n in names], dtype=np.intp)
    scores = plugin.score(task, ssn.nodes, rows)
    return dict(zip(names, scores.tolist(), strict=True))


def _close(got: dict[str, float], want: dict[str, float]) -> None:
    for name, score in want.items():
        assert abs(got[name] - score) <= EPS, (name, got)


def _ids(rows: list[PluginRow]) -> list[str]:
    return [row.name for row in rows]


@pytest.mark.parametrize("row", NODE_SCORE_HARD_ROWS, ids=_ids(NODE_SCORE_HARD_ROWS))
def test_network_topology_aware_node_score_hard(row: PluginRow) -> None:
    _close(_node_scores(row, ALL_SWITCHES), row.expected)


@pytest.mark.parametrize("row", NODE_SCORE_SOFT_ROWS, ids=_ids(NODE_SCORE_SOFT_ROWS))
def test_network_topology_aware_node_score_soft(row: PluginRow) -> None:
    _close(_node_scores(row, ALL_SWITCHES), row.expected)


@pytest.mark.parametrize("row", BATCH_NODE_ORDER_ROWS, ids=_ids(BATCH_NODE_ORDER_ROWS))
def test_batch_node_order_fn(row: PluginRow) -> None:
    got = _node_scores(row, ("enableNodeOrder",))
    if not row.expected:
        assert set(got.values()) == {0.0}, got
        return
    assert len(got) == len(row.expected)
    _close(got, row.expected)


@pytest.mark.parametrize("row", HYPER_NODE_ORDER_ROWS, ids=_ids(HYPER_NODE_ORDER_ROWS))
def test_hyper_node_order_fn(row: PluginRow) -> None:
    ssn, _plugin = _session(row, ("enabledHyperNodeOrder",))
    (job,) = ssn.jobs.values()
    assert ssn.topology is not None
    candidates = [n for n, info in ssn.topology.tree.infos.items() if info.rows or n == TOP]
    got = ssn.hyper_node_scores(job, candidates)
    assert len(got) == len(row.expected)
    _close(got, row.expected)


# TestHyperNodeGradientPreFiltering: 100 tier-1 HyperNodes of 10 nodes (4 cpu, 8Gi) under one
# tier-2 HyperNode; hn-1-0's idle and future idle are set by the row (in cpus; memory 2Gi per
# cpu in every row, as the node's own ratio) and the job's minResources decide whether it stays.
PRE_FILTERING = [
    ("Job - idle sufficient, futureIdle sufficient", 2, 20, 30, 35, True),
    ("Job - idle sufficient, futureIdle insufficient", 2, 20, 30, 15, True),
    ("Job - idle insufficient, futureIdle sufficient", 2, 20, 15, 30, True),
    ("Job - idle insufficient, futureIdle insufficient", 2, 20, 15, 15, False),
    ("SubJob - idle sufficient, futureIdle sufficient", 1, 10, 20, 25, True),
    ("SubJob - idle sufficient, futureIdle insufficient", 1, 10, 20, 5, True),
    ("SubJob - idle insufficient, futureIdle sufficient", 1, 10, 5, 20, True),
    ("SubJob - idle insufficient, futureIdle insufficient", 1, 10, 5, 5, False),
]


def _member(kind: str, name: str) -> dict[str, Any]:
    return {"type": kind, "selector": {"exactMatch": {"name": name}}}


def _pre_filtering_cluster(tier: int, min_cpu: int) -> list[Model]:
    objects: list[Model] = [queue("q1")]
    objects += [node(f"node-{i}", cpu="4", memory="8Gi") for i in range(1000)]
    for h in range(100):
        members = [_member("Node", f"node-{h * 10 + j}") for j in range(10)]
        spec = {"tier": 1, "members": members}
        objects.append(
            msgspec.convert({"metadata": {"name": f"hn-1-{h}"}, "spec": spec}, HyperNode)
        )
    top = {"tier": 2, "members": [_member("HyperNode", f"hn-1-{h}") for h in range(100)]}
    objects.append(msgspec.convert({"metadata": {"name": "hn-2-0"}, "spec": top}, HyperNode))
    minimum = {"cpu": str(min_cpu), "memory": f"{2 * min_cpu}Gi"}
    topology = {"mode": "hard", "highestTierAllowed": tier}
    objects.append(group("pg1", 1, queue="q1", networkTopology=topology, minResources=minimum))
    objects.append(pod("p1", "pg1"))
    return objects


@pytest.mark.parametrize(
    ("tier", "min_cpu", "idle_cpu", "future_cpu", "selected"),
    [p[1:] for p in PRE_FILTERING],
    ids=[p[0] for p in PRE_FILTERING],
)
def test_hyper_node_gradient_pre_filtering(
    tier: int, min_cpu: int, idle_cpu: int, future_cpu: int, selected: bool
) -> None:
    option = plugin_option(NAME, *ALL_SWITCHES)
    ssn = open_session(_pre_filtering_cluster(tier, min_cpu), tiers_conf("allocate", [[option]]))
    (plugin,) = [p for p in ssn.plugins if isinstance(p, NetworkTopologyAware)]
    i = plugin.index["hn-1-0"]
    whole = plugin.allocatable[i].copy()  # 40 cpu, 80Gi
    plugin.idle[i] = whole * idle_cpu / 40
    plugin.future[i] = whole * future_cpu / 40
    (job,) = ssn.jobs.values()
    gradients = plugin.gradients(job, "hn-2-0")
    assert any("hn-1-0" in gradient for gradient in gradients) is selected
    tiers = [ssn.topology.tree.tier(g[0]) for g in gradients if g] if ssn.topology else []
    assert tiers == sorted(tiers)
