"""kube-scheduler ``pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go``, as
Volcano's nodeorder calls it (``imagelocality.weight``): ``TestImageLocalityPriority`` (one row
per case: the pod scored on every node of a session with nodeorder's image locality alone,
weight 1) and ``TestNormalizedImageName``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import pytest

from services.scheduler.framework.placement import Placer
from services.scheduler.plugins import nodeorder
from services.scheduler.plugins.kubescores.imagelocality import normalized_image_name
from shared.models import Model, Node, Pod
from tests.unit.scheduler.builders import conf_text, group, queue, session

MB = 1024 * 1024


def _status(*images: tuple[list[str], int]) -> list[dict[str, Any]]:
    return [{"names": names, "sizeBytes": size * MB} for names, size in images]


NODE_40_300_2000 = _status(
    (["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300),
    (["gcr.io/2000:latest"], 2000),
)
NODE_250_10 = _status((["gcr.io/250:latest"], 250), (["gcr.io/10:latest", "gcr.io/10:v1"], 10))
NODE_600_40_900 = _status(
    (["gcr.io/600:latest"], 600), (["gcr.io/40:latest"], 40), (["gcr.io/900:latest"], 900)
)
NODE_300_600_900 = _status(
    (["gcr.io/300:latest"], 300), (["gcr.io/600:latest"], 600), (["gcr.io/900:latest"], 900)
)
NODE_4000_30 = _status((["gcr.io/4000:latest"], 4000), (["gcr.io/30:latest"], 30))
NODE_20_30_40 = _status(
    (["gcr.io/20:latest"], 20), (["gcr.io/30:latest"], 30), (["gcr.io/40:latest"], 40)
)
NO_IMAGES: list[dict[str, Any]] = []


def _spec(*images: str, init: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "containers": [{"name": f"c{i}", "image": image} for i, image in enumerate(images)],
        "initContainers": [{"name": f"i{i}", "image": image} for i, image in enumerate(init)],
    }


CASES = [
    pytest.param(
        _spec("gcr.io/40", "gcr.io/250"),
        [NODE_40_300_2000, NODE_250_10],
        [0, 5],
        id="two images spread on two nodes, prefer the larger image one",
    ),
    pytest.param(
        _spec("gcr.io/40", "gcr.io/300"),
        [NODE_40_300_2000, NODE_250_10],
        [7, 0],
        id="two images on one node, prefer this node",
    ),
    pytest.param(
        _spec("gcr.io/10", "gcr.io/4000"),
        [NODE_4000_30, NODE_250_10],
        [100, 0],
        id="if exceed limit, use limit",
    ),
    pytest.param(
        _spec("gcr.io/10", "gcr.io/4000"),
        [NODE_4000_30, NODE_250_10, NO_IMAGES],
        [66, 0, 0],
        id="if exceed limit, use limit (with node which has no images present)",
    ),
    pytest.param(
        _spec("gcr.io/300", "gcr.io/600", "gcr.io/900"),
        [NODE_600_40_900, NODE_300_600_900, NO_IMAGES],
        [32, 36, 0],
        id="pod with multiple large images, node2 is preferred",
    ),
    pytest.param(
        _spec("gcr.io/30", "gcr.io/40"),
        [NODE_20_30_40, NODE_4000_30],
        [1, 0],
        id="pod with multiple small images",
    ),
    pytest.param(
        _spec("gcr.io/30", init=("gcr.io/300",)),
        [NODE_40_300_2000, NODE_20_30_40],
        [6, 0],
        id="include InitContainers: two images spread on two nodes, prefer the larger image one",
    ),
]


def _node(name: str, images: list[dict[str, Any]]) -> Node:
    return msgspec.convert({"metadata": {"name": name}, "status": {"images": images}}, Node)


@pytest.mark.parametrize(("spec", "nodes", "expected"), CASES)
def test_image_locality_priority(
    spec: dict[str, Any], nodes: list[list[dict[str, Any]]], expected: list[int]
) -> None:
    pod = msgspec.convert(
        {
            "metadata": {
                "name": "p",
                "namespace": "default",
                "annotations": {"scheduling.k8s.io/group-name": "g"},
            },
            "spec": {"schedulerName": "volcano", **spec},
            "status": {"phase": "Pending"},
        },
        Pod,
    )
    objects: list[Model] = [
        queue("default"),
        *(_node(f"node{i + 1}", images) for i, images in enumerate(nodes)),
        group("g"),
        pod,
    ]
    arguments = {key: 0 for key in nodeorder.WEIGHTS} | {"imagelocality.weight": 1}
    ssn = session(objects, conf_text("allocate", [{"name": "nodeorder", "arguments": arguments}]))
    scores = Placer(ssn).scores(ssn.jobs["default/g"].tasks["default/p"], slice(None))
    assert scores.tolist() == [float(s) for s in expected]


def _digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(
    ("name", "want"),
    [
        pytest.param("root", "root:latest", id="add :latest postfix 1"),
        pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
        pytest.param("root:tag", "root:tag", id="keep it as is 1"),
        pytest.param(f"root@{_digest('root')}", f"root@{_digest('root')}", id="keep it as is 2"),
    ],
)
def test_normalized_image_name(name: str, want: str) -> None:
    assert normalized_image_name(name) == want
