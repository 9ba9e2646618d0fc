"""What Kueue's webhooks share (pkg/webhooks/common.go — ``validateResourceName`` is
``validate_label_name`` —, and ``validateTolerations`` of
workload_webhook.go, which the ResourceFlavor webhook calls too): resource names, fair-sharing
weights, quantities and toleration keys, as field errors."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from shared.kube.fielderrors import Cause, invalid
from shared.kube.metavalidation import validate_label_name
from shared.quantities import canonical, parse_quantity

Obj = dict[str, Any]
IS_NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
_BINARY_SUFFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_ONE_NANO = Fraction(1, 10**9)


@dataclass(frozen=True)
class ValidationConfig:
    """``validationConfig``: whether the queue has a parent (a ClusterQueue's cohort, a
    Cohort's parent), and whether lending may not exceed the nominal quota."""

    has_parent: bool
    enforce_nominal_greater_than_lending: bool


def quantity(value: Any) -> Fraction:
    return parse_quantity(value).exact


def quantity_text(value: Any) -> str:
    """``Quantity.String()``: canonical in the quantity's own format (``-1Gi`` stays binary)."""
    binary = isinstance(value, str) and value.strip().endswith(_BINARY_SUFFIXES)
    return canonical(quantity(value), binary=binary)


def validate_resource_quantity(value: Any, path: str) -> list[Cause]:
    """``validateResourceQuantity``: not negative."""
    if quantity(value) < 0:
        return [invalid(path, quantity_text(value), IS_NEGATIVE)]
    return []


def validate_fair_sharing(fair_sharing: Obj | None, path: str) -> list[Cause]:
    """``validateFairSharing``: a weight not negative and, when not 0, above 1n."""
    if not fair_sharing or fair_sharing.get("weight") is None:
        return []
    raw = fair_sharing["weight"]
    weight = quantity(raw)
    causes: list[Cause] = []
    if weight < 0:
        causes.append(invalid(path, quantity_text(raw), IS_NEGATIVE))
    if 0 < weight <= _ONE_NANO:
        causes.append(invalid(path, quantity_text(raw), "When not 0, weight must be > 10e-9"))
    return causes


def validate_tolerations(tolerations: list[Obj] | None, path: str) -> list[Cause]:
    """``validateTolerations`` (Kueue's extract of the core one: the key only)."""
    causes: list[Cause] = []
    for i, toleration in enumerate(tolerations or []):
        key = str(toleration.get("key") or "")
        if key:
            causes += validate_label_name(key, f"{path}[{i}].key")
    return causes
