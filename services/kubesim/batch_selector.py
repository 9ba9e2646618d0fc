"""A batch/v1 Job's selector against its pod template, as Kubernetes validates it once the
selector is generated (pkg/apis/batch/validation/validation.go: ``ValidateJobSpec``'s selector
rules and ``validateGeneratedSelector``), and ``validate_defaulted_job``: all of ``ValidateJob``
on the defaulted Job, as the API server validates after its defaulters."""

from __future__ import annotations

from typing import Any

from services.kubesim.batch_validation import validate_job_spec
from shared.kube.fielderrors import Cause, invalid, required

Obj = dict[str, Any]
# k8s.io/kubernetes pkg/apis/batch: ControllerUidLabel, JobNameLabel and their legacy forms.
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"
TEMPLATE_META = "spec.template.metadata"


def matches(selector: Obj, labels: dict[str, str]) -> bool:
    """``LabelSelectorAsSelector(selector).Matches(labels)``."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for requirement in selector.get("matchExpressions") or []:
        key, operator = requirement.get("key", ""), requirement.get("operator", "")
        values = requirement.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


def _labels(job: Obj) -> dict[str, str]:
    template = (job.get("spec") or {}).get("template") or {}
    labels = (template.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}


def _has_label(labels: dict[str, str], key: str, expected: str) -> list[Cause]:
    """``ValidateHasLabel`` on the pod template."""
    field = f"{TEMPLATE_META}.labels[{key}]"
    if key not in labels:
        return [required(field, f"must be '{expected}'")]
    if labels[key] != expected:
        return [invalid(field, labels, f"must be '{expected}'")]
    return []


def validate_generated_selector(job: Obj, *, prefixed_labels: bool = True) -> list[Cause]:
    """``validateGeneratedSelector``: unless ``manualSelector``, the template carries the
    generated labels and the selector selects exactly them."""
    spec, meta = job.get("spec") or {}, job.get("metadata") or {}
    selector = spec.get("selector")
    if spec.get("manualSelector") or selector is None:
        return []
    uid, name = meta.get("uid", ""), meta.get("name", "")
    causes: list[Cause] = [] if uid else [required("metadata.uid")]
    labels = _labels(job)
    causes += _has_label(labels, LEGACY_CONTROLLER_UID, uid)
    causes += _has_label(labels, LEGACY_JOB_NAME, name)
    expected = {}
    if prefixed_labels:
        causes += _has_label(labels, CONTROLLER_UID, uid)
        causes += _has_label(labels, JOB_NAME, name)
        expected = {CONTROLLER_UID: uid, JOB_NAME: name}
    expected |= {LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: name}
    if not matches(selector, expected):
        causes.append(invalid("spec.selector", selector, "`selector` not auto-generated"))
    return causes


def validate_selector(job: Obj) -> list[Cause]:
    """``ValidateJobSpec``'s selector rules: required, and selecting the template's labels."""
    selector = (job.get("spec") or {}).get("selector")
    if selector is None:
        causes = [required("spec.selector")]
        selector = {}
    else:
        causes = []
    labels = _labels(job)
    if not matches(selector, labels) or (selector == {} and causes):
        # The value as Go prints the template's labels: a missing map is null.
        shown = ((job["spec"].get("template") or {}).get("metadata") or {}).get("labels")
        causes.append(
            invalid(f"{TEMPLATE_META}.labels", shown, "`selector` does not match template `labels`")
        )
    return causes


def validate_defaulted_job(job: Obj, *, prefixed_labels: bool = True) -> list[Cause]:
    """``ValidateJob`` on the defaulted Job, in its order: the generated selector, the spec,
    the selector against the template (the pod template itself is ``validation``'s)."""
    return (
        validate_generated_selector(job, prefixed_labels=prefixed_labels)
        + validate_job_spec(job)
        + validate_selector(job)
    )
