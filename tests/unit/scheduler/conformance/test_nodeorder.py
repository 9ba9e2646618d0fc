"""Volcano ``pkg/scheduler/plugins/nodeorder/nodeorder_test.go``: ``TestNodeOrderPlugin``, one
row per upstream case, same objects; tiers gang (``enableJobReady``) and nodeorder
(``enableNodeOrder``) with the case's weights (an unset weight is 0 there: the Go test
writes every weight argument); one allocate.

Not expressible: ``TestInitPlugin`` (reads the plugin's parsed weight struct).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from shared.models import Node, Pod
from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    Case,
    build_node,
    build_pod,
    build_pod_group,
    build_pod_with_affinity,
    build_queue,
    build_resource_list,
    check,
    common,
    rows,
)

PODS = {"Name": "pods", "Value": "10"}
WEIGHTS = {
    "LeastRequestedWeight": "leastrequested.weight",
    "MostRequestedWeight": "mostrequested.weight",
    "BalancedResourceWeight": "balancedresource.weight",
    "NodeAffinityWeight": "nodeaffinity.weight",
    "TaintTolerationWeight": "tainttoleration.weight",
    "PodAffinityWeight": "podaffinity.weight",
    "PodTopologySpreadWeight": "podtopologyspread.weight",
    "ImageLocalityWeight": "imagelocality.weight",
}


def _node(name: str, cpu: str, memory: str, labels: dict[str, str]) -> Node:
    return build_node(name, build_resource_list(cpu, memory, PODS), labels)


def _pending(name: str, **spec: Any) -> Pod:
    return build_pod(
        "c1", name, "", "Pending", build_resource_list("1", "1G"), "pg1", {}, {}, **spec
    )


def _running(name: str, node: str, labels: dict[str, str]) -> Pod:
    return build_pod("c1", name, node, "Running", build_resource_list("1", "1G"), "pg1", labels, {})


def _tainted(name: str) -> Node:
    doc = msgspec.to_builtins(_node(name, "2", "4Gi", {}))
    doc["spec"] = {"taints": [{"key": "key1", "value": "value1", "effect": "PreferNoSchedule"}]}
    return msgspec.convert(doc, Node)


def _case(weights: dict[str, int], **fields: Any) -> tuple[Case, dict[str, int]]:
    pg = build_pod_group("pg1", "c1", "c1", 0, None, "Inqueue")
    return common(PodGroups=[pg], Queues=[build_queue("c1", 1, None)], **fields), weights


def _cases() -> list[tuple[Case, dict[str, int]]]:
    preferred_zone1 = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "preference": {
                        "matchExpressions": [{"key": "zone", "operator": "In", "values": ["zone1"]}]
                    },
                }
            ]
        }
    }
    preferred_s1 = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"service": "s1"}},
                        "topologyKey": "kubernetes.io/hostname",
                    },
                }
            ]
        }
    }
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "foo"}},
        }
    ]
    hostnames = [_node(n, "2", "4Gi", {"kubernetes.io/hostname": n}) for n in ("n1", "n2", "n3")]
    return [
        _case(
            {"LeastRequestedWeight": 1, "MostRequestedWeight": 0},
            Name="leastAllocated strategy",
            Pods=[_pending("p1")],
            Nodes=[_node("n1", "2", "4Gi", {}), _node("n2", "4", "8Gi", {})],
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p1": "n2"},
        ),
        _case(
            {"LeastRequestedWeight": 0, "MostRequestedWeight": 1},
            Name="mostAllocated strategy",
            Pods=[_pending("p1")],
            Nodes=[_node("n1", "2", "4Gi", {}), _node("n2", "4", "8Gi", {})],
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p1": "n1"},
        ),
        _case(
            {"BalancedResourceWeight": 10},
            Name="balanced allocation prefers balanced node",
            Pods=[
                build_pod("c1", "p1", "", "Pending", build_resource_list("1", "1Gi"), "pg1", {}, {})
            ],
            Nodes=[_node("n1", "2", "2Gi", {}), _node("n2", "4", "2Gi", {})],
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p1": "n1"},
        ),
        _case(
            {"NodeAffinityWeight": 10},
            Name="node affinity prefers labeled node",
            Pods=[
                build_pod_with_affinity(
                    "c1",
                    "p1",
                    "",
                    "Pending",
                    build_resource_list("1", "1G"),
                    "pg1",
                    {},
                    {},
                    preferred_zone1,
                )
            ],
            Nodes=[
                _node("n1", "2", "4Gi", {"zone": "zone1"}),
                _node("n2", "2", "4Gi", {"zone": "zone2"}),
            ],
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p1": "n1"},
        ),
        _case(
            {"TaintTolerationWeight": 10},
            Name="taint toleration prefers non-tainted node",
            Pods=[_pending("p1")],
            Nodes=[_node("n1", "2", "4Gi", {}), _tainted("n2")],
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p1": "n1"},
        ),
        _case(
            {"PodAffinityWeight": 10},
            Name="inter-pod affinity prefers node with matching pod",
            Pods=[
                _running("p1", "n1", {"service": "s1"}),
                _running("p-noise", "n3", {"service": "s2"}),
                build_pod_with_affinity(
                    "c1",
                    "p2",
                    "",
                    "Pending",
                    build_resource_list("1", "1G"),
                    "pg1",
                    {},
                    {},
                    preferred_s1,
                ),
            ],
            Nodes=hostnames,
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p2": "n1"},
        ),
        _case(
            {"PodTopologySpreadWeight": 10},
            Name="pod topology spread prefers node to reduce skew",
            Pods=[
                _running("p1", "n1", {"app": "foo"}),
                _running("p2", "n1", {"app": "foo"}),
                _running("p3", "n2", {"app": "foo"}),
                build_pod(
                    "c1",
                    "p4",
                    "",
                    "Pending",
                    build_resource_list("1", "1G"),
                    "pg1",
                    {"app": "foo"},
                    {},
                    topologySpreadConstraints=spread,
                ),
            ],
            Nodes=[
                _node(n, "4", "4Gi", {"zone": z})
                for n, z in (("n1", "zone1"), ("n2", "zone2"), ("n3", "zone3"))
            ],
            ExpectBindsNum=1,
            ExpectBindMap={"c1/p4": "n3"},
        ),
    ]


CASES = _cases()


@pytest.mark.parametrize("case", rows([c for c, _ in CASES]))
def test_node_order_plugin(case: Case) -> None:
    weights = dict(next(w for c, w in CASES if c.name == case.name))
    arguments = {key: weights.get(field, 0) for field, key in WEIGHTS.items()}
    tiers = [
        [
            plugin_option("gang", "enableJobReady"),
            plugin_option("nodeorder", "enableNodeOrder", arguments=arguments),
        ]
    ]
    check(case, tiers_conf("allocate", tiers))
