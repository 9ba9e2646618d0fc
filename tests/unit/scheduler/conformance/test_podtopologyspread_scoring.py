"""kube-scheduler ``pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go``:
``TestPodTopologySpreadScore``, as Volcano's nodeorder calls it (``podtopologyspread.weight``;
``NodeInclusionPolicyInPodTopologySpread`` and ``MatchLabelKeysInPodTopologySpread`` on, as
in current Kubernetes). One row per case: every node (``nodes`` and ``failedNodes``) is in
the session with the existing pods on it, and nodeorder's spread score alone (weight 1)
scores the case's candidate ``nodes``, normalised over them, as PreScore, Score and
NormalizeScore do.

Not expressible, so not ported: ``system defaulting, nodes don't have zone, pods match
service`` (system default constraints come from Services, which the scheduler does not
watch) and ``matchLabelKeys ignored when feature gate disabled`` (the gate is on).
The file's other tests (``TestPreScoreSkip``, ``TestPreScoreStateEmptyNodes``) compare the
plugin's internal PreScore state.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import pytest

from services.scheduler.plugins import nodeorder
from shared.models import Model, Node, Pod
from tests.unit.scheduler.builders import conf_text, group, queue, session

HOST = "kubernetes.io/hostname"
ANYWAY = "ScheduleAnyway"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
EMPTY: dict[str, Any] = {}
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]


def spread(
    max_skew: int,
    key: str,
    selector: dict[str, Any] | None,
    *,
    min_domains: int | None = None,
    affinity_policy: str | None = None,
    taints_policy: str | None = None,
    match_label_keys: list[str] | None = None,
) -> dict[str, Any]:
    constraint: dict[str, Any] = {
        "maxSkew": max_skew,
        "topologyKey": key,
        "whenUnsatisfiable": ANYWAY,
    }
    if selector is not None:
        constraint["labelSelector"] = selector
    for field, value in (
        ("minDomains", min_domains),
        ("nodeAffinityPolicy", affinity_policy),
        ("nodeTaintsPolicy", taints_policy),
        ("matchLabelKeys", match_label_keys),
    ):
        if value is not None:
            constraint[field] = value
    return constraint


def incoming(labels: list[str], *constraints: dict[str, Any], **spec: Any) -> Pod:
    return msgspec.convert(
        {
            "metadata": {
                "name": "p",
                "namespace": "default",
                "labels": dict.fromkeys(labels, ""),
                "annotations": {"scheduling.k8s.io/group-name": "g"},
            },
            "spec": {
                "schedulerName": "volcano",
                "topologySpreadConstraints": list(constraints),
                **spec,
            },
            "status": {"phase": "Pending"},
        },
        Pod,
    )


def existing(
    name: str, node: str, *labels: str, ns: str = "default", terminating: bool = False
) -> Pod:
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict.fromkeys(labels, "")}
    if terminating:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return msgspec.convert(
        {
            "metadata": meta,
            "spec": {"nodeName": node, "schedulerName": "default-scheduler"},
            "status": {"phase": "Running"},
        },
        Pod,
    )


def node(name: str, taints: list[dict[str, str]] | None = None, **labels: str) -> Node:
    return labelled(name, labels, taints)


def labelled(name: str, labels: dict[str, str], taints: list[dict[str, str]] | None) -> Node:
    doc: dict[str, Any] = {"metadata": {"name": name, "labels": labels}}
    if taints:
        doc["spec"] = {"taints": taints}
    return msgspec.convert(doc, Node)


def host(name: str, **labels: str) -> Node:
    return labelled(name, {HOST: name, **labels}, None)


def pods(spec: str, *labels: str) -> list[Pod]:
    """``"a2 b1"``: two matching pods on node-a, one on node-b (named as upstream)."""
    found = []
    for part in spec.split():
        suffix, count = part[:-1], int(part[-1])
        found += [existing(f"p-{suffix}{i + 1}", f"node-{suffix}", *labels) for i in range(count)]
    return found


NODES_ABCD = [host("node-a"), host("node-b"), host("node-c"), host("node-d")]


def _zoned(*names: tuple[str, str]) -> list[Node]:
    return [host(name, zone=zone) for name, zone in names]


ZONED_ABXY = _zoned(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"))
ZONED_Y = _zoned(("node-y", "zone2"))
NODE_KEYED = [node("node-a", node="node-a", foo=""), node("node-b", node="node-b", foo="")]
NODE_KEYED.append(node("node-c", node="node-c"))
TAINTED = [node("node-a", node="node-a"), node("node-b", node="node-b")]
TAINTED.append(node("node-c", TAINTS, node="node-c"))
POLICY_PODS = [*pods("a2 b1", "foo"), existing("p-c1", "node-c", "foo")]
ZONE_ABCD = _zoned(
    ("node-a", "zone1"), ("node-b", "zone1"), ("node-c", "zone2"), ("node-d", "zone2")
)
NODE_AFFINITY_FOO = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}
            ]
        }
    }
}

# (pod, existing pods, candidate nodes, failed nodes, expected scores of the candidates)
CASES = [
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        [],
        [host("node-a"), host("node-b")],
        [],
        [100, 100],
        id="one constraint on node, no existing pods",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        pods("a2 b1", "foo"),
        [host("node-a")],
        [host("node-b")],
        [100],
        id="one constraint on node, only one node is candidate",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        pods("a1 b1", "foo"),
        [host("node-a"), host("node-b")],
        [],
        [100, 100],
        id="one constraint on node, all nodes have the same number of matching pods",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        pods("a2 b1 d3", "foo"),
        NODES_ABCD,
        [],
        [20, 60, 100, 0],
        id="one constraint on node, all 4 nodes are candidates",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, None)),
        pods("a2 b1 d3", "foo"),
        NODES_ABCD,
        [],
        [100, 100, 100, 100],
        id="one constraint on node, null selector",
    ),
    pytest.param(
        incoming(["foo"], spread(2, HOST, FOO)),
        pods("a2 b1 d3", "foo"),
        NODES_ABCD,
        [],
        [33, 66, 100, 16],
        id="one constraint on node, all 4 nodes are candidates, maxSkew=2",
    ),
    pytest.param(
        incoming(["foo"], spread(3, HOST, FOO)),
        pods("a4 b3 c2 d1", "foo"),
        NODES_ABCD,
        [],
        [44, 66, 77, 100],
        id="one constraint on node, all 4 nodes are candidates, maxSkew=3",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        pods("a4 b2 x1 y3", "foo"),
        [host("node-a"), host("node-b"), host("node-x")],
        [host("node-y")],
        [33, 83, 100],
        id="one constraint on node, 3 out of 4 nodes are candidates",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        pods("a4 b2 x1 y3", "foo"),
        [host("node-a"), node("node-b", n="node-b"), host("node-x")],
        [host("node-y")],
        [16, 0, 100],
        id="one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match"
        " topology key",
    ),
    pytest.param(
        incoming(["foo"], spread(1, "zone", FOO)),
        pods("a4 b2 x1 y3", "foo"),
        ZONED_ABXY,
        ZONED_Y,
        [75, 75, 100],
        id="one constraint on zone, 3 out of 4 nodes are candidates",
    ),
    pytest.param(
        incoming(["foo"], spread(1, "zone", FOO), spread(1, HOST, FOO)),
        pods("a2 b1 x2 y4", "foo"),
        _zoned(("node-a", "zone1"), ("node-x", "zone2")),
        _zoned(("node-b", "zone1"), ("node-y", "zone2")),
        [100, 63],
        id="two Constraints on zone and node, 2 out of 4 nodes are candidates",
    ),
    pytest.param(
        incoming(["foo", "bar"], spread(1, "zone", FOO), spread(1, HOST, BAR)),
        [
            existing("p-a1", "node-a", "foo"),
            existing("p-b1", "node-b", "foo", "bar"),
            existing("p-y1", "node-y", "foo"),
            existing("p-y2", "node-y", "bar"),
        ],
        [*ZONED_ABXY, *ZONED_Y],
        [],
        [60, 20, 100, 60],
        id="two Constraints on zone and node, with different labelSelectors",
    ),
    pytest.param(
        incoming(["foo", "bar"], spread(1, "zone", FOO), spread(1, HOST, BAR)),
        [
            existing("p-b1", "node-b", "bar"),
            existing("p-x1", "node-x", "foo"),
            existing("p-y1", "node-y", "foo", "bar"),
        ],
        [*ZONED_ABXY, *ZONED_Y],
        [],
        [100, 60, 40, 0],
        id="two Constraints on zone and node, with different labelSelectors, some nodes have"
        " 0 pods",
    ),
    pytest.param(
        incoming(["foo", "bar"], spread(1, "zone", FOO), spread(1, HOST, BAR)),
        [
            existing("p-a1", "node-a", "foo"),
            existing("p-b1", "node-b", "foo", "bar"),
            existing("p-y1", "node-y", "foo"),
            existing("p-y2", "node-y", "bar"),
        ],
        ZONED_ABXY,
        ZONED_Y,
        [50, 25, 100],
        id="two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes"
        " are candidates",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        [existing("p-a1", "node-a", "foo", ns="ns1"), *pods("a1 b2", "foo")],
        [host("node-a"), host("node-b")],
        [],
        [100, 33],
        id="existing pods in a different namespace do not count",
    ),
    pytest.param(
        incoming(["foo"], spread(1, HOST, FOO)),
        [existing("p-a", "node-a", "foo", terminating=True), existing("p-b", "node-b", "foo")],
        [host("node-a"), host("node-b")],
        [],
        [100, 0],
        id="terminating Pods should be excluded",
    ),
    pytest.param(
        incoming(["foo"], spread(2, "node", FOO, min_domains=10)),
        pods("a2 b2 c1", "foo"),
        [node(f"node-{n}", node=f"node-{n}") for n in "abc"],
        [],
        [75, 75, 100],
        id="minDomains has no effect when ScheduleAnyway",
    ),
    pytest.param(
        incoming(["foo"], spread(1, "node", FOO), nodeSelector={"foo": ""}),
        POLICY_PODS,
        NODE_KEYED,
        [],
        [0, 33, 100],
        id="NodeAffinityPolicy honoed with labelSelectors",
    ),
    pytest.param(
        incoming(
            ["foo"], spread(1, "node", FOO, affinity_policy="Ignore"), nodeSelector={"foo": ""}
        ),
        POLICY_PODS,
        NODE_KEYED,
        [],
        [66, 100, 100],
        id="NodeAffinityPolicy ignored with labelSelectors",
    ),
    pytest.param(
        incoming(["foo"], spread(1, "node", FOO), affinity=NODE_AFFINITY_FOO),
        POLICY_PODS,
        NODE_KEYED,
        [],
        [0, 33, 100],
        id="NodeAffinityPolicy honoed with nodeAffinity",
    ),
    pytest.param(
        incoming(
            ["foo"], spread(1, "node", FOO, affinity_policy="Ignore"), affinity=NODE_AFFINITY_FOO
        ),
        POLICY_PODS,
        NODE_KEYED,
        [],
        [66, 100, 100],
        id="NodeAffinityPolicy ignored with nodeAffinity",
    ),
    pytest.param(
        incoming(["foo"], spread(1, "node", FOO, taints_policy="Honor")),
        POLICY_PODS,
        TAINTED,
        [],
        [0, 33, 100],
        id="NodeTaintsPolicy honored",
    ),
    pytest.param(
        incoming(["foo"], spread(1, "node", FOO)),
        POLICY_PODS,
        TAINTED,
        [],
        [66, 100, 100],
        id="NodeTaintsPolicy ignored",
    ),
    pytest.param(
        incoming(
            ["foo", "bar"],
            spread(1, "zone", EMPTY, match_label_keys=["foo"]),
            spread(1, HOST, EMPTY, match_label_keys=["bar"]),
        ),
        [
            existing("p-a1", "node-a", "foo"),
            existing("p-b1", "node-b", "foo", "bar"),
            existing("p-y1", "node-c", "foo"),
            existing("p-y2", "node-c", "bar"),
        ],
        ZONE_ABCD,
        [],
        [60, 20, 60, 100],
        id="matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
    ),
    pytest.param(
        incoming(
            ["foo", "bar", "baz"],
            spread(1, "zone", FOO),
            spread(1, HOST, BAR, match_label_keys=["baz"]),
        ),
        [
            existing("p-a1", "node-a", "foo"),
            existing("p-b1", "node-b", "foo", "bar", "baz"),
            existing("p-c1", "node-c", "foo"),
            existing("p-c2", "node-c", "bar"),
            existing("p-d3", "node-c", "bar", "baz"),
        ],
        ZONE_ABCD,
        [],
        [60, 20, 60, 100],
        id="matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
    ),
]


@pytest.mark.parametrize(("pod", "placed", "nodes", "failed", "expected"), CASES)
def test_pod_topology_spread_score(
    pod: Pod, placed: list[Pod], nodes: list[Node], failed: list[Node], expected: list[int]
) -> None:
    objects: list[Model] = [queue("default"), *nodes, *failed, group("g"), pod, *placed]
    arguments = {key: 0 for key in nodeorder.WEIGHTS} | {"podtopologyspread.weight": 1}
    ssn = session(objects, conf_text("allocate", [{"name": "nodeorder", "arguments": arguments}]))
    [plugin] = [p for p in ssn.plugins if isinstance(p, nodeorder.NodeOrderPlugin)]
    rows = np.array([ssn.nodes.index[n.metadata.name] for n in nodes], dtype=np.intp)
    task = ssn.jobs["default/g"].tasks["default/p"]
    assert plugin.score(task, ssn.nodes, rows).tolist() == [float(s) for s in expected]
