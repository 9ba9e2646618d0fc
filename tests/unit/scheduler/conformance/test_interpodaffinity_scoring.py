"""kube-scheduler ``pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go``, as
Volcano's nodeorder calls it (``podaffinity.weight``, plugin built with empty
``InterPodAffinityArgs``): the pod is scored on every node of a session with nodeorder's
inter-pod affinity alone (weight 1), existing pods placed on their nodes. A PreScore
``Skip`` reads as 0 on every node (Volcano adds nothing for a skipped plugin).

Not expressible, so not ported: in ``TestPreferredAffinity``, ``Affinity symmetry: considered
RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry`` (the Go test sets
``hardPodAffinityWeight`` 1; Volcano leaves it 0, so required terms of existing pods weigh
nothing), ``invalid Affinity fails PreScore`` and ``invalid AntiAffinity fails PreScore``
(Shoal does not validate label values in selectors) and ``Ignore preferred terms of existing
pods`` (Volcano never sets ``ignorePreferredTermsOfExistingPods``); in
``TestPreferredAffinityWithHardPodAffinitySymmetricWeight`` every case but ``with zero weight``
(they set ``hardPodAffinityWeight`` 1). The namespace-selector rows pass, but not for the
upstream reason: Shoal has no Namespace objects and reads a ``namespaceSelector`` as "any
namespace", which these tables do not tell apart.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.framework.placement import Placer
from services.scheduler.plugins import nodeorder
from shared.models import Model, Node, Pod
from tests.unit.scheduler.builders import conf_text, group, queue, session

CHINA, INDIA = {"region": "China"}, {"region": "India"}
AZ1, AZ2 = {"az": "az1"}, {"az": "az2"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1, S2 = {"security": "S1"}, {"security": "S2"}


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


def _term(weight: int, key: str, *exprs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "weight": weight,
        "podAffinityTerm": {
            "labelSelector": {"matchExpressions": list(exprs)},
            "topologyKey": key,
            **extra,
        },
    }


def _preferred(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"preferredDuringSchedulingIgnoredDuringExecution": list(terms)}


STAY_S1_REGION = {"podAffinity": _preferred(_term(5, "region", _expr("security", "In", "S1")))}
STAY_S2_REGION = {"podAffinity": _preferred(_term(6, "region", _expr("security", "In", "S2")))}
AFFINITY3 = {
    "podAffinity": _preferred(
        _term(
            8,
            "region",
            _expr("security", "NotIn", "S1"),
            _expr("security", "In", "S2"),
        ),
        _term(2, "region", _expr("security", "Exists"), _expr("wrongkey", "DoesNotExist")),
    )
}
AWAY_S1_AZ = {"podAntiAffinity": _preferred(_term(5, "az", _expr("security", "In", "S1")))}
AWAY_S2_AZ = {"podAntiAffinity": _preferred(_term(5, "az", _expr("security", "In", "S2")))}
STAY_S1_REGION_AWAY_S2_AZ = {
    "podAffinity": _preferred(_term(8, "region", _expr("security", "In", "S1"))),
    "podAntiAffinity": _preferred(_term(5, "az", _expr("security", "In", "S2"))),
}
_NS_TERM = {
    "namespaces": ["subteam2.team2"],
    "namespaceSelector": {"matchExpressions": [_expr("team", "In", "team1")]},
}
AFFINITY_NS_SELECTOR = {
    "podAffinity": _preferred(_term(5, "region", _expr("security", "In", "S1"), **_NS_TERM))
}
ANTI_AFFINITY_NS_SELECTOR = {
    "podAntiAffinity": _preferred(_term(5, "region", _expr("security", "In", "S1"), **_NS_TERM))
}
HARD_POD_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "labelSelector": {"matchExpressions": [_expr("service", "In", "S1")]},
                "namespaces": ["", "subteam2.team2"],
                "namespaceSelector": {"matchExpressions": [_expr("team", "In", "team1")]},
                "topologyKey": "region",
            }
        ]
    }
}


def _existing(
    node: str, labels: dict[str, str] | None = None, affinity: Any = None, ns: str = ""
) -> Pod:
    spec: dict[str, Any] = {"nodeName": node, "schedulerName": "default-scheduler"}
    if affinity is not None:
        spec["affinity"] = affinity
    return msgspec.convert(
        {
            "metadata": {"name": "", "namespace": ns or "default", "labels": labels or {}},
            "spec": spec,
            "status": {"phase": "Running"},
        },
        Pod,
    )


def _incoming(labels: dict[str, str] | None = None, affinity: Any = None, ns: str = "") -> Pod:
    namespace = ns or "default"
    spec: dict[str, Any] = {"schedulerName": "volcano"}
    if affinity is not None:
        spec["affinity"] = affinity
    return msgspec.convert(
        {
            "metadata": {
                "name": "incoming",
                "namespace": namespace,
                "labels": labels or {},
                "annotations": {"scheduling.k8s.io/group-name": "g"},
            },
            "spec": spec,
            "status": {"phase": "Pending"},
        },
        Pod,
    )


def _nodes(*labels: dict[str, str]) -> list[Node]:
    return [
        msgspec.convert({"metadata": {"name": f"node{i + 1}", "labels": lab}}, Node)
        for i, lab in enumerate(labels)
    ]


MAX = 100
CASES = [
    pytest.param(
        _incoming(S1),
        [],
        _nodes(CHINA, INDIA, AZ1),
        [0, 0, 0],
        id="all nodes are same priority as Affinity is nil",
    ),
    pytest.param(
        _incoming(S1, STAY_S1_REGION),
        [_existing("node1", S1), _existing("node2", S2), _existing("node3", S1)],
        _nodes(CHINA, INDIA, AZ1),
        [MAX, 0, 0],
        id="Affinity: pod that matches topology key & pods in nodes will get high score comparing"
        " to otherswhich doesn't match either pods in nodes or in topology key",
    ),
    pytest.param(
        _incoming(None, STAY_S1_REGION),
        [_existing("node1", S1)],
        _nodes(CHINA, CHINA_AZ1, INDIA),
        [MAX, MAX, 0],
        id="All the nodes that have the same topology key & label value with one of them has an"
        " existing pod that match the affinity rules, have the same score",
    ),
    pytest.param(
        _incoming(S1, STAY_S2_REGION),
        [
            _existing("node1", S2),
            _existing("node1", S2),
            _existing("node2", S2),
            _existing("node3", S2),
            _existing("node4", S2),
            _existing("node5", S2),
        ],
        _nodes(CHINA, INDIA, CHINA, CHINA, INDIA),
        [MAX, 0, MAX, MAX, 0],
        id="Affinity: nodes in one region has more matching pods comparing to other region, so the"
        " region which has more matches will get high score",
    ),
    pytest.param(
        _incoming(S1, AFFINITY3),
        [_existing("node1", S1), _existing("node2", S2), _existing("node3", S1)],
        _nodes(CHINA, INDIA, AZ1),
        [20, MAX, 0],
        id="Affinity: different Label operators and values for pod affinity scheduling preference,"
        " including some match failures ",
    ),
    pytest.param(
        _incoming(S2),
        [_existing("node1", S1, STAY_S1_REGION), _existing("node2", S2, STAY_S2_REGION)],
        _nodes(CHINA, INDIA, AZ1),
        [0, MAX, 0],
        id="Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution"
        " in pod affinity symmetry",
    ),
    pytest.param(
        _incoming(S1, ns="subteam1.team1"),
        [_existing("node1", S1, AFFINITY_NS_SELECTOR), _existing("node2", S2, STAY_S2_REGION)],
        _nodes(CHINA, INDIA, AZ1),
        [MAX, 0, 0],
        id="Affinity symmetry with namespace selector",
    ),
    pytest.param(
        _incoming(S1, ns="subteam1.team1"),
        [
            _existing("node1", S1, ANTI_AFFINITY_NS_SELECTOR),
            _existing("node2", S2, STAY_S2_REGION),
        ],
        _nodes(CHINA, INDIA, AZ1),
        [0, MAX, MAX],
        id="AntiAffinity symmetry with namespace selector",
    ),
    pytest.param(
        _incoming(S1, AWAY_S1_AZ),
        [_existing("node1", S1), _existing("node2", S2)],
        _nodes(AZ1, CHINA),
        [0, MAX],
        id="Anti Affinity: pod that does not match existing pods in node will get high score ",
    ),
    pytest.param(
        _incoming(S1, AWAY_S1_AZ),
        [_existing("node1", S1), _existing("node2", S1)],
        _nodes(AZ1, CHINA),
        [0, MAX],
        id="Anti Affinity: pod that does not match topology key & match the pods in nodes will get"
        " higher score comparing to others ",
    ),
    pytest.param(
        _incoming(S1, AWAY_S1_AZ),
        [_existing("node1", S1), _existing("node1", S1), _existing("node2", S2)],
        _nodes(AZ1, INDIA),
        [0, MAX],
        id="Anti Affinity: one node has more matching pods comparing to other node, so the node"
        " which has more unmatches will get high score",
    ),
    pytest.param(
        _incoming(S2),
        [_existing("node1", S1, AWAY_S2_AZ), _existing("node2", S2, AWAY_S1_AZ)],
        _nodes(AZ1, AZ2),
        [0, MAX],
        id="Anti Affinity symmetry: the existing pods in node which has anti affinity match will"
        " get high score",
    ),
    pytest.param(
        _incoming(S1, STAY_S1_REGION_AWAY_S2_AZ),
        [_existing("node1", S1), _existing("node2", S1)],
        _nodes(CHINA, AZ1),
        [MAX, 0],
        id="Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuring"
        "Execution in both pod affinity & anti affinity",
    ),
    pytest.param(
        _incoming(S1, STAY_S1_REGION_AWAY_S2_AZ),
        [
            _existing("node1", S1),
            _existing("node1", S1),
            _existing("node2", S1),
            _existing("node3", S1),
            _existing("node3", S1),
            _existing("node4", S1),
            _existing("node5", S1),
        ],
        _nodes(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA),
        [MAX, 0, MAX, MAX, 0],
        id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to"
        " schedule and existing pods have the same labels",
    ),
    pytest.param(
        _incoming(S1, STAY_S1_REGION_AWAY_S2_AZ),
        [
            _existing("node1", S1),
            _existing("node2", S2),
            _existing("node3", None, STAY_S1_REGION_AWAY_S2_AZ),
            _existing("node4", None, AWAY_S1_AZ),
        ],
        _nodes(CHINA, AZ1, INDIA, AZ2),
        [MAX, 0, MAX, 0],
        id="Affinity and Anti Affinity and symmetry: considered only preferredDuringScheduling"
        "IgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
    ),
    pytest.param(
        _incoming(S1),
        [_existing("node1", S1), _existing("node2", None, STAY_S1_REGION_AWAY_S2_AZ)],
        _nodes(CHINA, CHINA),
        [0, 0],
        id="Avoid panic when partial nodes in a topology don't have pods with affinity",
    ),
    pytest.param(
        _incoming(S1, AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam1.team2"),
            _existing("node2", S1, ns="subteam2.team1"),
        ],
        _nodes(CHINA, INDIA),
        [MAX, 0],
        id="Affinity with pods matching NamespaceSelector",
    ),
    pytest.param(
        _incoming(S1, AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam2.team2"),
            _existing("node2", S1, ns="subteam2.team1"),
        ],
        _nodes(CHINA, INDIA),
        [MAX, 0],
        id="Affinity with pods matching both NamespaceSelector and Namespaces fields",
    ),
    pytest.param(
        _incoming(S1, ANTI_AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam1.team2"),
            _existing("node2", S1, ns="subteam2.team1"),
        ],
        _nodes(CHINA, INDIA),
        [0, MAX],
        id="Affinity with pods matching NamespaceSelector",
    ),
    pytest.param(
        _incoming(S1, ANTI_AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam1.team1"),
            _existing("node1", S1, ns="subteam2.team2"),
            _existing("node2", S1, ns="subteam2.team1"),
        ],
        _nodes(CHINA, INDIA),
        [0, MAX],
        id="Affinity with pods matching both NamespaceSelector and Namespaces fields",
    ),
    pytest.param(
        _incoming(S2),
        [
            _existing("node1", S1, STAY_S1_REGION_AWAY_S2_AZ),
            _existing("node2", S2, STAY_S2_REGION),
        ],
        _nodes(CHINA, INDIA),
        [0, MAX],
        id="Do not ignore preferred terms of existing pods",
    ),
    pytest.param(_incoming(S2), [], [], [], id="No nodes to score"),
]


def _scores(incoming: Pod, existing: list[Pod], nodes: list[Node]) -> list[float]:
    named = [
        msgspec.structs.replace(
            p, metadata=msgspec.structs.replace(p.metadata, name=f"existing-{i}")
        )
        for i, p in enumerate(existing)
    ]
    ns = incoming.metadata.namespace or "default"
    objects: list[Model] = [queue("default"), *nodes, group("g", ns=ns), incoming, *named]
    arguments = {key: 0 for key in nodeorder.WEIGHTS} | {"podaffinity.weight": 1}
    ssn = session(objects, conf_text("allocate", [{"name": "nodeorder", "arguments": arguments}]))
    task = ssn.jobs[f"{ns}/g"].tasks[f"{ns}/incoming"]
    scores: list[float] = Placer(ssn).scores(task, slice(None)).tolist()
    return scores


@pytest.mark.parametrize(("incoming", "existing", "nodes", "expected"), CASES)
def test_preferred_affinity(
    incoming: Pod, existing: list[Pod], nodes: list[Node], expected: list[int]
) -> None:
    assert _scores(incoming, existing, nodes) == [float(s) for s in expected]


@pytest.mark.parametrize("hard_weight", [pytest.param(0, id="with zero weight")])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(hard_weight: int) -> None:
    """Volcano's weight is 0: the existing pods' required terms add nothing (Skip)."""
    assert hard_weight == 0
    existing = [_existing("node1", None, HARD_POD_AFFINITY)]
    existing.append(_existing("node2", None, HARD_POD_AFFINITY))
    scores = _scores(_incoming({"service": "S1"}), existing, _nodes(CHINA, INDIA, AZ1))
    assert scores == [0.0, 0.0, 0.0]
