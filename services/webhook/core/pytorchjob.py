"""The training operator's PyTorchJob webhook (release-1.9 pkg/webhooks/pytorch).

``validate_pytorchjob`` returns (warnings, field errors) as ``validatePyTorchJob``; the webhook
answers with the errors' aggregate. Upstream's ``ValidateUpdate`` passes the new object as the
old one, so ``runPolicy.managedBy`` immutability never fires on a real cluster; kubesim keeps
that (``admit_pytorchjob`` compares the new object with itself).
"""

from __future__ import annotations

import re
from typing import Any

from services.webhook.core.volcano_policies import go_quote
from shared.kube.fielderrors import aggregate

Obj = dict[str, Any]
WEBHOOK = "validator.pytorchjob.training-operator.kubeflow.org"
SPEC = "spec"
REPLICA_SPECS = "spec.pytorchReplicaSpecs"
DEFAULT_CONTAINER = "pytorch"  # PyTorchJobDefaultContainerName
ROLES = ("Master", "Worker")
# pkg/apis/kubeflow.org/v1/common_types.go: KubeflowJobsController, MultiKueueController.
JOB_CONTROLLERS = ("kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue")
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
FIELD_IMMUTABLE = "field is immutable"  # apimachinery FieldImmutableErrorMsg


def required(path: str, detail: str) -> str:
    return f"{path}: Required value: {detail}"


def forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}"


def not_supported(path: str, value: str, allowed: tuple[str, ...]) -> str:
    choices = ", ".join(go_quote(a) for a in allowed)
    return f"{path}: Unsupported value: {go_quote(value)}: supported values: {choices}"


def _name(name: str) -> list[str]:
    errors = []
    if len(name) > 63:
        errors.append("must be no more than 63 characters")
    if not _DNS1035.match(name):
        errors.append(_DNS1035_MSG)
    if not errors:
        return []
    detail = f"should match: {','.join(errors)}"
    return [f"metadata.name: Invalid value: {go_quote(name)}: {detail}"]


def _run_policy(old: Obj | None, new: Obj) -> list[str]:
    path = "spec.runPolicy.managedBy"
    errors = []
    managed = ((new.get("spec") or {}).get("runPolicy") or {}).get("managedBy")
    if old is not None:
        before = ((old.get("spec") or {}).get("runPolicy") or {}).get("managedBy")
        if before != managed:
            errors.append(f"{path}: Invalid value: {go_quote(managed)}: {FIELD_IMMUTABLE}")
    if managed is not None and managed not in JOB_CONTROLLERS:
        errors.append(not_supported(path, managed, tuple(sorted(JOB_CONTROLLERS))))
    return errors


def _replica_specs(specs: dict[str, Any] | None) -> list[str]:
    errors: list[str] = []
    if specs is None:
        errors.append(required(REPLICA_SPECS, "must be required"))
    for role, replica in (specs or {}).items():
        role_path = f"{REPLICA_SPECS}[{role}]"
        containers_path = f"{role_path}.template.spec.containers"
        if role not in ROLES:
            errors.append(not_supported(role_path, role, ROLES))
        template = ((replica or {}).get("template") or {}).get("spec") or {}
        containers = template.get("containers") or []
        if not containers:
            errors.append(required(containers_path, "must be specified"))
        for i, container in enumerate(containers):
            if not container.get("image"):
                errors.append(required(f"{containers_path}[{i}].image", "must be required"))
        if not any(c.get("name") == DEFAULT_CONTAINER for c in containers):
            errors.append(
                required(
                    containers_path,
                    f"must have at least one container with name {DEFAULT_CONTAINER}",
                )
            )
        replicas = (replica or {}).get("replicas")
        if role == "Master":
            if replicas != 1:
                errors.append(forbidden(f"{role_path}.replicas", "must be 1"))
        elif replicas is not None and replicas < 1:
            errors.append(forbidden(f"{role_path}.replicas", "must be at least 1"))
    return errors


def _spec(spec: Obj) -> tuple[list[str], list[str]]:
    warnings: list[str] = []
    errors: list[str] = []
    elastic = spec.get("elasticPolicy")
    if elastic is not None:
        if "Worker" not in (spec.get("pytorchReplicaSpecs") or {}):
            errors.append(
                required(f"{REPLICA_SPECS}[Worker]", "must be configured if elastic policy is used")
            )
        if elastic.get("nProcPerNode") is not None:
            old, new = "spec.elasticPolicy.nProcPerNode", "spec.nprocPerNode"
            warnings.append(f"{old} is deprecated, use {new} instead")
            if spec.get("nprocPerNode") is not None:
                errors.append(forbidden(old, f"must not be used with {new}"))
    errors += _replica_specs(spec.get("pytorchReplicaSpecs"))
    return warnings, errors


def validate_pytorchjob(old: Obj | None, new: Obj) -> tuple[list[str], list[str]]:
    """``validatePyTorchJob``: warnings and field errors (as their ``Error()`` strings)."""
    errors = _name((new.get("metadata") or {}).get("name", ""))
    errors += _run_policy(old, new)
    warnings, spec_errors = _spec(new.get("spec") or {})
    return warnings, errors + spec_errors


def admit_pytorchjob(operation: str, new: Obj) -> tuple[list[str], str]:
    """The webhook's answer: warnings and the refusal message (empty: admitted)."""
    old = new if operation == "UPDATE" else None
    warnings, errors = validate_pytorchjob(old, new)
    return warnings, aggregate(errors) if errors else ""
