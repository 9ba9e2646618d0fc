"""autoscaling/v2 ``MetricSpec`` validation, as the API server validates a HorizontalPodAutoscaler.

A PyTorchJob's ``spec.elasticPolicy.metrics`` holds autoscaling/v2 MetricSpecs (the training
operator makes an HPA of them). Their ``resource`` is a metric source (``name``, ``target``), not
a ResourceList, so the only quantities in them are a target's ``value`` and ``averageValue``.
The rules and messages are those of ``validateMetricSpec`` and ``validateMetricTarget`` in
Kubernetes' ``pkg/apis/autoscaling/validation``; the first error found is reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.errors import QuantityError
from shared.quantities import parse_quantity

# MetricSpec.type → the field holding its source.
SOURCES = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "External": "external",
}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")


class MetricSpecError(ValueError):
    """A MetricSpec the API server would refuse: the field's path and upstream's message."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def check_metric_specs(metrics: object, path: str) -> None:
    """Validate a list of MetricSpecs at ``path``; raise ``MetricSpecError`` for the first fault."""
    if not isinstance(metrics, list):
        raise MetricSpecError(path, "expected a list of MetricSpecs")
    for i, spec in enumerate(metrics):
        if not isinstance(spec, Mapping):
            raise MetricSpecError(f"{path}[{i}]", "expected a MetricSpec (a mapping)")
        _check_metric_spec(spec, f"{path}[{i}]")


def _check_metric_spec(spec: Mapping[str, Any], path: str) -> None:
    kind = spec.get("type") or ""
    if not kind:
        raise MetricSpecError(f"{path}.type", "must specify a metric source type")
    if kind not in SOURCES:
        supported = ", ".join(f'"{name}"' for name in sorted(SOURCES))
        raise MetricSpecError(
            f"{path}.type", f'Unsupported value: "{kind}": supported values: {supported}'
        )
    expected = SOURCES[kind]
    for field in SOURCES.values():
        if field != expected and spec.get(field) is not None:
            raise MetricSpecError(f"{path}.{field}", "must populate the given metric source only")
    source = spec.get(expected)
    if not isinstance(source, Mapping):
        raise MetricSpecError(
            f"{path}.{expected}", "must populate information for the given metric source"
        )
    _check_source(expected, source, f"{path}.{expected}")


def _check_source(kind: str, source: Mapping[str, Any], path: str) -> None:
    if kind in ("resource", "containerResource") and not source.get("name"):
        raise MetricSpecError(f"{path}.name", "must specify a resource name")
    if kind == "containerResource" and not source.get("container"):
        raise MetricSpecError(f"{path}.container", "must specify a container")
    if kind in ("object", "pods", "external"):
        metric = source.get("metric")
        if not isinstance(metric, Mapping) or not metric.get("name"):
            raise MetricSpecError(f"{path}.metric.name", "must specify a metric name")
    target = source.get("target")
    target = target if isinstance(target, Mapping) else {}
    _check_target(target, f"{path}.target")
    value, average = target.get("value"), target.get("averageValue")
    utilization = target.get("averageUtilization")
    if kind in ("resource", "containerResource"):
        if utilization is None and average is None:
            raise MetricSpecError(
                f"{path}.target.averageUtilization",
                "must set either a target raw value or a target utilization",
            )
        if utilization is not None and average is not None:
            raise MetricSpecError(
                f"{path}.target.averageValue",
                "may not set both a target raw value and a target utilization",
            )
    elif kind == "pods" and average is None:
        raise MetricSpecError(
            f"{path}.target.averageValue", "must specify a positive target averageValue"
        )
    elif kind == "object" and value is None and average is None:
        raise MetricSpecError(
            f"{path}.target.averageValue", "must set either a target value or averageValue"
        )
    elif kind == "external" and value is None and average is None:
        raise MetricSpecError(
            f"{path}.target.averageValue",
            "must set either a target value for metric or a per-pod target",
        )


def _check_target(target: Mapping[str, Any], path: str) -> None:
    kind = target.get("type") or ""
    if not kind:
        raise MetricSpecError(f"{path}.type", "must specify a metric target type")
    if kind not in TARGET_TYPES:
        raise MetricSpecError(
            f"{path}.type",
            f'Invalid value: "{kind}": must be either Utilization, Value, or AverageValue',
        )
    for field in ("value", "averageValue"):
        if target.get(field) is None:
            continue
        try:
            positive = parse_quantity(target[field]).exact > 0
        except QuantityError as exc:
            raise MetricSpecError(f"{path}.{field}", str(exc)) from None
        if not positive:
            raise MetricSpecError(f"{path}.{field}", "must be positive")
    utilization = target.get("averageUtilization")
    if utilization is not None and (
        isinstance(utilization, bool) or not isinstance(utilization, int) or utilization < 1
    ):
        raise MetricSpecError(f"{path}.averageUtilization", "must be greater than 0")
