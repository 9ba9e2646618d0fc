"""Validating admission webhooks of Volcano and the Kubeflow training operator, run in-process.

On a real cluster these are HTTP webhooks; kubesim calls the same rules on create, update and
delete (after defaulting and schema validation, as the API server orders them) and refuses with
the API server's webhook error: 403 ``<resource> "<name>" is forbidden: admission webhook
"<webhook>" denied the request: <message>``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from services.kubesim import apierrors
from services.kubesim.admission import (
    hypernode_policy,
    pytorchjob,
    volcano_job,
    volcano_podgroup,
    volcano_queue,
)
from services.kubesim.admission.queues import ListedQueues, QueueLister
from services.kubesim.apiwarnings import warn
from services.kubesim.resourcetype import ResourceType

Obj = dict[str, Any]
Check = Callable[[str, Obj, "Obj | None", QueueLister], str]


def _job(operation: str, new: Obj, old: Obj | None, queues: QueueLister) -> str:
    if operation == "CREATE":
        return volcano_job.validate_job_create(new, queues).strip()
    if operation == "UPDATE" and old is not None:
        return volcano_job.validate_job_update(old, new)
    return ""


def _podgroup(operation: str, new: Obj, old: Obj | None, queues: QueueLister) -> str:
    return volcano_podgroup.validate_podgroup(new, queues) if operation == "CREATE" else ""


def _queue(operation: str, new: Obj, old: Obj | None, queues: QueueLister) -> str:
    return volcano_queue.admit_queue(operation, new, old, queues)


def _pytorchjob(operation: str, new: Obj, old: Obj | None, queues: QueueLister) -> str:
    if operation == "DELETE":
        return ""
    warnings, message = pytorchjob.admit_pytorchjob(operation, new)
    for text in warnings:
        warn(text)  # the webhook's admission warnings reach kubectl as Warning headers
    return message


# (group, plural) → (webhook name, check); the storage versions the webhooks are registered for.
WEBHOOKS: dict[tuple[str, str], tuple[str, Check]] = {
    ("batch.volcano.sh", "jobs"): (volcano_job.WEBHOOK, _job),
    ("scheduling.volcano.sh", "podgroups"): (volcano_podgroup.WEBHOOK, _podgroup),
    ("scheduling.volcano.sh", "queues"): (volcano_queue.WEBHOOK, _queue),
    ("kubeflow.org", "pytorchjobs"): (pytorchjob.WEBHOOK, _pytorchjob),
}

# (group, plural) → (policy, binding, check) of the ValidatingAdmissionPolicies Shoal's
# upstreams install; they run on CREATE and UPDATE, before the webhooks as the API server's
# admission plugins are ordered.
POLICIES: dict[tuple[str, str], tuple[str, str, Callable[[Obj], str]]] = {
    ("topology.volcano.sh", "hypernodes"): (
        hypernode_policy.POLICY,
        hypernode_policy.BINDING,
        hypernode_policy.validate_hypernode,
    ),
}


class Webhooks:
    """The validating webhooks, over the store's current Queues."""

    def __init__(self, queues: Callable[[], Iterable[Obj]]) -> None:
        self._queues = queues

    def __call__(self, operation: str, rtype: ResourceType, new: Obj, old: Obj | None) -> None:
        policy = POLICIES.get((rtype.group, rtype.plural))
        if policy is not None and operation in ("CREATE", "UPDATE"):
            policy_name, binding, validate = policy
            message = validate(new)
            if message:
                raise apierrors.policy_denied(
                    rtype.plural,
                    rtype.group,
                    new["metadata"].get("name", ""),
                    policy_name,
                    binding,
                    message,
                )
        hook = WEBHOOKS.get((rtype.group, rtype.plural))
        if hook is None:
            return
        name, check = hook
        message = check(operation, new, old, ListedQueues(list(self._queues())))
        if message:
            raise apierrors.webhook_denied(
                rtype.plural, rtype.group, new["metadata"].get("name", ""), name, message
            )
