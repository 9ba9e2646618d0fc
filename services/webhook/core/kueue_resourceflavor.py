"""Kueue's ``vresourceflavor.kb.io`` (pkg/webhooks/resourceflavor_webhook.go
``ValidateResourceFlavor``), on create and update: node labels, node taints (key, value, one
per key and effect) and toleration keys. The answer is the errors' aggregate, as
controller-runtime denies a validator's error.

Not served: its mutation, which adds the ``kueue.x-k8s.io/resource-in-use`` finalizer that
only Kueue's ResourceFlavor controller removes.
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.kueue_common import validate_tolerations
from shared.kube.fielderrors import (
    Cause,
    aggregate,
    duplicate,
    error_text,
    invalid,
    label_value_errors,
)
from shared.kube.metavalidation import validate_label_name, validate_labels

Obj = dict[str, Any]
WEBHOOK = "vresourceflavor.kb.io"


def _taint_json(taint: Obj) -> Any:
    """A corev1.Taint as Go's JSON encoding orders it (value and timeAdded omitted when empty)."""
    out: Obj = {"key": taint.get("key", "")}
    if taint.get("value"):
        out["value"] = taint["value"]
    out["effect"] = taint.get("effect", "")
    if taint.get("timeAdded"):
        out["timeAdded"] = taint["timeAdded"]
    return out


def _taints(taints: list[Obj], path: str) -> list[Cause]:
    """``validateNodeTaints``."""
    causes: list[Cause] = []
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        at = f"{path}[{i}]"
        key, value = str(taint.get("key") or ""), str(taint.get("value") or "")
        causes += validate_label_name(key, f"{at}.key")
        if problems := label_value_errors(value):
            causes.append(invalid(f"{at}.value", value, ";".join(problems)))
        effect = str(taint.get("effect") or "")
        if key in seen.get(effect, set()):
            field, kind, body = duplicate(at, _taint_json(taint))
            causes.append((field, kind, f"{body}: taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)
    return causes


def validate_resource_flavor(flavor: Obj) -> list[str]:
    """``ValidateResourceFlavor``: each error as its ``Error()`` string."""
    spec = flavor.get("spec") or {}
    causes = (
        validate_labels(spec.get("nodeLabels"), "spec.nodeLabels")
        + _taints(spec.get("nodeTaints") or [], "spec.nodeTaints")
        + validate_tolerations(spec.get("tolerations"), "spec.tolerations")
    )
    return [error_text(c) for c in causes]


def admit_resource_flavor(flavor: Obj) -> str:
    """The refusal message (empty: admitted)."""
    errors = validate_resource_flavor(flavor)
    return aggregate(errors) if errors else ""
