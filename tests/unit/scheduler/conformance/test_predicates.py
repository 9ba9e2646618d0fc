"""Volcano ``pkg/scheduler/plugins/predicates/predicates_test.go``: the three ``CheckAll``
tables, one row per upstream case, same objects, tiers and actions.

- ``TestEventHandler``: predicates, gang (``enableJobReady``, ``enableJobPipelined``) and
  priority (``enableJobOrder``); allocate.
- ``TestNodeNum``: predicates alone; allocate, backfill.
- ``TestPodAntiAffinity``: predicates and priority (``enablePreemptable``,
  ``enableJobStarving``); allocate, preempt with ``enableTopologyAwarePreemption``.

Not expressible (they drive Go internals, not a session): ``TestTaskPodAnnotations`` (the
``TaskInfo`` annotation map), ``TestSetUpDynamicResourcesArgs_*`` (DRA filter timeout
arguments; Shoal has no DRA), ``TestInitPlugin`` (which kube-scheduler plugins land in which
internal map), ``TestBatchNodeOrderRunsPreScorePlugins``,
``TestPredicateFailureReasonAggregationOrderStable``,
``TestPredicateByStablefilterSkipsPluginInSkipSet`` and ``TestReserveRollbackOrderStable``
(fake kube-scheduler framework plugins injected into the plugin struct), and
``helper_test.go``'s ``TestSetUpVolumeBindingArgs`` (volume binding arguments; Shoal does not
bind volumes).
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.models import Pod
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    Case,
    build_node,
    build_pod,
    build_pod_group_with_prio,
    build_pod_with_affinity,
    build_priority_class,
    build_queue,
    build_resource_list,
    check,
    common,
)

PODS10 = {"Name": "pods", "Value": "10"}
PODS2 = {"Name": "pods", "Value": "2"}
HOSTNAME = "kubernetes.io/hostname"


def _worker_affinity() -> dict[str, Any]:
    """``getWorkerAffinity``: no two ``role=worker`` pods on one host."""
    return {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "role", "operator": "In", "values": ["worker"]}
                        ]
                    },
                    "topologyKey": HOSTNAME,
                }
            ]
        }
    }


def _worker(name: str, req: dict[str, str] | None, group: str, selector: dict[str, str]) -> Pod:
    return build_pod("ns1", name, "", "Pending", req, group, {"role": "worker"}, selector)


def _event_handler() -> Case:
    pods = [
        build_pod_with_affinity(
            "ns1",
            name,
            "",
            "Pending",
            build_resource_list(cpu, memory),
            group,
            {"role": "worker"},
            selector,
            _worker_affinity(),
        )
        for name, cpu, memory, group, selector in (
            ("worker-1", "3", "3k", "pg1", {"selector": "worker"}),
            ("worker-2", "5", "5k", "pg1", {}),
            ("worker-3", "4", "4k", "pg2", {}),
        )
    ]
    return common(
        Name="pod-deallocate",
        Pods=pods,
        Nodes=[
            build_node(
                "node1",
                build_resource_list("14", "14k", PODS10),
                {"selector": "worker", HOSTNAME: "node1"},
            ),
            build_node("node2", build_resource_list("3", "3k", PODS10), {HOSTNAME: "node2"}),
        ],
        PriClass=[build_priority_class("p1", 1), build_priority_class("p2", 2)],
        PodGroups=[
            build_pod_group_with_prio("pg1", "ns1", "q1", 2, None, "Inqueue", "p2"),
            build_pod_group_with_prio("pg2", "ns1", "q1", 1, None, "Inqueue", "p1"),
        ],
        Queues=[build_queue("q1", 0, None)],
        ExpectBindMap={"ns1/worker-3": "node1"},
        ExpectBindsNum=1,
    )


def _node_num() -> Case:
    return common(
        Name="pod-predicate",
        Pods=[
            _worker("worker-1", None, "pg1", {"selector": "worker"}),
            _worker("worker-2", None, "pg1", {}),
            _worker("worker-3", None, "pg2", {}),
        ],
        Nodes=[build_node("node1", build_resource_list("4", "4k", PODS2), {"selector": "worker"})],
        PriClass=[build_priority_class("p1", 1), build_priority_class("p2", 2)],
        PodGroups=[
            build_pod_group_with_prio("pg1", "ns1", "q1", 2, None, "Inqueue", "p2"),
            build_pod_group_with_prio("pg2", "ns1", "q1", 1, None, "Inqueue", "p1"),
        ],
        Queues=[build_queue("q1", 0, None)],
        ExpectBindMap={"ns1/worker-1": "node1", "ns1/worker-2": "node1"},
        ExpectBindsNum=2,
    )


def _pod_anti_affinity() -> Case:
    high, low = (
        build_priority_class("high-priority", 100000),
        build_priority_class("low-priority", 10),
    )
    res = build_resource_list("3", "3G")
    w1 = build_pod(
        "ns1",
        "worker-1",
        "n1",
        "Running",
        res,
        "pg1",
        {"role": "worker"},
        {},
        priority=100000,
        affinity=_worker_affinity(),
    )
    w2 = build_pod("ns1", "worker-2", "n1", "Running", res, "pg1", {}, {}, priority=10)
    w3 = build_pod(
        "ns1",
        "worker-3",
        "",
        "Pending",
        res,
        "pg2",
        {"role": "worker"},
        {},
        priority=100000,
        affinity=_worker_affinity(),
    )
    return common(
        Name="pod-anti-affinity",
        Pods=[w1, w2, w3],
        Nodes=[build_node("n1", build_resource_list("12", "12G", PODS2), {HOSTNAME: "node1"})],
        PriClass=[high, low],
        PodGroups=[
            build_pod_group_with_prio("pg1", "ns1", "q1", 0, None, "Running", "low-priority"),
            build_pod_group_with_prio("pg2", "ns1", "q1", 1, None, "Inqueue", "high-priority"),
        ],
        Queues=[build_queue("q1", 0, build_resource_list("9", "9G"))],
        ExpectPipeLined={},
        ExpectEvicted=[],
        ExpectEvictNum=0,
    )


PREDICATES = plugin_option("predicates", "enablePredicate")


@pytest.mark.parametrize("case", [pytest.param(_event_handler(), id="pod-deallocate")])
def test_event_handler(case: Case) -> None:
    tiers = [
        [
            PREDICATES,
            plugin_option("gang", "enableJobReady", "enableJobPipelined"),
            plugin_option("priority", "enableJobOrder"),
        ]
    ]
    check(case, tiers_conf("allocate", tiers))


@pytest.mark.parametrize("case", [pytest.param(_node_num(), id="pod-predicate")])
def test_node_num(case: Case) -> None:
    check(case, tiers_conf("allocate, backfill", [[PREDICATES]]))


# Upstream expects no eviction. With enableTopologyAwarePreemption Shoal's dry run (the one
# upstream preempt_test.go's TestTopologyAwarePreempt rows pass with) removes worker-2, then
# worker-1 (whose anti-affinity blocks), and reprieves worker-2: worker-1 is evicted. Which
# upstream step keeps the node from being a candidate here is not found yet (issue 10).
ANTI_AFFINITY_GAP = pytest.mark.xfail(
    strict=True, reason="topology-aware dry run evicts worker-1 where upstream evicts nothing"
)


@pytest.mark.parametrize(
    "case", [pytest.param(_pod_anti_affinity(), id="pod-anti-affinity", marks=ANTI_AFFINITY_GAP)]
)
def test_pod_anti_affinity(case: Case) -> None:
    tiers = [[PREDICATES, plugin_option("priority", "enablePreemptable", "enableJobStarving")]]
    configurations = {"preempt": {"enableTopologyAwarePreemption": True}}
    check(case, tiers_conf("allocate, preempt", tiers, configurations))
