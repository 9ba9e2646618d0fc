"""batch/v1 Job validation as Kubernetes' pkg/apis/batch/validation/validation.go.

``validate_job_spec`` is ``validateJobSpec`` (without the pod template validation, which
``validation.validate_pod_spec`` covers in part) plus ``ValidateJob``'s Indexed hostname check;
it runs on the defaulted Job (``batch_selector.validate_defaulted_job``), as the API server
validates after its defaulters. ``validate_job_update`` is
``ValidateJobSpecUpdate``'s immutable fields.
"""

from __future__ import annotations

import re
from typing import Any

from shared.kube.fielderrors import (
    Cause,
    duplicate,
    immutable,
    invalid,
    invalid_omitted,
    not_supported,
    qualified_name_errors,
    required,
    too_long,
    too_many,
)

Obj = dict[str, Any]
MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000
MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_POD_FAILURE_POLICY_RULES = 20
MAX_ON_EXIT_CODES_VALUES = 255
MAX_ON_POD_CONDITIONS_PATTERNS = 20
MAX_MANAGED_BY_LENGTH = 63
MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024
MAX_SUCCESS_POLICY_RULES = 20
ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
OPERATORS = ("In", "NotIn")
CONDITION_STATUSES = ("False", "True", "Unknown")
REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
NEGATIVE = "must be greater than or equal to 0"
_NONNEGATIVE = ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes")  # fmt: skip
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_HTTP_PATH = re.compile(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")


def _nonnegative(spec: Obj, name: str) -> list[Cause]:
    value = spec.get(name)
    if isinstance(value, int) and value < 0:
        return [invalid(f"spec.{name}", value, NEGATIVE)]
    return []


def _managed_by(value: str) -> list[Cause]:
    path = "spec.managedBy"
    causes: list[Cause] = []
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        causes.append(
            invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')
        )
    elif not _HTTP_PATH.match(rest):
        causes.append(
            invalid(
                path,
                rest,
                "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
            )
        )
    if len(value) > MAX_MANAGED_BY_LENGTH:
        causes.append(too_long(path, MAX_MANAGED_BY_LENGTH))
    return causes


def _indexed(spec: Obj) -> list[Cause]:
    causes: list[Cause] = []
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    max_failed, per_index = spec.get("maxFailedIndexes"), spec.get("backoffLimitPerIndex")
    if completions is None:
        causes.append(required("spec.completions", "when completion mode is Indexed"))
    if parallelism is not None and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
        causes.append(
            invalid(
                "spec.parallelism",
                parallelism,
                f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} when completion "
                "mode is Indexed",
            )
        )
    if completions is not None and max_failed is not None and max_failed > completions:
        causes.append(
            invalid(
                "spec.maxFailedIndexes", max_failed, "must be less than or equal to completions"
            )
        )
    if max_failed is not None and max_failed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB:
        causes.append(
            invalid(
                "spec.maxFailedIndexes",
                max_failed,
                f"must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED_JOB}",
            )
        )
    if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
        high = (
            f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit "
            "per index"
        )
        if max_failed is None:
            causes.append(
                required(
                    "spec.maxFailedIndexes",
                    f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}",
                )
            )
        if parallelism is not None and parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS:
            causes.append(
                invalid(
                    "spec.parallelism",
                    parallelism,
                    "must be less than or equal to "
                    f"{PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {high}",
                )
            )
        if max_failed is not None and max_failed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS:
            causes.append(
                invalid(
                    "spec.maxFailedIndexes",
                    max_failed,
                    "must be less than or equal to "
                    f"{MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {high}",
                )
            )
    return causes


def _on_exit_codes(requirement: Obj, path: str, containers: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    operator = requirement.get("operator") or ""
    if not operator:
        causes.append(required(f"{path}.operator", 'valid values: ["In" "NotIn"]'))
    elif operator not in OPERATORS:
        causes.append(not_supported(f"{path}.operator", operator, OPERATORS))
    name = requirement.get("containerName")
    if name is not None and name not in containers:
        causes.append(
            invalid(
                f"{path}.containerName",
                name,
                "must be one of the container or initContainer names in the pod template",
            )
        )
    values: list[int] = requirement.get("values") or []
    if not values:
        causes.append(invalid(f"{path}.values", values, "at least one value is required"))
    elif len(values) > MAX_ON_EXIT_CODES_VALUES:
        causes.append(too_many(f"{path}.values", len(values), MAX_ON_EXIT_CODES_VALUES))
    seen: set[int] = set()
    for j, value in enumerate(values):
        if operator == "In" and value == 0:
            causes.append(
                invalid(f"{path}.values[{j}]", value, "must not be 0 for the In operator")
            )
        if value in seen:
            causes.append(duplicate(f"{path}.values[{j}]", value))
        seen.add(value)
    if any(values[j - 1] > values[j] for j in range(1, len(values))):
        causes.append(invalid(f"{path}.values", values, "must be ordered"))
    return causes


def _on_pod_conditions(patterns: list[Obj], path: str) -> list[Cause]:
    causes: list[Cause] = []
    if len(patterns) > MAX_ON_POD_CONDITIONS_PATTERNS:
        causes.append(too_many(path, len(patterns), MAX_ON_POD_CONDITIONS_PATTERNS))
    for j, pattern in enumerate(patterns):
        type_ = pattern.get("type") or ""
        for message in qualified_name_errors(type_):  # ValidateQualifiedName
            causes.append(invalid(f"{path}[{j}].type", type_, message))
        status = pattern.get("status") or ""
        if not status:
            causes.append(
                required(f"{path}[{j}].status", 'valid values: ["False" "True" "Unknown"]')
            )
        elif status not in CONDITION_STATUSES:
            causes.append(not_supported(f"{path}[{j}].status", status, CONDITION_STATUSES))
    return causes


def _pod_failure_policy(spec: Obj) -> list[Cause]:
    rules: list[Obj] = (spec.get("podFailurePolicy") or {}).get("rules") or []
    path = "spec.podFailurePolicy.rules"
    causes: list[Cause] = []
    if len(rules) > MAX_POD_FAILURE_POLICY_RULES:
        causes.append(too_many(path, len(rules), MAX_POD_FAILURE_POLICY_RULES))
    pod = (spec.get("template") or {}).get("spec") or {}
    containers = {
        c.get("name", "")
        for c in [*(pod.get("containers") or []), *(pod.get("initContainers") or [])]
    }
    for i, rule in enumerate(rules):
        at = f"{path}[{i}]"
        action = rule.get("action") or ""
        if not action:
            causes.append(
                required(f"{at}.action", 'valid values: ["Count" "FailIndex" "FailJob" "Ignore"]')
            )
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                causes.append(
                    invalid(f"{at}.action", action, "requires the backoffLimitPerIndex to be set")
                )
        elif action not in ACTIONS:
            causes.append(not_supported(f"{at}.action", action, ACTIONS))
        exit_codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions") or []
        if exit_codes is not None:
            causes += _on_exit_codes(exit_codes, f"{at}.onExitCodes", containers)
        if conditions:
            causes += _on_pod_conditions(conditions, f"{at}.onPodConditions")
        if exit_codes is not None and conditions:
            causes.append(
                invalid_omitted(
                    at, "specifying both OnExitCodes and OnPodConditions is not supported"
                )
            )
        if exit_codes is None and not conditions:
            causes.append(
                invalid_omitted(at, "specifying one of OnExitCodes and OnPodConditions is required")
            )
    return causes


def parse_indexes(text: str, completions: int) -> tuple[int, str]:
    """``validateIndexesFormat``: (number of indexes, error text or empty)."""
    total, last = 0, None
    for interval in text.split(",") if text else []:
        limits = interval.split("-")
        if len(limits) > 2:
            return 0, (
                f'the fragment "{interval}" violates the requirement that an index interval can '
                "have at most two parts separated by '-'"
            )
        bounds = []
        for limit in limits:
            # strconv.Atoi: an optionally signed decimal within int64.
            digits = limit.lstrip("+-")
            if not re.fullmatch(r"[+-]?\d+", limit) or len(digits) > 19 or int(digits) >= 2**63:
                return 0, f'cannot convert string to integer for index: "{limit}"'
            if int(limit) >= completions:
                return 0, f'too large index: "{limit}"'
            bounds.append(int(limit))
        x, y = bounds[0], bounds[-1]
        if len(bounds) == 2 and x >= y:
            return 0, f"non-increasing order, previous: {x}, current: {y}"
        if last is not None and last >= x:
            return 0, f"non-increasing order, previous: {last}, current: {x}"
        total += y - x + 1
        last = y
    return total, ""


def _success_policy(spec: Obj) -> list[Cause]:
    path = "spec.successPolicy"
    policy = spec["successPolicy"]
    if spec.get("completionMode", "NonIndexed") != "Indexed":
        return [invalid(path, policy, "requires indexed completion mode")]
    rules: list[Obj] = policy.get("rules") or []
    causes: list[Cause] = []
    if not rules:
        causes.append(
            required(
                f"{path}.rules",
                "at least one rules must be specified when the successPolicy is specified",
            )
        )
    if len(rules) > MAX_SUCCESS_POLICY_RULES:
        causes.append(too_many(f"{path}.rules", len(rules), MAX_SUCCESS_POLICY_RULES))
    completions = spec.get("completions") or 0
    for i, rule in enumerate(rules):
        at = f"{path}.rules[{i}]"
        count, indexes = rule.get("succeededCount"), rule.get("succeededIndexes")
        if count is None and indexes is None:
            causes.append(
                required(at, "at least one of succeededCount or succeededIndexes must be specified")
            )
        total = 0
        if indexes is not None:
            if len(indexes) > MAX_SUCCEEDED_INDEXES_LENGTH:
                causes.append(too_long(f"{at}.succeededIndexes", MAX_SUCCEEDED_INDEXES_LENGTH))
            total, error = parse_indexes(indexes, completions)
            if error:
                causes.append(
                    invalid(
                        f"{at}.succeededIndexes",
                        indexes,
                        f"error parsing succeededIndexes: {error}",
                    )
                )
        if count is not None:
            if count < 0:
                causes.append(invalid(f"{at}.succeededCount", count, NEGATIVE))
            if count > completions:
                causes.append(
                    invalid(
                        f"{at}.succeededCount",
                        count,
                        f"must be less than or equal to {completions} (the number of specified "
                        "completions)",
                    )
                )
            if indexes is not None and count > total:
                causes.append(
                    invalid(
                        f"{at}.succeededCount",
                        count,
                        f"must be less than or equal to {total} (the number of indexes in the "
                        "specified succeededIndexes field)",
                    )
                )
    return causes


def _replacement(spec: Obj) -> list[Cause]:
    value = spec.get("podReplacementPolicy")
    if value is None:
        return []
    allowed = ("Failed",) if spec.get("podFailurePolicy") is not None else REPLACEMENT_POLICIES
    if value not in allowed:
        return [not_supported("spec.podReplacementPolicy", value, allowed)]
    return []


def _restart_policy(spec: Obj) -> list[Cause]:
    path = "spec.template.spec.restartPolicy"
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") or ""
    if policy in ("", "Always"):
        return [required(path, 'valid values: "OnFailure", "Never"')]
    if policy not in ("OnFailure", "Never"):
        return [not_supported(path, policy, ("OnFailure", "Never"))]
    if spec.get("podFailurePolicy") is not None and policy != "Never":
        return [
            invalid(path, policy, 'only "Never" is supported when podFailurePolicy is specified')
        ]
    return []


def validate_job_spec(job: Obj) -> list[Cause]:
    """``validateJobSpec`` and ``ValidateJob``'s Indexed hostname rule."""
    spec = job.get("spec") or {}
    causes: list[Cause] = []
    for name in _NONNEGATIVE:
        causes += _nonnegative(spec, name)
    if spec.get("maxFailedIndexes") is not None and spec.get("backoffLimitPerIndex") is None:
        causes.append(required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    if spec.get("managedBy") is not None:
        causes += _managed_by(spec["managedBy"])
    mode = spec.get("completionMode")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        causes.append(not_supported("spec.completionMode", mode, ("NonIndexed", "Indexed")))
    if mode == "Indexed":
        causes += _indexed(spec)
    if mode in (None, "NonIndexed"):
        for name in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if spec.get(name) is not None:
                causes.append(
                    invalid(f"spec.{name}", spec[name], "requires indexed completion mode")
                )
    if spec.get("podFailurePolicy") is not None:
        causes += _pod_failure_policy(spec)
    if spec.get("successPolicy") is not None:
        causes += _success_policy(spec)
    causes += _replacement(spec)
    causes += _restart_policy(spec)
    completions, name = spec.get("completions"), (job.get("metadata") or {}).get("name", "")
    if mode == "Indexed" and isinstance(completions, int) and completions > 0:
        hostname = f"{name}-{completions - 1}"
        if len(hostname) > 63 or not _DNS1123_LABEL.match(hostname):
            causes.append(
                invalid(
                    "metadata.name",
                    name,
                    f"will not able to create pod with invalid DNS label: {hostname}",
                )
            )
    return causes


_IMMUTABLE = ("selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex",
              "managedBy", "successPolicy")  # fmt: skip
# Template fields a suspended Job that never started may change (AllowMutableSchedulingDirectives).
_SCHEDULING = ("nodeSelector", "tolerations", "schedulingGates")


def _template_for_compare(template: Obj, mutable: bool) -> Obj:
    if not mutable:
        return template
    meta = {k: v for k, v in (template.get("metadata") or {}).items()
            if k not in ("labels", "annotations")}  # fmt: skip
    spec = {k: v for k, v in (template.get("spec") or {}).items() if k not in _SCHEDULING}
    affinity = {k: v for k, v in (spec.get("affinity") or {}).items() if k != "nodeAffinity"}
    spec["affinity"] = affinity or None
    return {**template, "metadata": meta, "spec": spec}


def validate_job_update(new: Obj, old: Obj) -> list[Cause]:
    """``ValidateJobSpecUpdate``'s immutable fields (completions, as ElasticIndexedJob allows)."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    causes: list[Cause] = []
    completions = spec.get("completions")
    if completions != old_spec.get("completions"):
        if spec.get("completionMode") != "Indexed":
            causes.append(immutable("spec.completions", completions))
        elif completions is not None and completions != spec.get("parallelism"):
            causes.append(
                invalid(
                    "spec.completions",
                    completions,
                    "can only be modified in tandem with spec.parallelism",
                )
            )
    for name in _IMMUTABLE:
        if spec.get(name) != old_spec.get(name):
            causes.append(immutable(f"spec.{name}", spec.get(name)))
    mutable = bool(old_spec.get("suspend")) and not (old.get("status") or {}).get("startTime")
    template, old_template = spec.get("template") or {}, old_spec.get("template") or {}
    if _template_for_compare(template, mutable) != _template_for_compare(old_template, mutable):
        causes.append(immutable("spec.template", template))
    return causes
