"""Kueue's ``vresourceflavor.kb.io`` (pkg/webhooks/resourceflavor_webhook.go
``ValidateResourceFlavor``), on create and update: node labels, node taints (key, value, one
per key and effect) and toleration keys. The answer is the errors' aggregate, as
controller-runtime denies a validator's error.

Not served: its mutation, which adds the ``kueue.x-k8s.io/resource-in-use`` finalizer that
only Kueue's ResourceFlavor controller removes.
"""

from __future__ import annotations

from typing import Any

from shared.kube.fielderrors import (
    aggregate,
    duplicate,
    invalid,
    label_value_errors,
    qualified_name_errors,
)

Obj = dict[str, Any]
WEBHOOK = "vresourceflavor.kb.io"


def _message(cause: tuple[str, str, str]) -> str:
    field, _, body = cause
    return f"{field}: {body}"


def _label_name(key: str, path: str) -> list[str]:
    """``metav1validation.ValidateLabelName``."""
    return [_message(invalid(path, key, msg)) for msg in qualified_name_errors(key)]


def _labels(labels: Obj, path: str) -> list[str]:
    """``metav1validation.ValidateLabels``."""
    errors: list[str] = []
    for key, value in labels.items():
        errors += _label_name(key, path)
        errors += [_message(invalid(path, value, msg)) for msg in label_value_errors(str(value))]
    return errors


def _taint_json(taint: Obj) -> Any:
    """A corev1.Taint as Go's JSON encoding orders it (value and timeAdded omitted when empty)."""
    out: Obj = {"key": taint.get("key", "")}
    if taint.get("value"):
        out["value"] = taint["value"]
    out["effect"] = taint.get("effect", "")
    if taint.get("timeAdded"):
        out["timeAdded"] = taint["timeAdded"]
    return out


def _taints(taints: list[Obj], path: str) -> list[str]:
    """``validateNodeTaints``."""
    errors: list[str] = []
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        at = f"{path}[{i}]"
        key, value = str(taint.get("key") or ""), str(taint.get("value") or "")
        errors += _label_name(key, f"{at}.key")
        if problems := label_value_errors(value):
            errors.append(_message(invalid(f"{at}.value", value, ";".join(problems))))
        effect = str(taint.get("effect") or "")
        if key in seen.get(effect, set()):
            field, _, body = duplicate(at, _taint_json(taint))
            errors.append(f"{field}: {body}: taints must be unique by key and effect pair")
            continue
        seen.setdefault(effect, set()).add(key)
    return errors


def _tolerations(tolerations: list[Obj], path: str) -> list[str]:
    """``validateTolerations`` (Kueue's extract: the key only)."""
    errors: list[str] = []
    for i, toleration in enumerate(tolerations):
        key = str(toleration.get("key") or "")
        if key:
            errors += _label_name(key, f"{path}[{i}].key")
    return errors


def validate_resource_flavor(flavor: Obj) -> list[str]:
    """``ValidateResourceFlavor``: each error as its ``Error()`` string."""
    spec = flavor.get("spec") or {}
    return (
        _labels(spec.get("nodeLabels") or {}, "spec.nodeLabels")
        + _taints(spec.get("nodeTaints") or [], "spec.nodeTaints")
        + _tolerations(spec.get("tolerations") or [], "spec.tolerations")
    )


def admit_resource_flavor(flavor: Obj) -> str:
    """The refusal message (empty: admitted)."""
    errors = validate_resource_flavor(flavor)
    return aggregate(errors) if errors else ""
