"""A PyTorchJob's elasticPolicy.metrics are autoscaling/v2 MetricSpecs, validated as upstream's.

The rows of the refused table are cases of Kubernetes' ``TestValidateHorizontalPodAutoscaler``
(``pkg/apis/autoscaling/validation``), with upstream's message for each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.errors import ManifestError
from shared.models import PyTorchJob, Queue, load_manifests

UPSTREAM = Path(__file__).parents[2] / "data" / "upstream" / "training-operator"


def _job(metrics: list[dict[str, Any]]) -> str:
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "elastic"},
        "spec": {
            "elasticPolicy": {"minReplicas": 1, "maxReplicas": 3, "metrics": metrics},
            "pytorchReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {}}}},
        },
    }
    return yaml.safe_dump(job)


def _resource(target: dict[str, Any], name: str = "cpu") -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "target": target}}


@pytest.mark.parametrize("example", sorted(p.name for p in UPSTREAM.glob("*.yaml")))
def test_the_training_operators_examples_load(example: str) -> None:
    (job,) = load_manifests((UPSTREAM / example).read_text(), source=example)
    assert isinstance(job, PyTorchJob)
    if example == "imagenet.yaml":  # an autoscaling/v2 Resource metric
        assert job.spec.elasticPolicy is not None
        assert job.spec.elasticPolicy.metrics[0]["resource"]["name"] == "cpu"


ACCEPTED = [
    _resource({"type": "Utilization", "averageUtilization": 80}),
    _resource({"type": "AverageValue", "averageValue": "500m"}),
    {"type": "ContainerResource", "containerResource": {
        "name": "memory", "container": "pytorch",
        "target": {"type": "AverageValue", "averageValue": "1Gi"}}},
    {"type": "Pods", "pods": {"metric": {"name": "packets"},
                              "target": {"type": "AverageValue", "averageValue": "1k"}}},
    {"type": "External", "external": {"metric": {"name": "queue"},
                                      "target": {"type": "Value", "value": 30}}},
]  # fmt: skip


@pytest.mark.parametrize(
    "metric", ACCEPTED, ids=["utilization", "average-value", "container", "pods", "external"]
)
def test_valid_metric_specs_are_accepted(metric: dict[str, Any]) -> None:
    (job,) = load_manifests(_job([metric]))
    assert isinstance(job, PyTorchJob)


REFUSED = [
    ({"resource": {"name": "cpu"}}, "metrics[0].type: must specify a metric source type"),
    ({"type": "Gauge"}, 'metrics[0].type: Unsupported value: "Gauge"'),
    ({"type": "Resource"}, "resource: must populate information for the given metric source"),
    (
        {**_resource({"type": "Utilization", "averageUtilization": 80}), "pods": {}},
        "metrics[0].pods: must populate the given metric source only",
    ),
    (
        _resource({"type": "Utilization", "averageUtilization": 80}, name=""),
        "resource.name: must specify a resource name",
    ),
    (_resource({"averageUtilization": 80}), "target.type: must specify a metric target type"),
    (
        _resource({"type": "Percent", "averageUtilization": 80}),
        "must be either Utilization, Value, or AverageValue",
    ),
    (
        _resource({"type": "Utilization", "averageUtilization": -10}),
        "target.averageUtilization: must be greater than 0",
    ),
    (
        _resource({"type": "Value"}),
        "target.averageUtilization: must set either a target raw value or a target utilization",
    ),
    (
        _resource({"type": "Utilization", "averageUtilization": 80, "averageValue": "1"}),
        "may not set both a target raw value and a target utilization",
    ),
    (
        _resource({"type": "AverageValue", "averageValue": "8x0"}),
        "target.averageValue: invalid quantity '8x0'",
    ),
    (
        _resource({"type": "AverageValue", "averageValue": "0"}),
        "target.averageValue: must be positive",
    ),
    (
        {"type": "Pods", "pods": {"metric": {}, "target": {"type": "AverageValue",
                                                           "averageValue": "1"}}},
        "pods.metric.name: must specify a metric name",
    ),
]  # fmt: skip
REFUSED_IDS = [
    "no-type", "unknown-type", "no-source", "two-sources", "no-resource-name", "no-target-type",
    "bad-target-type", "utilization-below-1", "no-target-value", "value-and-utilization",
    "bad-quantity", "zero-quantity", "no-metric-name",
]  # fmt: skip


@pytest.mark.parametrize(("metric", "needle"), REFUSED, ids=REFUSED_IDS)
def test_invalid_metric_specs_are_refused_naming_the_field(
    metric: dict[str, Any], needle: str
) -> None:
    with pytest.raises(ManifestError) as info:
        load_manifests(_job([metric]), source="job.yaml")
    message = str(info.value)
    assert message.startswith("job.yaml document 0 (PyTorchJob elastic), field spec.elasticPolicy")
    assert needle in message


@pytest.mark.parametrize(
    ("field", "path"),
    [("spec: {guarantee: ", "spec.guarantee"), ("status: {reservation: ", "status.reservation")],
    ids=["guarantee", "reservation"],
)
def test_a_queues_resource_is_still_a_resource_list(field: str, path: str) -> None:
    queue = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\n"
    (loaded,) = load_manifests(queue + field + "{resource: {cpu: '2'}}}\n")
    assert isinstance(loaded, Queue)
    with pytest.raises(ManifestError, match=rf"{path}\.resource\.cpu: invalid quantity"):
        load_manifests(queue + field + "{resource: {cpu: two}}}\n")
