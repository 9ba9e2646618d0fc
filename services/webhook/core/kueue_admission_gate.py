"""Kueue's ``kueue.x-k8s.io/admission-gated-by`` annotation (pkg/util/webhook/
validation_admissiongatedby.go), checked by the Workload webhook under the ``AdmissionGatedBy``
gate: comma-separated gate names, each a domain-prefixed path of at most 63 characters, none
twice; set at creation and only ever shortened.
"""

from __future__ import annotations

from typing import Any

from shared.kube.fielderrors import Cause, forbidden, invalid, too_long
from shared.kube.metavalidation import domain_prefixed_path_errors

Obj = dict[str, Any]
ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"
_PATH = f"metadata.annotations[{ADMISSION_GATED_BY}]"
_MAX_GATE_NAME = 63  # MaxGateNameLengthForAdmissionGatedBy, as a Job's spec.managedBy


def _value(obj: Obj) -> str:
    return str(((obj.get("metadata") or {}).get("annotations") or {}).get(ADMISSION_GATED_BY) or "")


def _gates(value: str) -> list[str]:
    """``csv.Parse``."""
    return [] if not value.strip() else [g.strip() for g in value.split(",")]


def _format(value: str) -> list[Cause]:
    """``validateAdmissionGatedByAnnotationFormat``."""
    causes: list[Cause] = []
    seen: set[str] = set()
    for gate in _gates(value):
        if not gate:
            causes.append(invalid(_PATH, value, "cannot contain empty gate names"))
            continue
        if gate in seen:
            causes.append(invalid(_PATH, value, f"duplicate gate name: {gate}"))
            continue
        seen.add(gate)
        causes += domain_prefixed_path_errors(_PATH, gate)
        if len(gate) > _MAX_GATE_NAME:
            causes.append(too_long(_PATH, _MAX_GATE_NAME))
    return causes


def validate_on_update(old: Obj, new: Obj) -> list[Cause]:
    """``ValidateAdmissionGatedByAnnotationOnUpdate``: gates are only removed."""
    old_value = _value(old)
    new_value = _value(new)
    causes: list[Cause] = []
    if not old_value and new_value:
        causes.append(forbidden(_PATH, "cannot add admission gate after creation"))
    if old_value and new_value:
        old_gates = _gates(old_value)
        if any(gate not in old_gates for gate in _gates(new_value)):
            causes.append(forbidden(_PATH, "can only remove gates, not add new ones"))
    return causes + _format(new_value)


def validate_on_create(obj: Obj) -> list[Cause]:
    """``ValidateAdmissionGatedByAnnotationOnCreate``."""
    return _format(_value(obj))
