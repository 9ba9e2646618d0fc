"""kubeflow/training-operator release-1.9 ``pkg/controller.v1/pytorch/elastic_test.go``, ported:
``TestElasticGenerate`` through Shoal's ``elastic_env`` (the variables are compared as a set,
as upstream's ``ConsistOf`` does)."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.pytorchjob.objects import elastic_env
from services.jobcontroller.pytorchjob.spec import pytorch_view
from shared.models import PyTorchJob, convert

WORKER_ONLY: dict[str, Any] = {"Worker": {"replicas": 1, "template": {"spec": {"containers": [
    {"name": "pytorch", "image": "test"}]}}}}  # fmt: skip


def job(elastic_policy: dict[str, Any] | None) -> PyTorchJob:
    spec: dict[str, Any] = {"pytorchReplicaSpecs": WORKER_ONLY}
    if elastic_policy is not None:
        spec["elasticPolicy"] = elastic_policy
    return convert({"metadata": {"name": "job", "namespace": "ns"}, "spec": spec}, PyTorchJob)


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (None, set()),
        (
            {
                "minReplicas": 1,
                "maxReplicas": 3,
                "rdzvBackend": "c10d",
                "rdzvPort": 1234,
                "rdzvHost": "localhost",
                "rdzvId": "rdzv-id",
                "rdzvConf": [
                    {"key": "rdzv-conf-name", "value": "rdzv-conf-value"},
                    {"key": "rdzv-conf-name-1", "value": "rdzv-conf-value-1"},
                ],
                "maxRestarts": 3,
            },
            {
                ("PET_MAX_RESTARTS", "3"),
                ("PET_RDZV_BACKEND", "c10d"),
                ("PET_RDZV_ENDPOINT", "localhost:1234"),
                ("PET_RDZV_ID", "rdzv-id"),
                (
                    "PET_RDZV_CONF",
                    "rdzv-conf-name=rdzv-conf-value,rdzv-conf-name-1=rdzv-conf-value-1",
                ),
                ("PET_NNODES", "1:3"),
            },
        ),
    ],
    ids=["Without ElasticPolicy", "With ElasticPolicy"],
)
def test_elastic_generate(policy: dict[str, Any] | None, expected: set[tuple[str, str]]) -> None:
    env = elastic_env(pytorch_view(job(policy)))
    got = [(e["name"], e["value"]) for e in env]
    assert len(got) == len(set(got))
    assert set(got) == expected
