"""Kueue's CRD conversion webhook (``/convert``): v1beta1 ⇄ v1beta2 of every Kueue kind.

Kueue's rules (kubernetes-sigs/kueue ``apis/kueue/v1beta1/*_conversion.go`` and the generated
conversions): renamed fields are moved, deprecated enum values get their new names, a Workload's
topology assignments change encoding (``kueue_topology_assignment``), fields the other version
lacks are dropped. Kinds without rules differ in ``apiVersion`` only. A
ConversionReview (apiextensions.k8s.io/v1) converts each of its objects to the desired version.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from services.webhook.core import kueue_topology_assignment

Obj = dict[str, Any]
Rule = Callable[[Obj], None]

KUEUE = "kueue.x-k8s.io"
# v1beta1 WorkloadSpec.priorityClassSource values (apis/kueue/v1beta1/workload_types.go) and the
# v1beta2 PriorityClassRef group/kind they stand for (apis/kueue/v1beta2/workload_types.go).
_PRIORITY_SOURCES = {
    "kueue.x-k8s.io/workloadpriorityclass": ("kueue.x-k8s.io", "WorkloadPriorityClass"),
    "scheduling.k8s.io/priorityclass": ("scheduling.k8s.io", "PriorityClass"),
}
# Deprecated v1beta1 FlavorFungibility values and their v1beta2 names.
_FUNGIBILITY_RENAMES = {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}
_MAY_STOP_SEARCH = "MayStopSearch"


def _section(obj: Obj, name: str) -> Obj:
    value = obj.get(name)
    return value if isinstance(value, dict) else {}


def _rename(section: Obj, old: str, new: str) -> None:
    if old in section:
        value = section.pop(old)
        if value not in (None, "", []):
            section[new] = value


def _drop_admission_fair_sharing(obj: Obj) -> None:
    _section(_section(obj, "status"), "fairSharing").pop("admissionFairSharingStatus", None)


def _cluster_queue_up(obj: Obj) -> None:
    spec = _section(obj, "spec")
    _rename(spec, "cohort", "cohortName")
    checks = spec.pop("admissionChecks", None)
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
    fungibility = _section(spec, "flavorFungibility")
    for key, deprecated in _FUNGIBILITY_RENAMES.items():
        if fungibility.get(key) == deprecated:
            fungibility[key] = _MAY_STOP_SEARCH
    _section(obj, "status").pop("pendingWorkloadsStatus", None)
    _drop_admission_fair_sharing(obj)


def _cluster_queue_down(obj: Obj) -> None:
    spec = _section(obj, "spec")
    _rename(spec, "cohortName", "cohort")
    spec.pop("concurrentAdmissionPolicy", None)


def _local_queue_up(obj: Obj) -> None:
    status = _section(obj, "status")
    _rename(status, "flavorUsage", "flavorsUsage")
    status.pop("flavors", None)


def _local_queue_down(obj: Obj) -> None:
    _rename(_section(obj, "status"), "flavorsUsage", "flavorUsage")


def _convert_topology_assignments(obj: Obj, convert: Callable[[Obj], Obj]) -> None:
    admission = _section(_section(obj, "status"), "admission")
    for assignment in admission.get("podSetAssignments") or ():
        if isinstance(assignment, dict) and isinstance(assignment.get("topologyAssignment"), dict):
            assignment["topologyAssignment"] = convert(assignment["topologyAssignment"])


def _workload_up(obj: Obj) -> None:
    spec = _section(obj, "spec")
    source = spec.pop("priorityClassSource", None)
    name = spec.pop("priorityClassName", None)
    ref = _PRIORITY_SOURCES.get(source or "")
    if ref is not None:
        spec["priorityClassRef"] = {"group": ref[0], "kind": ref[1], "name": name or ""}
    _rename(
        _section(obj, "status"),
        "accumulatedPastExexcutionTimeSeconds",
        "accumulatedPastExecutionTimeSeconds",
    )
    _convert_topology_assignments(obj, kueue_topology_assignment.to_v1beta2)


def _workload_down(obj: Obj) -> None:
    spec = _section(obj, "spec")
    ref = spec.pop("priorityClassRef", None)
    if isinstance(ref, dict):
        for source, (group, kind) in _PRIORITY_SOURCES.items():
            if (ref.get("group"), ref.get("kind")) == (group, kind):
                spec["priorityClassSource"] = source
                spec["priorityClassName"] = ref.get("name", "")
    spec.pop("preemptionGates", None)
    for podset in spec.get("podSets") or ():
        if isinstance(podset, dict):
            _section(podset, "topologyRequest").pop("podsetSliceRequiredTopologyConstraints", None)
    status = _section(obj, "status")
    status.pop("preemptionGates", None)
    _rename(status, "accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds")
    _convert_topology_assignments(obj, kueue_topology_assignment.to_v1beta1)


# (group, kind, from version, to version) → the rule, applied to a copy.
RULES: dict[tuple[str, str, str, str], Rule] = {
    (KUEUE, "ClusterQueue", "v1beta1", "v1beta2"): _cluster_queue_up,
    (KUEUE, "ClusterQueue", "v1beta2", "v1beta1"): _cluster_queue_down,
    (KUEUE, "LocalQueue", "v1beta1", "v1beta2"): _local_queue_up,
    (KUEUE, "LocalQueue", "v1beta2", "v1beta1"): _local_queue_down,
    (KUEUE, "Workload", "v1beta1", "v1beta2"): _workload_up,
    (KUEUE, "Workload", "v1beta2", "v1beta1"): _workload_down,
    (KUEUE, "Cohort", "v1beta1", "v1beta2"): _drop_admission_fair_sharing,
}


VERSIONS = ("v1beta1", "v1beta2")


class ConversionError(ValueError):
    """An object the webhook cannot convert; the review answers ``Failed`` with this message."""


def convert(obj: Obj, desired_api_version: str) -> Obj:
    """``obj`` (a Kueue object of any served version) as a ``desired_api_version`` one; the input
    is not modified."""
    group, _, source = str(obj.get("apiVersion") or "").rpartition("/")
    target_group, _, target = desired_api_version.rpartition("/")
    kind = str(obj.get("kind") or "")
    if group != KUEUE or target_group != KUEUE or source not in VERSIONS:
        raise ConversionError(
            f"unsupported conversion of {obj.get('apiVersion')}, Kind={kind} to "
            f"{desired_api_version}"
        )
    if target not in VERSIONS:
        raise ConversionError(f"unsupported desired version {desired_api_version}")
    if source == target:
        return obj
    out = copy.deepcopy(obj)
    rule = RULES.get((KUEUE, kind, source, target))
    if rule is not None:
        rule(out)
    out["apiVersion"] = desired_api_version
    return out
