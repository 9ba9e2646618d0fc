"""Kueue's Workload webhooks (pkg/webhooks/workload_webhook.go): ``vworkload.kb.io`` on create
and update of a Workload and of its status, and the ``mworkload.kb.io`` defaulting on create.

Validation: pod sets (template metadata, the reserved ``pods`` resource, negative quantities,
topology slice sizes, at most one ``minCount``), the admission while quota is reserved,
conditions, reclaimable pods, admission checks' pod set updates and the admission-gate
annotation; on update also what may not change: pod sets while quota is reserved, the admission,
reclaimable counts, ready pod set updates and ``clusterName``. Each rule under a feature gate
follows ``KueueFeatures``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from services.webhook.core.kueue_admission_gate import validate_on_create, validate_on_update
from services.webhook.core.kueue_common import (
    quantity_text,
    validate_resource_quantity,
    validate_tolerations,
)
from services.webhook.core.kueue_features import DEFAULT_FEATURES, KueueFeatures
from services.webhook.core.queues import ClusterView
from shared.kube.fielderrors import (
    Cause,
    aggregate,
    error_text,
    forbidden,
    immutable,
    invalid,
    not_found,
    not_supported,
    required,
)
from shared.kube.metavalidation import (
    validate_annotations,
    validate_conditions,
    validate_labels,
)
from shared.quantities import parse_quantity

Obj = dict[str, Any]
VALIDATING, MUTATING = "vworkload.kb.io", "mworkload.kb.io"
PRIORITY_BOOST = "kueue.x-k8s.io/priority-boost"
ELASTIC_JOB = "kueue.x-k8s.io/elastic-job"
SLICE_REPLACEMENT_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"
_BOOST_PATH = f"metadata.annotations[{PRIORITY_BOOST}]"
_INT32 = re.compile(r"[+-]?[0-9]+")


def _spec(wl: Obj) -> Obj:
    return wl.get("spec") or {}


def _status(wl: Obj) -> Obj:
    return wl.get("status") or {}


def _annotations(wl: Obj) -> Obj:
    return (wl.get("metadata") or {}).get("annotations") or {}


def has_quota_reservation(wl: Obj | None) -> bool:
    """``workload.HasQuotaReservation``: the QuotaReserved condition is true."""
    conditions = _status(wl or {}).get("conditions") or []
    return any(c.get("type") == "QuotaReserved" and c.get("status") == "True" for c in conditions)


def _reserves_quota_without_admission(wl: Obj | None) -> bool:
    return wl is not None and has_quota_reservation(wl) and _status(wl).get("admission") is None


def _slicing(wl: Obj, features: KueueFeatures) -> bool:
    """``workloadslicing.Enabled``: an elastic Workload."""
    return features.elastic_jobs_via_workload_slices and _annotations(wl).get(ELASTIC_JOB) == "true"


def _resource_list(resources: Obj | None, path: str, features: KueueFeatures) -> list[Cause]:
    """``validateResourceList``: no ``pods`` key; no negative quantity (under its gate)."""
    causes: list[Cause] = []
    for name, value in (resources or {}).items():
        if name == "pods":
            causes.append(
                invalid(f"{path}[pods]", "pods", "the key is reserved for internal kueue use")
            )
        if features.workload_validate_resources_are_non_negative:
            causes += validate_resource_quantity(value, f"{path}[{name}]")
    return causes


def _container(container: Obj, path: str, features: KueueFeatures) -> list[Cause]:
    resources = container.get("resources") or {}
    return _resource_list(
        resources.get("requests"), f"{path}.resources.requests", features
    ) + _resource_list(resources.get("limits"), f"{path}.resources.limits", features)


def _slice_size(request: Obj | None, path: str) -> list[Cause]:
    """``validateTASSliceSize``."""
    if request is None:
        return []
    causes: list[Cause] = []
    size = request.get("podSetSliceSize")
    if request.get("podSetSliceRequiredTopology") is not None:
        if size is None:
            causes.append(
                required(
                    f"{path}.podSetSliceSize",
                    "must be set when podSetSliceRequiredTopology is specified",
                )
            )
        elif size <= 0:
            causes.append(invalid(f"{path}.podSetSliceSize", size, "must be greater than 0"))
    elif size is not None:
        causes.append(
            forbidden(
                f"{path}.podSetSliceSize",
                "may not be set when podSetSliceRequiredTopology is not specified",
            )
        )
    for i, constraint in enumerate(request.get("podsetSliceRequiredTopologyConstraints") or []):
        if (constraint.get("size") or 0) <= 0:
            at = f"{path}.podsetSliceRequiredTopologyConstraints[{i}].size"
            causes.append(invalid(at, constraint.get("size") or 0, "must be greater than 0"))
    return causes


def _pod_set(pod_set: Obj, path: str, features: KueueFeatures) -> list[Cause]:
    """``validatePodSet``."""
    template = pod_set.get("template") or {}
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    causes: list[Cause] = []
    if features.workload_validation_for_pod_set_metadata:
        causes += validate_labels(meta.get("labels"), f"{path}.template.metadata.labels")
        causes += validate_annotations(
            meta.get("annotations"), f"{path}.template.metadata.annotations"
        )
    for kind in ("initContainers", "containers"):
        for i, container in enumerate(spec.get(kind) or []):
            causes += _container(container, f"{path}.template.spec.{kind}[{i}]", features)
    if (resources := spec.get("resources")) is not None:
        at = f"{path}.template.spec.resources"
        causes += _resource_list(resources.get("requests"), f"{at}.requests", features)
        causes += _resource_list(resources.get("limits"), f"{at}.limits", features)
    if features.tas_validate_workload_slice_size:
        causes += _slice_size(pod_set.get("topologyRequest"), f"{path}.topologyRequest")
    return causes


def _admission(wl: Obj, old: Obj | None, path: str) -> list[Cause]:
    """``validateAdmission``: set while quota is reserved (unless it already was not), of the
    Workload's pod sets, usage a multiple of the count."""
    admission = _status(wl).get("admission")
    if admission is None:
        if _reserves_quota_without_admission(old):
            return []
        return [required(path, "must be set while the QuotaReserved condition is true")]
    names = {p.get("name") for p in _spec(wl).get("podSets") or []}
    causes: list[Cause] = []
    for i, assignment in enumerate(admission.get("podSetAssignments") or []):
        at = f"{path}.podSetAssignments[{i}]"
        if assignment.get("name") not in names:
            causes.append(not_found(f"{at}.name", assignment.get("name")))
        count = assignment.get("count") or 0
        if count <= 0:
            continue
        for name, value in (assignment.get("resourceUsage") or {}).items():
            usage = parse_quantity(value)
            if (usage.milli() if name == "cpu" else usage.value()) % count:
                message = f"is not a multiple of {count}"
                causes.append(invalid(f"{at}.resourceUsage[{name}]", quantity_text(value), message))
    return causes


def _reclaimable_pods(wl: Obj, old: Obj | None, path: str, features: KueueFeatures) -> list[Cause]:
    """``validateReclaimablePods``: of a pod set, at most its count (an elastic Workload may
    keep an unchanged count above it while it scales down)."""
    reclaimable = _status(wl).get("reclaimablePods") or []
    pod_sets = {p.get("name"): p for p in _spec(wl).get("podSets") or []}
    old_counts = {
        (r.get("name"), r.get("count")) for r in _status(old or {}).get("reclaimablePods") or []
    }
    causes: list[Cause] = []
    for entry in reclaimable:
        name, count = entry.get("name"), entry.get("count") or 0
        at = f"{path}[{name}]"
        pod_set = pod_sets.get(name)
        if pod_set is None:
            causes.append(not_supported(f"{at}.name", name, [str(n) for n in pod_sets]))
            continue
        stale = (
            old is not None and _slicing(wl, features) and (name, entry.get("count")) in old_counts
        )
        if count > (pod_set.get("count") or 0) and not stale:
            message = f"should be less or equal to {pod_set.get('count') or 0}"
            causes.append(invalid(f"{at}.count", count, message))
    return causes


def _pod_set_updates(check: Obj, wl: Obj, path: str) -> list[Cause]:
    """``validatePodSetUpdates``."""
    known = sorted({str(p.get("name")) for p in _spec(wl).get("podSets") or []})
    causes: list[Cause] = []
    for i, update in enumerate(check.get("podSetUpdates") or []):
        at = f"{path}[{i}]"
        if update.get("name") not in known:
            causes.append(not_supported(f"{at}.name", update.get("name"), known))
        causes += validate_tolerations(update.get("tolerations"), f"{at}.tolerations")
        causes += validate_annotations(update.get("annotations"), f"{at}.annotations")
        causes += validate_labels(update.get("nodeSelector"), f"{at}.nodeSelector")
        causes += validate_labels(update.get("labels"), f"{at}.labels")
    return causes


def _priority_boost(wl: Obj) -> list[Cause]:
    """KEP-7990: the ``priority-boost`` annotation, when present, is a signed 32-bit integer."""
    annotations = _annotations(wl)
    if PRIORITY_BOOST not in annotations:
        return []
    value = str(annotations[PRIORITY_BOOST])
    if not value:
        message = 'must be a valid signed integer; use "0" explicitly, empty string is not allowed'
        return [invalid(_BOOST_PATH, value, message)]
    if not _INT32.fullmatch(value) or not -(2**31) <= int(value) < 2**31:
        return [invalid(_BOOST_PATH, value, "must be a valid signed integer")]
    return []


def validate_workload(
    wl: Obj, old: Obj | None = None, *, features: KueueFeatures = DEFAULT_FEATURES
) -> list[Cause]:
    """``ValidateWorkload`` (``old`` is the Workload before an update, None on create)."""
    causes: list[Cause] = []
    pod_sets = _spec(wl).get("podSets") or []
    for i, pod_set in enumerate(pod_sets):
        causes += _pod_set(pod_set, f"spec.podSets[{i}]", features)
    variable = sum(1 for p in pod_sets if p.get("minCount") is not None)
    if variable > 1:
        causes.append(invalid("spec.podSets", variable, "at most one podSet can use minCount"))
    if variable > 0 and _slicing(wl, features):
        message = "partial admission and elastic job cannot be used together"
        causes.append(invalid("spec.podSets", variable, message))
    status = _status(wl)
    if has_quota_reservation(wl):
        causes += _admission(wl, old, "status.admission")
    causes += validate_conditions(status.get("conditions"), "status.conditions")
    causes += _reclaimable_pods(wl, old, "status.reclaimablePods", features)
    for i, check in enumerate(status.get("admissionChecks") or []):
        causes += _pod_set_updates(check, wl, f"status.admissionChecks[{i}].podSetUpdates")
    if features.admission_gated_by:
        causes += validate_on_create(wl)
    if features.priority_boost:
        causes += _priority_boost(wl)
    return causes


def _immutable_pod_sets(new: list[Obj], old: list[Obj], features: KueueFeatures) -> list[Cause]:
    """``validateImmutablePodSets``: all but an elastic scale-down of ``count`` (the path of a
    pod set is ``spec.podSets.<i>``, as upstream's ``Child(strconv.Itoa(i))``)."""
    if len(new) != len(old):
        return [immutable("spec.podSets", new)]
    causes: list[Cause] = []
    for i, (new_set, old_set) in enumerate(zip(new, old, strict=True)):
        compared = new_set
        scaled_down = (new_set.get("count") or 0) < (old_set.get("count") or 0)
        if features.elastic_jobs_via_workload_slices and scaled_down:
            compared = {**new_set, "count": old_set.get("count")}
        if compared != old_set:
            causes.append(immutable(f"spec.podSets.{i}", compared))
    return causes


def _scaled_down(wl: Obj, features: KueueFeatures) -> set[str]:
    """``scaledDownPodSetNames``: pod sets of an elastic Workload now below their admitted
    count."""
    admission = _status(wl).get("admission")
    if not _slicing(wl, features) or admission is None:
        return set()
    sizes = {p.get("name"): p.get("count") or 0 for p in _spec(wl).get("podSets") or []}
    return {
        str(a.get("name"))
        for a in admission.get("podSetAssignments") or []
        if a.get("count") is not None and a["count"] > sizes.get(a.get("name"), 0)
    }


def _reclaimable_pods_update(new: Obj, old: Obj, features: KueueFeatures) -> list[Cause]:
    """``validateReclaimablePodsUpdate``: while quota is reserved, a count does not go down and
    an entry is not removed, but for a pod set scaled down."""
    path = "status.reclaimablePods"
    new_counts = {
        r.get("name"): r.get("count") or 0 for r in _status(new).get("reclaimablePods") or []
    }
    new_list = _status(new).get("reclaimablePods") or []
    old_list = _status(old).get("reclaimablePods") or []
    old_counts = {r.get("name"): r.get("count") or 0 for r in old_list}
    if not old_list or (len(new_list) == len(old_list) and new_counts == old_counts):
        return []
    scaled_down = _scaled_down(new, features)
    reserved = has_quota_reservation(new)
    causes: list[Cause] = []
    for name, count in new_counts.items():
        if not reserved and count == 0:
            continue
        if name in old_counts and count < old_counts[name] and name not in scaled_down:
            message = f"cannot be less than {old_counts[name]}"
            causes.append(invalid(f"{path}[{name}].count", count, message))
    for name in old_counts:
        if reserved and name not in new_counts and name not in scaled_down:
            causes.append(required(f"{path}[{name}]", "cannot be removed"))
    return causes


def _admission_update(new: Obj | None, old: Obj | None, features: KueueFeatures) -> list[Cause]:
    """``validateAdmissionUpdate``: the admission is set or cleared, never changed (but its
    topology assignments, under ``TopologyAwareScheduling``)."""
    if new is None or old is None:
        return []
    if features.topology_aware_scheduling:
        new_sets, old_sets = new.get("podSetAssignments") or [], old.get("podSetAssignments") or []
        if len(new_sets) != len(old_sets):
            return [immutable("status.admission", new)]
        old = copy.deepcopy(old)
        for new_set, old_set in zip(new_sets, old["podSetAssignments"] or [], strict=True):
            for key in ("topologyAssignment", "delayedTopologyRequest"):
                old_set.pop(key, None)
                if key in new_set:
                    old_set[key] = new_set[key]
    return [immutable("status.admission", new)] if new != old else []


def _ready_pod_set_updates(new: Obj, old: Obj) -> list[Cause]:
    """``validateImmutablePodSetUpdates``: a check ready before and after keeps its updates."""
    new_checks = {c.get("name"): c for c in _status(new).get("admissionChecks") or []}
    causes: list[Cause] = []
    for i, old_check in enumerate(_status(old).get("admissionChecks") or []):
        new_check = new_checks.get(old_check.get("name"))
        if new_check is None or not old_check.get("state") == new_check.get("state") == "Ready":
            continue
        updates = new_check.get("podSetUpdates") or []
        if updates != (old_check.get("podSetUpdates") or []):
            causes.append(immutable(f"status.admissionChecks[{i}].podSetUpdates", updates))
    return causes


def _cluster_name_update(new: Obj, old: Obj, features: KueueFeatures) -> list[Cause]:
    """``validateClusterNameUpdate``: a new ``clusterName`` is one of the nominated clusters
    (but for an elastic Workload's replacement slice)."""
    if features.elastic_jobs_via_workload_slices and SLICE_REPLACEMENT_FOR in _annotations(new):
        return []
    name = _status(new).get("clusterName")
    nominated = _status(old).get("nominatedClusterNames") or []
    if _status(old).get("clusterName") is None and name is not None and name not in nominated:
        message = "when setting clusterName it must be one of the nominatedClusterNames"
        return [invalid("status.clusterName", name, message)]
    return []


def validate_workload_update(
    new: Obj, old: Obj, *, features: KueueFeatures = DEFAULT_FEATURES
) -> list[Cause]:
    """``ValidateWorkloadUpdate``."""
    causes = validate_workload(new, old, features=features)
    if has_quota_reservation(old):
        causes += _immutable_pod_sets(
            _spec(new).get("podSets") or [], _spec(old).get("podSets") or [], features
        )
    if has_quota_reservation(new) and has_quota_reservation(old):
        causes += _reclaimable_pods_update(new, old, features)
    causes += _admission_update(
        _status(new).get("admission"), _status(old).get("admission"), features
    )
    causes += _ready_pod_set_updates(new, old)
    causes += _cluster_name_update(new, old, features)
    if features.admission_gated_by:
        causes += validate_on_update(old, new)
    return causes


def admit_workload(operation: str, new: Obj, old: Obj | None) -> str:
    """The refusal message of ``vworkload.kb.io`` (empty: admitted)."""
    if operation == "UPDATE" and old is not None:
        causes = validate_workload_update(new, old)
    else:
        causes = validate_workload(new)
    return aggregate([error_text(c) for c in causes]) if causes else ""


def default_workload(
    wl: Obj, cluster: ClusterView | None = None, *, features: KueueFeatures = DEFAULT_FEATURES
) -> None:
    """``mworkload.kb.io``: without ``PartialAdmission``, pod sets lose their ``minCount``."""
    if features.partial_admission:
        return
    for pod_set in _spec(wl).get("podSets") or []:
        pod_set.pop("minCount", None)
