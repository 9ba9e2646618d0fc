"""Which model decodes which manifest: (apiVersion, kind) → Struct type, and decoding helpers.

Decoding errors become ``ManifestError`` naming the document and the field, so the CLI can print
one line and services can put the message in a condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar

import msgspec
import yaml

from shared.errors import ManifestError, QuantityError
from shared.models.autoscaling import MetricSpecError, check_metric_specs
from shared.models.base import Json, Model, Resource
from shared.models.batch import CronJob, Job
from shared.models.core import (
    ConfigMap,
    Event,
    Lease,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
)
from shared.models.kubeflow import PyTorchJob
from shared.models.kueue import ClusterQueue, Cohort, LocalQueue, ResourceFlavor, Workload
from shared.models.topology import HyperNode
from shared.models.volcano import Command, PodGroup, Queue, VolcanoJob
from shared.quantities import parse_quantity

M = TypeVar("M", bound=Model)

KINDS: Mapping[tuple[str, str], type[Model]] = {
    ("v1", "Pod"): Pod,
    ("v1", "Node"): Node,
    ("v1", "Service"): Service,
    ("v1", "Event"): Event,
    ("v1", "ConfigMap"): ConfigMap,
    ("v1", "Namespace"): Namespace,
    ("coordination.k8s.io/v1", "Lease"): Lease,
    ("scheduling.k8s.io/v1", "PriorityClass"): PriorityClass,
    ("policy/v1", "PodDisruptionBudget"): PodDisruptionBudget,
    ("batch/v1", "Job"): Job,
    ("batch/v1", "CronJob"): CronJob,
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): PodGroup,
    ("scheduling.volcano.sh/v1beta1", "Queue"): Queue,
    ("batch.volcano.sh/v1alpha1", "Job"): VolcanoJob,
    ("bus.volcano.sh/v1alpha1", "Command"): Command,
    ("topology.volcano.sh/v1alpha1", "HyperNode"): HyperNode,
    ("kubeflow.org/v1", "PyTorchJob"): PyTorchJob,
    ("kueue.x-k8s.io/v1beta1", "ResourceFlavor"): ResourceFlavor,
    ("kueue.x-k8s.io/v1beta1", "ClusterQueue"): ClusterQueue,
    ("kueue.x-k8s.io/v1beta1", "LocalQueue"): LocalQueue,
    ("kueue.x-k8s.io/v1beta1", "Workload"): Workload,
    ("kueue.x-k8s.io/v1beta1", "Cohort"): Cohort,
    # Kueue's current API, the one the services speak: the same models read both (v1beta2
    # renames are fields of both).
    ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"): ResourceFlavor,
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue"): ClusterQueue,
    ("kueue.x-k8s.io/v1beta2", "LocalQueue"): LocalQueue,
    ("kueue.x-k8s.io/v1beta2", "Workload"): Workload,
    ("kueue.x-k8s.io/v1beta2", "Cohort"): Cohort,
}
# Keys whose values are ResourceLists anywhere in a manifest; checked so a bad quantity is
# reported at load time with its path, not deep inside a scheduling cycle.
_RESOURCE_LIST_KEYS = frozenset(
    {
        "requests",
        "limits",
        "overhead",
        "capacity",
        "allocatable",
        "minResources",
        "capability",
        "deserved",
    }
)
# Keys that hold a ResourceList only under some parents: a Volcano Queue's ``guarantee.resource``
# and ``status.reservation.resource`` (an autoscaling/v2 MetricSpec's ``resource`` is a metric
# source, not a ResourceList).
_RESOURCE_LIST_UNDER = {"resource": frozenset({"guarantee", "reservation"})}
_PATH = re.compile(r"at `\$\.?(.*)`")


def _field_of(error: msgspec.ValidationError) -> str:
    match = _PATH.search(str(error))
    return match.group(1) if match else ""


def convert(obj: Mapping[str, Any], model: type[M], *, document: str = "") -> M:
    """Convert an API dict into ``model``; errors name the document and the field."""
    try:
        return msgspec.convert(obj, model, strict=False)
    except msgspec.ValidationError as exc:
        message = str(exc).split(" - at ")[0]
        raise ManifestError(message, document=document, field=_field_of(exc)) from None


def model_for(api_version: str, kind: str) -> type[Model] | None:
    return KINDS.get((api_version, kind))


def describe(obj: Mapping[str, Any], index: int | None = None) -> str:
    meta = obj.get("metadata") or {}
    name = meta.get("name") or meta.get("generateName") or "?" if isinstance(meta, dict) else "?"
    where = f"document {index}" if index is not None else "object"
    return f"{where} ({obj.get('kind', '?')} {name})"


def _is_resource_list(key: object, parent: object) -> bool:
    return key in _RESOURCE_LIST_KEYS or (
        isinstance(key, str) and parent in _RESOURCE_LIST_UNDER.get(key, ())
    )


def check_quantities(obj: Any, path: str = "", parent: object = None) -> None:
    """Parse every ResourceList quantity in ``obj``; raise QuantityError naming the path."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            sub = f"{path}.{key}" if path else str(key)
            if _is_resource_list(key, parent) and isinstance(value, dict):
                for name, quantity in value.items():
                    if isinstance(quantity, str | int | float):
                        try:
                            parse_quantity(quantity)
                        except QuantityError as exc:
                            raise QuantityError(f"field {sub}.{name}: {exc}") from None
            else:
                check_quantities(value, sub, key)
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            check_quantities(item, f"{path}[{i}]")


def decode_object(obj: Mapping[str, Any], *, document: str = "", strict_kind: bool = True) -> Model:
    """Decode one API object into its model (``Resource`` for kinds Shoal does not model)."""
    if not isinstance(obj, Mapping):
        raise ManifestError("expected a mapping (a Kubernetes object)", document=document)
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not api_version:
        raise ManifestError("missing apiVersion", document=document, field="apiVersion")
    if not isinstance(kind, str) or not kind:
        raise ManifestError("missing kind", document=document, field="kind")
    model = KINDS.get((api_version, kind))
    if model is None:
        if strict_kind:
            raise ManifestError(f"unknown kind {api_version}/{kind}", document=document)
        model = Resource
    try:
        check_quantities(obj)
        if model is PyTorchJob:
            _check_elastic_metrics(obj)
    except QuantityError as exc:
        raise ManifestError(str(exc), document=document) from None
    except MetricSpecError as exc:
        raise ManifestError(exc.message, document=document, field=exc.field) from None
    return convert(obj, model, document=document)


def _check_elastic_metrics(obj: Mapping[str, Any]) -> None:
    spec = obj.get("spec")
    policy = spec.get("elasticPolicy") if isinstance(spec, Mapping) else None
    if isinstance(policy, Mapping) and policy.get("metrics") is not None:
        check_metric_specs(policy["metrics"], "spec.elasticPolicy.metrics")


def iter_documents(text: str, *, source: str = "input") -> Iterator[tuple[int, Json]]:
    """The non-empty YAML documents of a (multi-document) manifest, expanding ``List`` kinds."""
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        raise ManifestError(f"invalid YAML: {exc}".replace("\n", " "), document=source) from None
    index = 0
    for doc in documents:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise ManifestError("expected a mapping", document=f"{source} document {index}")
        items = doc.get("items") if str(doc.get("kind", "")).endswith("List") else None
        for item in items if isinstance(items, list) else [doc]:
            yield index, item
            index += 1


def load_manifests(text: str, *, source: str = "input", strict_kind: bool = True) -> list[Model]:
    """Decode every document of a manifest file into models, in order."""
    return [
        decode_object(obj, document=f"{source} {describe(obj, index)}", strict_kind=strict_kind)
        for index, obj in iter_documents(text, source=source)
    ]


def to_dict(model: Model) -> Json:
    """A model back to an API dict (defaults omitted)."""
    result: Json = msgspec.to_builtins(model)
    return result


def of_kind(objects: Iterable[Model], model: type[M]) -> list[M]:
    return [obj for obj in objects if isinstance(obj, model)]
