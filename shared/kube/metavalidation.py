"""apimachinery's validation of object metadata and meta/v1 types, as field errors
(``pkg/apis/meta/v1/validation``, ``pkg/api/validation``, ``pkg/util/validation``): labels,
annotations, label selectors, conditions and domain-prefixed paths.

Go iterates a map in random order; these iterate in the object's order.
"""

from __future__ import annotations

import re
from typing import Any

from shared.kube.fielderrors import (
    Cause,
    dns1123_subdomain_errors,
    duplicate,
    forbidden,
    invalid,
    label_value_errors,
    not_supported,
    qualified_name_errors,
    required,
    too_long,
)

Obj = dict[str, Any]
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)  # TotalAnnotationSizeLimitB
_MAX_REASON, _MAX_MESSAGE = 1024, 32 * 1024
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON = re.compile(_REASON_FMT)
_REASON_MSG = (
    "a condition reason must start with alphabetic character, optionally followed by a string "
    "of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' "
    "(e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
    f"'ReasonA:ReasonB', regex used for validation is '{_REASON_FMT}')"
)
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH = re.compile(_HTTP_PATH_FMT)
_CONDITION_STATUSES = ("False", "True", "Unknown")


def validate_label_name(name: str, path: str) -> list[Cause]:
    """``ValidateLabelName``."""
    return [invalid(path, name, msg) for msg in qualified_name_errors(name)]


def validate_labels(labels: Obj | None, path: str) -> list[Cause]:
    """``ValidateLabels``: each key a qualified name, each value a label value."""
    causes: list[Cause] = []
    for key, value in (labels or {}).items():
        causes += validate_label_name(str(key), path)
        causes += [invalid(path, value, msg) for msg in label_value_errors(str(value))]
    return causes


def validate_annotations(annotations: Obj | None, path: str) -> list[Cause]:
    """``ValidateAnnotations``: keys qualified names (any case), 256 KiB in all."""
    annotations = annotations or {}
    causes = [
        invalid(path, key, msg)
        for key in annotations
        for msg in qualified_name_errors(str(key).lower())
    ]
    size = sum(len(str(k)) + len(str(v)) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        causes.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return causes


def _selector_requirement(requirement: Obj, path: str) -> list[Cause]:
    """``ValidateLabelSelectorRequirement`` with the default options."""
    causes: list[Cause] = []
    operator, values = requirement.get("operator") or "", requirement.get("values") or []
    if operator in ("In", "NotIn"):
        if not values:
            causes.append(
                required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'")
            )
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            causes.append(
                forbidden(
                    f"{path}.values",
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
    else:
        causes.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    causes += validate_label_name(str(requirement.get("key") or ""), f"{path}.key")
    for i, value in enumerate(values):
        causes += [invalid(f"{path}.values[{i}]", value, m) for m in label_value_errors(value)]
    return causes


def validate_label_selector(selector: Obj | None, path: str) -> list[Cause]:
    """``ValidateLabelSelector`` with the default options."""
    if selector is None:
        return []
    causes = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for i, requirement in enumerate(selector.get("matchExpressions") or []):
        causes += _selector_requirement(requirement, f"{path}.matchExpressions[{i}]")
    return causes


def _condition(condition: Obj, path: str) -> list[Cause]:
    """``ValidateCondition``."""
    causes = validate_label_name(str(condition.get("type") or ""), f"{path}.type")
    status = condition.get("status") or ""
    if status not in _CONDITION_STATUSES:
        causes.append(not_supported(f"{path}.status", status, _CONDITION_STATUSES))
    generation = condition.get("observedGeneration") or 0
    if generation < 0:
        causes.append(
            invalid(
                f"{path}.observedGeneration", generation, "must be greater than or equal to zero"
            )
        )
    if not condition.get("lastTransitionTime"):
        causes.append(required(f"{path}.lastTransitionTime"))
    reason = str(condition.get("reason") or "")
    if not reason:
        causes.append(required(f"{path}.reason"))
    else:
        if not _REASON.fullmatch(reason):
            causes.append(invalid(f"{path}.reason", reason, _REASON_MSG))
        if len(reason) > _MAX_REASON:
            causes.append(too_long(f"{path}.reason", _MAX_REASON))
    if len(str(condition.get("message") or "")) > _MAX_MESSAGE:
        causes.append(too_long(f"{path}.message", _MAX_MESSAGE))
    return causes


def validate_conditions(conditions: list[Obj] | None, path: str) -> list[Cause]:
    """``ValidateConditions``: each condition, and one per type."""
    causes: list[Cause] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions or []):
        kind = str(condition.get("type") or "")
        if kind in seen:
            causes.append(duplicate(f"{path}[{i}].type", kind))
        seen.add(kind)
        causes += _condition(condition, f"{path}[{i}]")
    return causes


def domain_prefixed_path_errors(path: str, value: str) -> list[Cause]:
    """``IsDomainPrefixedPath`` (``acme.io/foo``)."""
    if not value:
        return [required(path)]
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    causes = [invalid(path, host, msg) for msg in dns1123_subdomain_errors(host)]
    if not _HTTP_PATH.fullmatch(rest):
        detail = f"Invalid path (regex used for validation is '{_HTTP_PATH_FMT}')"
        causes.append(invalid(path, rest, detail))
    return causes
