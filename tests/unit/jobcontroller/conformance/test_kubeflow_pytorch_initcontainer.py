"""kubeflow/training-operator release-1.9 ``pkg/controller.v1/pytorch/initcontainer_test.go``,
ported: ``TestInitContainer`` (its rows are unnamed upstream; the ids say what each row is).
The pods Shoal builds are checked: a Worker of a job with a Master gets the operator's
``init-pytorch`` container from its default template; a Master, or a Worker without a Master,
gets none."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.core import Observed
from services.jobcontroller.pytorchjob import reconcile
from shared.models import PyTorchJob, convert

NOW = 1_714_557_600.0
TEMPLATE: dict[str, Any] = {"spec": {"containers": [{"name": "pytorch", "image": "test"}]}}


def job(*types: str) -> PyTorchJob:
    specs = {t: {"replicas": 1, "template": TEMPLATE} for t in types}
    body = {"metadata": {"name": "job", "namespace": "ns", "uid": "u"},
            "spec": {"pytorchReplicaSpecs": specs}}  # fmt: skip
    return convert(body, PyTorchJob)


@pytest.mark.parametrize(
    ("replica_types", "pod", "expected"),
    [
        (("Worker",), "job-worker-0", 0),
        (("Worker", "Master"), "job-worker-0", 1),
        (("Worker", "Master"), "job-master-0", 0),
    ],
    ids=["row 1: Worker, no Master", "row 2: Worker with a Master", "row 3: Master"],
)
def test_init_container(replica_types: tuple[str, ...], pod: str, expected: int) -> None:
    actions = reconcile(job(*replica_types), Observed(), NOW)
    pods = {p["metadata"]["name"]: p for p in actions.create if p["kind"] == "Pod"}
    init = pods[pod]["spec"].get("initContainers", [])
    assert len(init) == expected
    if expected:
        (container,) = init
        assert container["name"] == "init-pytorch"
        assert container["image"] == "alpine:3.10"
        assert container["imagePullPolicy"] == "IfNotPresent"
        assert container["resources"] == {
            "limits": {"cpu": "100m", "memory": "20Mi"},
            "requests": {"cpu": "50m", "memory": "10Mi"},
        }
        assert container["command"] == [
            "sh",
            "-c",
            "err=1;for i in $(seq 100); do if nslookup job-master-0; then err=0 && break; fi;"
            "echo waiting for master; sleep 2; done; exit $err",
        ]
