"""nodeorder's scores that look beyond one node (kube-scheduler's PodTopologySpread,
InterPodAffinity, ImageLocality), each alone, on hand-computed cases; and Volcano's default
weights."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.framework.placement import Placer
from services.scheduler.plugins import nodeorder
from shared.models import Model, Node
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue, schedule, session

ZERO = {key: 0 for key in nodeorder.WEIGHTS}
HOST = "kubernetes.io/hostname"


def _scores(objects: list[Model], weight_key: str, task: str) -> list[float]:
    arguments = {**ZERO, weight_key: 1}
    ssn = session(objects, conf_text("allocate", [{"name": "nodeorder", "arguments": arguments}]))
    job = next(j for j in ssn.jobs.values() if task in j.tasks)
    placed: list[float] = Placer(ssn).scores(job.tasks[task], slice(None)).tolist()
    return placed


def _with_images(name: str, images: list[tuple[list[str], int]], **labels: str) -> Node:
    doc = msgspec.to_builtins(node(name, labels=labels))
    doc["status"]["images"] = [{"names": n, "sizeBytes": size} for n, size in images]
    return msgspec.convert(doc, Node)


def _spread(**labels: str) -> dict[str, Any]:
    return {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": labels},
    }


def _preferred(kind: str, weight: int, **labels: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": HOST}
    return {
        kind: {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": weight, "podAffinityTerm": term}
            ]
        }
    }


def _hosts(*names: str) -> list[Node]:
    return [node(n, labels={HOST: n}) for n in names]


MB = 1024 * 1024
CASES = [
    pytest.param(
        [
            node("n1", labels={"zone": "z1"}),
            node("n2", labels={"zone": "z2"}),
            node("n3"),  # no zone: ignored, scores 0
            pod("a", "g0", node="n1", labels={"app": "foo"}),
            pod("b", "g0", node="n1", labels={"app": "foo"}),
            pod("p", "g", labels={"app": "foo"}, topologySpreadConstraints=[_spread(app="foo")]),
        ],
        "podtopologyspread.weight",
        # 2 domains: weight ln 4; n1 round(2 * 1.386) = 3 -> 0, n2 0 -> 100.
        [0.0, 100.0, 0.0],
        id="spread-fewer-pods-more-points-unlabelled-node-zero",
    ),
    pytest.param(
        [
            node("n1", labels={"zone": "z1"}),
            node("n2", labels={"zone": "z2"}),
            pod("a", "g0", node="n1", labels={"app": "foo"}, ns="other"),
            pod("p", "g", labels={"app": "foo"}, topologySpreadConstraints=[_spread(app="foo")]),
        ],
        "podtopologyspread.weight",
        [100.0, 100.0],  # pods of other namespaces do not count: all 0, max 0 -> 100
        id="spread-counts-own-namespace-only",
    ),
    pytest.param(
        [
            *_hosts("n1", "n2", "n3"),
            pod("db", "g0", node="n1", labels={"app": "db"}),
            pod("p", "g", affinity=_preferred("podAntiAffinity", 50, app="db")),
        ],
        "podaffinity.weight",
        [0.0, 100.0, 100.0],
        id="preferred-anti-affinity-of-the-pod",
    ),
    pytest.param(
        [
            *_hosts("n1", "n2", "n3"),
            pod("web", "g0", node="n2", affinity=_preferred("podAffinity", 20, app="web")),
            pod("p", "g", labels={"app": "web"}),
        ],
        "podaffinity.weight",
        [0.0, 100.0, 0.0],
        id="preferred-affinity-of-an-existing-pod",
    ),
    pytest.param(
        [node("n1"), pod("p", "g", cpu=None)],
        "balancedresource.weight",
        [0.0],  # kube-scheduler skips BalancedAllocation for best-effort pods
        id="balanced-skips-best-effort",
    ),
    pytest.param(
        [
            node("n1", resources={"nvidia.com/gpu": "4"}),
            pod("p", "g", resources={"nvidia.com/gpu": "1"}),
        ],
        "balancedresource.weight",
        # cpu 1/4, memory 1/16, gpu 1/4: population std 0.0884 -> 91 (90 without the GPU).
        [91.0],
        id="balanced-counts-requested-gpu",
    ),
    pytest.param(
        [
            _with_images("n1", [(["nginx:1.0"], 500 * MB)]),
            _with_images("n2", [(["other:1"], 900 * MB)]),
            pod("p", "g", containers=[{"name": "c", "image": "nginx:1.0"}]),
        ],
        "imagelocality.weight",
        # 500 MiB on 1 of 2 nodes -> 250 MiB: 100 * (250 - 23) // (1000 - 23) = 23.
        [23.0, 0.0],
        id="image-locality-scaled-by-spread",
    ),
    pytest.param(
        [
            _with_images("n1", [(["nginx:latest"], 2000 * MB)]),
            _with_images("n2", [(["nginx:latest"], 2000 * MB)]),
            pod("p", "g", containers=[{"name": "c", "image": "nginx"}]),
        ],
        "imagelocality.weight",
        [100.0, 100.0],  # untagged reads as :latest; above the 1000 MiB cap per container
        id="image-locality-untagged-and-capped",
    ),
]


@pytest.mark.parametrize(("objects", "weight", "want"), CASES)
def test_pod_scores(objects: list[Model], weight: str, want: list[float]) -> None:
    everything: list[Model] = [queue("default"), group("g0", 0), group("g"), *objects]
    assert _scores(everything, weight, "default/p") == want


def test_default_weights_are_volcanos() -> None:
    plugin = nodeorder.new({})
    assert plugin.weights == {
        "nodeaffinity.weight": 2,
        "podaffinity.weight": 2,
        "leastrequested.weight": 1,
        "balancedresource.weight": 1,
        "mostrequested.weight": 0,
        "tainttoleration.weight": 3,
        "imagelocality.weight": 1,
        "podtopologyspread.weight": 2,
    }


def test_spread_places_a_gang_across_zones() -> None:
    """Allocate end to end: four pods spreading by zone over two zones land two and two,
    although least-requested alone would keep the tie on the first node."""
    objects: list[Model] = [
        queue("default"),
        node("n1", labels={"zone": "z1"}),
        node("n2", labels={"zone": "z2"}),
        group("g", 4),
        *(
            pod(f"p-{i}", "g", labels={"app": "x"}, topologySpreadConstraints=[_spread(app="x")])
            for i in range(4)
        ),
    ]
    arguments = {**ZERO, "podtopologyspread.weight": 2, "leastrequested.weight": 0}
    binds = schedule(
        objects,
        conf_text("allocate", ["gang"], [{"name": "nodeorder", "arguments": arguments}]),
    ).binds
    assert sorted(binds.values()) == ["n1", "n1", "n2", "n2"]
