"""Kueue's ``vclusterqueue.kb.io`` (pkg/webhooks/clusterqueue_webhook.go), on create and update:
resource groups (covered resources, flavors, quotas and limits), the namespace selector,
preemption, flavor fungibility, fair sharing, the size limits, admission checks' flavors and the
concurrent admission policy (immutable; checked only under the ``ConcurrentAdmission`` gate).
The resource-group rules are the Cohort webhook's too.

Not served: its mutation (``mclusterqueue.kb.io``), which adds the
``kueue.x-k8s.io/resource-in-use`` finalizer that only Kueue's ClusterQueue controller removes.
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.kueue_common import (
    ValidationConfig,
    quantity,
    quantity_text,
    validate_fair_sharing,
    validate_resource_quantity,
)
from services.webhook.core.kueue_features import DEFAULT_FEATURES, KueueFeatures
from shared.kube.fielderrors import (
    Cause,
    aggregate,
    duplicate,
    error_text,
    forbidden,
    immutable,
    invalid,
    not_supported,
)
from shared.kube.metavalidation import validate_label_name, validate_label_selector

Obj = dict[str, Any]
WEBHOOK = "vclusterqueue.kb.io"
LENDING_LIMIT_MSG = "must be less than or equal to the nominalQuota"
_ADMISSION_CHECKS = "spec.admissionChecksStrategy.admissionChecks"
_TRY_PREFERRED = "TryPreferredFlavors"
_MAX_FLAVORS = _MAX_COVERED = 256
_MAX_COMBINATIONS = 512
_MAX_CONCURRENT_FLAVORS = 16


def _limit(limit: Any, config: ValidationConfig, path: str, is_cohort: bool) -> list[Cause]:
    """``validateLimit``: no borrowing or lending limit without a parent."""
    if config.has_parent:
        return []
    parent = "parent" if is_cohort else "cohort"
    return [invalid(path, quantity_text(limit), f"must be nil when {parent} is empty")]


def _flavor_quotas(
    flavor: Obj, covered: list[str], config: ValidationConfig, path: str, is_cohort: bool
) -> list[Cause]:
    """``validateFlavorQuotas``."""
    causes: list[Cause] = []
    for i, quota in enumerate((flavor.get("resources") or [])[: len(covered)]):
        at = f"{path}.resources[{i}]"
        if quota.get("name") != covered[i]:
            causes.append(
                invalid(f"{at}.name", quota.get("name"), "must match the name in coveredResources")
            )
        nominal = quota.get("nominalQuota", 0)
        causes += validate_resource_quantity(nominal, f"{at}.nominalQuota")
        if (borrowing := quota.get("borrowingLimit")) is not None:
            causes += _limit(borrowing, config, f"{at}.borrowingLimit", is_cohort)
            causes += validate_resource_quantity(borrowing, f"{at}.borrowingLimit")
        if (lending := quota.get("lendingLimit")) is not None:
            causes += validate_resource_quantity(lending, f"{at}.lendingLimit")
            causes += _limit(lending, config, f"{at}.lendingLimit", is_cohort)
            if config.enforce_nominal_greater_than_lending and quantity(lending) > quantity(
                nominal
            ):
                causes.append(
                    invalid(f"{at}.lendingLimit", quantity_text(lending), LENDING_LIMIT_MSG)
                )
    return causes


def validate_resource_groups(
    groups: list[Obj], config: ValidationConfig, path: str, *, is_cohort: bool
) -> list[Cause]:
    """``validateResourceGroups``: resource names, each resource and each flavor in one group,
    the flavors' quotas."""
    causes: list[Cause] = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, group in enumerate(groups):
        covered = [str(name) for name in group.get("coveredResources") or []]
        for j, name in enumerate(covered):
            at = f"{path}[{i}].coveredResources[{j}]"
            causes += validate_label_name(name, at)  # validateResourceName
            if name in seen_resources:
                causes.append(duplicate(at, name))
            seen_resources.add(name)
        for j, flavor in enumerate(group.get("flavors") or []):
            at = f"{path}[{i}].flavors[{j}]"
            causes += _flavor_quotas(flavor, covered, config, at, is_cohort)
            name = str(flavor.get("name") or "")
            if name in seen_flavors:
                causes.append(duplicate(f"{at}.name", name))
            seen_flavors.add(name)
    return causes


def _all_flavors(groups: list[Obj]) -> list[str]:
    """``utilqueue.AllFlavors`` (in the spec's order where upstream's set has none)."""
    names = (str(f.get("name") or "") for g in groups for f in g.get("flavors") or [])
    return list(dict.fromkeys(names))


def _preemption_json(preemption: Obj) -> Obj:
    """A ClusterQueuePreemption in Go's field order, empty fields omitted."""
    out: Obj = {}
    if preemption.get("reclaimWithinCohort"):
        out["reclaimWithinCohort"] = preemption["reclaimWithinCohort"]
    if (borrow := preemption.get("borrowWithinCohort")) is not None:
        inner: Obj = {"policy": borrow["policy"]} if borrow.get("policy") else {}
        if borrow.get("maxPriorityThreshold") is not None:
            inner["maxPriorityThreshold"] = borrow["maxPriorityThreshold"]
        out["borrowWithinCohort"] = inner
    if preemption.get("withinClusterQueue"):
        out["withinClusterQueue"] = preemption["withinClusterQueue"]
    return out


def _preemption(preemption: Obj, path: str) -> list[Cause]:
    """``validatePreemption``."""
    borrow = preemption.get("borrowWithinCohort")
    if (
        preemption.get("reclaimWithinCohort") == "Never"
        and borrow is not None
        and borrow.get("policy") != "Never"
    ):
        message = "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"
        return [invalid(path, _preemption_json(preemption), message)]
    return []


def _flavor_fungibility(fungibility: Obj, path: str) -> list[Cause]:
    """``validateFlavorFungibility``: a preference needs TryNextFlavor both ways."""
    preference = fungibility.get("preference")
    if preference is None:
        return []
    if fungibility.get("whenCanBorrow") == fungibility.get("whenCanPreempt") == "TryNextFlavor":
        return []
    message = (
        f'preference "{preference}" requires both whenCanBorrow and whenCanPreempt to be '
        "TryNextFlavor"
    )
    return [invalid(f"{path}.preference", preference, message)]


def _sizes(groups: list[Obj], path: str) -> list[Cause]:
    """``validateTotalFlavors``, ``validateTotalCoveredResources`` and
    ``validateFlavorResourceCombinations``."""
    causes: list[Cause] = []
    flavors = sum(len(g.get("flavors") or []) for g in groups)
    if flavors > _MAX_FLAVORS:
        message = f"total number of flavors across all resourceGroups must be ≤ 256, got {flavors}"
        causes.append(invalid(path, flavors, message))
    covered = sum(len(g.get("coveredResources") or []) for g in groups)
    if covered > _MAX_COVERED:
        message = (
            "total number of covered resources across all resourceGroups must be ≤ 256, "
            f"got {covered}"
        )
        causes.append(invalid(path, covered, message))
    for i, group in enumerate(groups):
        total = sum(len(f.get("resources") or []) for f in group.get("flavors") or [])
        if total > _MAX_COMBINATIONS:
            message = (
                "number of flavor-resource combinations in a resourceGroup must be ≤ 512, "
                f"got {total}"
            )
            causes.append(invalid(f"{path}[{i}]", total, message))
    return causes


def _concurrent_admission(spec: Obj, features: KueueFeatures) -> list[Cause]:
    """``validateConcurrentAdmissionPolicy`` (under the ``ConcurrentAdmission`` gate)."""
    policy = spec.get("concurrentAdmissionPolicy")
    if not features.concurrent_admission or policy is None:
        return []
    causes: list[Cause] = []
    groups = spec.get("resourceGroups") or []
    if len(groups) != 1:
        message = "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined"
        causes.append(invalid("spec.resourceGroups", len(groups), message))
    elif len(flavors := groups[0].get("flavors") or []) > _MAX_CONCURRENT_FLAVORS:
        message = (
            "cannot have more than 16 resource flavors in the ResourceGroup when "
            "ConcurrentAdmissionPolicy is defined"
        )
        causes.append(invalid("spec.resourceGroups[0].flavors", len(flavors), message))
    migration = policy.get("migration") or {}
    constraints = migration.get("constraints")
    at = "spec.concurrentAdmissionPolicy.migration.constraints"
    if constraints is not None:
        mode = migration.get("mode") or ""
        if mode not in ("", _TRY_PREFERRED):
            message = f'may only be set when migration.mode is "{_TRY_PREFERRED}" (got "{mode}")'
            causes.append(forbidden(at, message))
        elif (last := constraints.get("lastAcceptableFlavorName")) is not None:
            flavors = _all_flavors(groups)
            if last not in flavors:
                message = (
                    f"must be one of the flavors defined in the ClusterQueue: [{' '.join(flavors)}]"
                )
                causes.append(invalid(f"{at}.lastAcceptableFlavorName", last, message))
    if spec.get("queueingStrategy") == "StrictFIFO":
        message = (
            "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy is defined"
        )
        causes.append(invalid("spec.queueingStrategy", "StrictFIFO", message))
    return causes


def _spec(queue: Obj, features: KueueFeatures) -> list[Cause]:
    """``validateClusterQueueSpec``."""
    spec = queue.get("spec") or {}
    groups = spec.get("resourceGroups") or []
    config = ValidationConfig(
        has_parent=bool(spec.get("cohortName")), enforce_nominal_greater_than_lending=True
    )
    causes = validate_resource_groups(groups, config, "spec.resourceGroups", is_cohort=False)
    causes += validate_label_selector(spec.get("namespaceSelector"), "spec.namespaceSelector")
    if spec.get("preemption") is not None:
        causes += _preemption(spec["preemption"], "spec.preemption")
    if spec.get("flavorFungibility") is not None:
        causes += _flavor_fungibility(spec["flavorFungibility"], "spec.flavorFungibility")
    causes += validate_fair_sharing(spec.get("fairSharing"), "spec.fairSharing")
    causes += _sizes(groups, "spec.resourceGroups")
    causes += _concurrent_admission(spec, features)
    return causes


def _on_flavors(queue: Obj, unchanged: dict[str, set[str]]) -> list[Cause]:
    """``validateAdmissionCheckOnFlavorsWithOld``: a check's ``onFlavors`` are the queue's
    flavors (a check whose ``onFlavors`` are ``unchanged`` is not re-checked)."""
    spec = queue.get("spec") or {}
    strategy = spec.get("admissionChecksStrategy")
    if strategy is None:
        return []
    flavors = _all_flavors(spec.get("resourceGroups") or [])
    causes: list[Cause] = []
    for i, check in enumerate(strategy.get("admissionChecks") or []):
        on = [str(f) for f in check.get("onFlavors") or []]
        if unchanged.get(str(check.get("name") or "")) == set(on):
            continue
        for j, flavor in enumerate(on):
            if flavor not in flavors:
                causes.append(
                    not_supported(f"{_ADMISSION_CHECKS}[{i}].onFlavors[{j}]", flavor, flavors)
                )
    return causes


def _unchanged_on_flavors(old: Obj, new: Obj, features: KueueFeatures) -> dict[str, set[str]]:
    """``validateAdmissionCheckOnFlavorsUpdate``: without the
    ``RejectUpdatesToCQWithInvalidOnFlavors`` gate, a queue whose flavors did not change keeps
    the ``onFlavors`` it was stored with."""
    if features.reject_updates_to_cq_with_invalid_on_flavors:
        return {}
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    strategy = old_spec.get("admissionChecksStrategy")
    old_flavors = set(_all_flavors(old_spec.get("resourceGroups") or []))
    if strategy is None or old_flavors != set(_all_flavors(new_spec.get("resourceGroups") or [])):
        return {}
    return {
        str(c.get("name") or ""): {str(f) for f in c.get("onFlavors") or []}
        for c in strategy.get("admissionChecks") or []
    }


def _policy_json(policy: Obj | None) -> Any:
    """A ConcurrentAdmissionPolicy in Go's encoding (empty fields omitted)."""
    if policy is None:
        return None
    migration = policy.get("migration") or {}
    out: Obj = {}
    if migration.get("mode"):
        out["mode"] = migration["mode"]
    if migration.get("constraints") is not None:
        last = migration["constraints"].get("lastAcceptableFlavorName")
        out["constraints"] = {} if last is None else {"lastAcceptableFlavorName": last}
    return {"migration": out} if out else {}


def validate_cluster_queue(
    queue: Obj, *, features: KueueFeatures = DEFAULT_FEATURES
) -> list[Cause]:
    """``ValidateClusterQueue`` (create)."""
    return _spec(queue, features) + _on_flavors(queue, {})


def validate_cluster_queue_update(
    old: Obj, new: Obj, *, features: KueueFeatures = DEFAULT_FEATURES
) -> list[Cause]:
    """``ValidateClusterQueueUpdate``: as on create, and the concurrent admission policy is
    immutable."""
    causes = _spec(new, features)
    causes += _on_flavors(new, _unchanged_on_flavors(old, new, features))
    old_policy = (old.get("spec") or {}).get("concurrentAdmissionPolicy")
    new_policy = (new.get("spec") or {}).get("concurrentAdmissionPolicy")
    if old_policy != new_policy:
        causes.append(immutable("spec.concurrentAdmissionPolicy", _policy_json(new_policy)))
    return causes


def admit_cluster_queue(operation: str, new: Obj, old: Obj | None) -> str:
    """The refusal message of the webhook (empty: admitted)."""
    if operation == "UPDATE" and old is not None:
        causes = validate_cluster_queue_update(old, new)
    else:
        causes = validate_cluster_queue(new)
    return aggregate([error_text(c) for c in causes]) if causes else ""
