"""Validation of the fields Shoal relies on; each failure names the field, as ``field.Error``.

``validate(kind, obj)`` returns a list of causes ``(field, reason, message)``; the caller turns a
non-empty list into 422 Invalid. Only what Shoal's services and users depend on is checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from shared.errors import QuantityError
from shared.quantities import parse_quantity

Cause = tuple[str, str, str]
Obj = dict[str, Any]

_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_QUANTITY_PATTERN = "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_RESTART_POLICIES = ("Always", "OnFailure", "Never")
# Kinds whose names must be DNS-1123 labels rather than subdomains.
_LABEL_NAMED = frozenset({"Namespace", "Service"})


def required(field: str) -> Cause:
    return (field, "FieldValueRequired", "Required value")


def bad_value(field: str, value: Any, why: str) -> Cause:
    return (field, "FieldValueInvalid", f"Invalid value: {value!r}: {why}")


def unsupported(field: str, value: Any, allowed: tuple[str, ...]) -> Cause:
    choices = ", ".join(f'"{a}"' for a in allowed)
    return (
        field,
        "FieldValueNotSupported",
        f"Unsupported value: {value!r}: supported values: {choices}",
    )


def dns_label(value: str) -> bool:
    return len(value) <= 63 and bool(_LABEL.match(value))


def dns_subdomain(value: str) -> bool:
    return len(value) <= 253 and bool(_SUBDOMAIN.match(value))


def validate_name(kind: str, name: str, field: str = "metadata.name") -> list[Cause]:
    if not name:
        return [(field, "FieldValueRequired", "Required value: name or generateName is required")]
    if kind in _LABEL_NAMED:
        if not dns_label(name):
            why = "a lowercase RFC 1123 label must consist of lower case alphanumerics or '-'"
            return [bad_value(field, name, why)]
    elif not dns_subdomain(name):
        why = (
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character"
        )
        return [bad_value(field, name, why)]
    return []


def _validate_labels(meta: Obj) -> list[Cause]:
    causes: list[Cause] = []
    labels = meta.get("labels") or {}
    if not isinstance(labels, dict):
        return [bad_value("metadata.labels", labels, "must be a map of strings")]
    for key, value in labels.items():
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            causes.append(
                bad_value("metadata.labels", value, "a valid label must be 63 characters or less")
            )
        elif not key or len(key.rsplit("/", 1)[-1]) > 63:
            causes.append(
                bad_value("metadata.labels", key, "name part must be 63 characters or less")
            )
    return causes


def _validate_resource_list(values: Any, field: str) -> list[Cause]:
    if values is None:
        return []
    if not isinstance(values, dict):
        return [bad_value(field, values, "must be a map of quantities")]
    causes: list[Cause] = []
    for name, quantity in values.items():
        try:
            if parse_quantity(quantity).exact < 0:
                causes.append(
                    bad_value(f"{field}[{name}]", quantity, "must be greater than or equal to 0")
                )
        except QuantityError:
            why = "quantities must match the regular expression " + _QUANTITY_PATTERN
            causes.append(bad_value(f"{field}[{name}]", quantity, why))
    return causes


def _validate_containers(containers: Any, field: str, *, required_list: bool) -> list[Cause]:
    if not containers:
        return [required(field)] if required_list else []
    if not isinstance(containers, list):
        return [bad_value(field, containers, "must be a list")]
    causes: list[Cause] = []
    seen: set[str] = set()
    for i, container in enumerate(containers):
        at = f"{field}[{i}]"
        if not isinstance(container, dict):
            causes.append(bad_value(at, container, "must be an object"))
            continue
        name = container.get("name")
        if not name:
            causes.append(required(f"{at}.name"))
        elif not isinstance(name, str) or not dns_label(name):
            causes.append(bad_value(f"{at}.name", name, "must be a DNS-1123 label"))
        elif name in seen:
            causes.append((f"{at}.name", "FieldValueDuplicate", f"Duplicate value: {name!r}"))
        else:
            seen.add(name)
        if not container.get("image"):
            causes.append(required(f"{at}.image"))
        resources = container.get("resources") or {}
        causes += _validate_resource_list(resources.get("requests"), f"{at}.resources.requests")
        causes += _validate_resource_list(resources.get("limits"), f"{at}.resources.limits")
    return causes


def validate_pod_spec(spec: Any, field: str) -> list[Cause]:
    if not isinstance(spec, dict):
        return [required(field)]
    causes = _validate_containers(spec.get("containers"), f"{field}.containers", required_list=True)
    causes += _validate_containers(
        spec.get("initContainers"), f"{field}.initContainers", required_list=False
    )
    policy = spec.get("restartPolicy")
    if policy is not None and policy not in _RESTART_POLICIES:
        causes.append(unsupported(f"{field}.restartPolicy", policy, _RESTART_POLICIES))
    return causes


def _pod(obj: Obj) -> list[Cause]:
    return validate_pod_spec(obj.get("spec"), "spec")


def _node(obj: Obj) -> list[Cause]:
    status = obj.get("status") or {}
    return _validate_resource_list(status.get("capacity"), "status.capacity") + (
        _validate_resource_list(status.get("allocatable"), "status.allocatable")
    )


def _batch_job(obj: Obj) -> list[Cause]:
    spec = obj.get("spec") or {}
    template = spec.get("template")
    if not isinstance(template, dict):
        return [required("spec.template")]
    causes = validate_pod_spec(template.get("spec"), "spec.template.spec")
    policy = (template.get("spec") or {}).get("restartPolicy")
    if policy not in ("Never", "OnFailure"):
        causes.append(
            unsupported("spec.template.spec.restartPolicy", policy, ("OnFailure", "Never"))
        )
    for name in ("parallelism", "completions", "backoffLimit"):
        value = spec.get(name)
        if value is not None and (not isinstance(value, int) or value < 0):
            causes.append(bad_value(f"spec.{name}", value, "must be greater than or equal to 0"))
    return causes


def _volcano_job(obj: Obj) -> list[Cause]:
    spec = obj.get("spec") or {}
    tasks = spec.get("tasks")
    if not tasks or not isinstance(tasks, list):
        return [required("spec.tasks")]
    causes: list[Cause] = []
    for i, task in enumerate(tasks):
        template = task.get("template") if isinstance(task, dict) else None
        if not isinstance(template, dict):
            causes.append(required(f"spec.tasks[{i}].template"))
            continue
        causes += validate_pod_spec(template.get("spec"), f"spec.tasks[{i}].template.spec")
        replicas = task.get("replicas", 0)
        if not isinstance(replicas, int) or replicas < 0:
            causes.append(bad_value(f"spec.tasks[{i}].replicas", replicas, "must be >= 0"))
    min_available = spec.get("minAvailable", 0)
    if not isinstance(min_available, int) or min_available < 0:
        causes.append(bad_value("spec.minAvailable", min_available, "must be >= 0"))
    return causes


def _pytorch_job(obj: Obj) -> list[Cause]:
    specs = (obj.get("spec") or {}).get("pytorchReplicaSpecs")
    if not isinstance(specs, dict) or not specs:
        return [required("spec.pytorchReplicaSpecs")]
    causes: list[Cause] = []
    for role, replica in specs.items():
        template = replica.get("template") if isinstance(replica, dict) else None
        at = f"spec.pytorchReplicaSpecs[{role}]"
        if not isinstance(template, dict):
            causes.append(required(f"{at}.template"))
            continue
        causes += validate_pod_spec(template.get("spec"), f"{at}.template.spec")
    return causes


def _podgroup(obj: Obj) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = _validate_resource_list(spec.get("minResources"), "spec.minResources")
    min_member = spec.get("minMember", 0)
    if not isinstance(min_member, int) or min_member < 0:
        causes.append(bad_value("spec.minMember", min_member, "must be >= 0"))
    return causes


def _queue(obj: Obj) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes: list[Cause] = []
    for name in ("capability", "deserved", "guarantee"):
        value = spec.get(name)
        if name == "guarantee" and isinstance(value, dict):
            value = value.get("resource")
        causes += _validate_resource_list(value, f"spec.{name}")
    return causes


_BY_KIND: dict[tuple[str, str], Callable[[Obj], list[Cause]]] = {
    ("v1", "Pod"): _pod,
    ("v1", "Node"): _node,
    ("batch/v1", "Job"): _batch_job,
    ("batch.volcano.sh/v1alpha1", "Job"): _volcano_job,
    ("kubeflow.org/v1", "PyTorchJob"): _pytorch_job,
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): _podgroup,
    ("scheduling.volcano.sh/v1beta1", "Queue"): _queue,
}


def validate(api_version: str, kind: str, obj: Obj) -> list[Cause]:
    meta = obj.get("metadata") or {}
    causes = validate_name(kind, meta.get("name") or "")
    causes += _validate_labels(meta)
    check = _BY_KIND.get((api_version, kind))
    if check is not None:
        causes += check(obj)
    return causes
