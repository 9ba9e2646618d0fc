"""Validation of the fields Shoal relies on; each failure names the field, as ``field.Error``.

``validate(kind, obj)`` returns a list of causes ``(field, reason, message)``; the caller turns a
non-empty list into 422 Invalid. Only what Shoal's services and users depend on is checked, plus
the API server's size limit on annotations and Shoal's own bounds: a quantity must fit in a
64-bit milli-value (what Kubernetes' ``MilliValue`` and Shoal's scheduler hold) and a Volcano
task or PyTorchJob replica type has at most ``MAX_REPLICAS`` pods.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Callable
from typing import Any

from services.kubesim import batch_selector, batch_validation, cronjob_validation
from shared.errors import QuantityError
from shared.kube.fielderrors import Cause, go_value, too_long
from shared.quantities import parse_quantity

Obj = dict[str, Any]
# apimachinery TotalAnnotationSizeLimitB: keys and values of an object's annotations, in bytes.
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
# The largest milli-value of a quantity (int64), as Kubernetes' Quantity.MilliValue holds it.
MAX_MILLI = 2**63 - 1

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
    return (field, "FieldValueInvalid", f"Invalid value: {go_value(value)}: {why}")


def unsupported(field: str, value: Any, allowed: tuple[str, ...]) -> Cause:
    choices = ", ".join(f'"{a}"' for a in allowed)
    return (
        field,
        "FieldValueNotSupported",
        f"Unsupported value: {go_value(value)}: supported values: {choices}",
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
        if isinstance(quantity, str | int | float):
            why = _known_quantity_problem(quantity, type(quantity).__name__)
        else:
            why = _quantity_problem(quantity)
        if why is not None:
            causes.append(bad_value(f"{field}[{name}]", quantity, why))
    return causes


@functools.lru_cache(maxsize=4096)
def _known_quantity_problem(quantity: str | int | float, kind: str) -> str | None:
    """``_quantity_problem`` memoised by value and type: every pod of a template repeats the
    same few quantities, and parsing one is exact rational arithmetic."""
    return _quantity_problem(quantity)


def _quantity_problem(quantity: Any) -> str | None:
    """What is wrong with a quantity, or None."""
    try:
        parsed = parse_quantity(quantity)
    except QuantityError:
        return "quantities must match the regular expression " + _QUANTITY_PATTERN
    if parsed.exact < 0:
        return "must be greater than or equal to 0"
    if parsed.exact * 1000 > MAX_MILLI:
        return (
            f"must be at most {MAX_MILLI}m (a 64-bit milli-value); no cluster holds "
            "more, and Shoal cannot schedule it"
        )
    return None


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
    for name in ("parallelism", "completions", "backoffLimit"):
        value = spec.get(name)
        if value is not None and not isinstance(value, int):
            return [bad_value(f"spec.{name}", value, "must be an integer")]
    # The spec rules need the defaults (completions, pod failure policy statuses, the selector):
    # ``validate_defaulted``.
    return validate_pod_spec(template.get("spec"), "spec.template.spec")


def _cron_job(obj: Obj) -> list[Cause]:
    causes = cronjob_validation.validate_cron_job(obj)
    template = ((obj.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    pod = (template.get("template") or {}).get("spec")
    return causes + validate_pod_spec(pod, "spec.jobTemplate.spec.template.spec")


def _replicas(value: Any, field: str) -> list[Cause]:
    # No upper bound: kube-apiserver with upstream's CRDs and webhooks has none; the job
    # controller refuses more than ``MAX_REPLICAS`` pods per task with an Event.
    if not isinstance(value, int) or value < 0:
        return [bad_value(field, value, "must be >= 0")]
    return []


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
        causes += _replicas(task.get("replicas", 0), f"spec.tasks[{i}].replicas")
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
        if replica.get("replicas") is not None:
            causes += _replicas(replica["replicas"], f"{at}.replicas")
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


MAX_CONFIGMAP_SIZE = 1024 * 1024  # core validation's MaxConfigMapSize


def _configmap(obj: Obj) -> list[Cause]:
    """``ValidateConfigMap``: the keys and values of data and binaryData (decoded) together."""
    size = 0
    for key, value in (obj.get("data") or {}).items():
        size += len(str(key)) + len(str(value).encode())
    for key, value in (obj.get("binaryData") or {}).items():
        try:
            size += len(str(key)) + len(base64.b64decode(str(value), validate=True))
        except (binascii.Error, ValueError):
            return [bad_value(f"binaryData[{key}]", "<bytes>", "must be base64")]
    if size > MAX_CONFIGMAP_SIZE:
        # upstream reports it at the root: "[]: Too long: may not be more than 1048576 bytes"
        return [too_long("[]", MAX_CONFIGMAP_SIZE)]
    return []


_BY_KIND: dict[tuple[str, str], Callable[[Obj], list[Cause]]] = {
    ("v1", "Pod"): _pod,
    ("v1", "ConfigMap"): _configmap,
    ("v1", "Node"): _node,
    ("batch/v1", "Job"): _batch_job,
    ("batch/v1", "CronJob"): _cron_job,
    ("batch.volcano.sh/v1alpha1", "Job"): _volcano_job,
    ("kubeflow.org/v1", "PyTorchJob"): _pytorch_job,
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): _podgroup,
    ("scheduling.volcano.sh/v1beta1", "Queue"): _queue,
}


def _annotations(meta: Obj) -> list[Cause]:
    """apimachinery ``ValidateAnnotationsSize``: keys and values together at most 256 KiB."""
    annotations = meta.get("annotations") or {}
    if not isinstance(annotations, dict):
        return [bad_value("metadata.annotations", annotations, "must be a map of strings")]
    size = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        return [too_long("metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT)]
    return []


def validate_defaulted(api_version: str, kind: str, obj: Obj) -> list[Cause]:
    """The rules that hold once defaults are applied (a batch/v1 Job's generated selector)."""
    if (api_version, kind) == ("batch/v1", "Job"):
        return batch_selector.validate_defaulted_job(obj)
    if (api_version, kind) == ("batch/v1", "CronJob"):
        return cronjob_validation.validate_job_template(obj)
    return []


def validate_update(api_version: str, kind: str, new: Obj, old: Obj) -> list[Cause]:
    """What an update may not change (batch/v1 Job's immutable fields)."""
    if (api_version, kind) == ("batch/v1", "Job"):
        return batch_validation.validate_job_update(new, old)
    return []


def validate(api_version: str, kind: str, obj: Obj) -> list[Cause]:
    meta = obj.get("metadata") or {}
    causes = validate_name(kind, meta.get("name") or "")
    causes += _validate_labels(meta)
    causes += _annotations(meta)
    check = _BY_KIND.get((api_version, kind))
    if check is not None:
        causes += check(obj)
    return causes
