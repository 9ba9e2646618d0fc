"""The API server's calls to Shoal's webhook (services.webhook.core), in-process.

kube-apiserver sends an AdmissionReview to each matching webhook over HTTPS; kubesim builds the
same review and hands it to the same core, so the only difference is transport. Mutating
webhooks run after defaulting, their JSON Patches applied in turn; validating ones run last
(after schema validation, as the API server orders its admission plugins) and a refusal is the
API server's webhook error: 403 ``<resource> "<name>" is forbidden: admission webhook
"<webhook>" denied the request: <message>``. Their warnings reach the client as Warning headers.
The HyperNode ValidatingAdmissionPolicy (not a webhook) runs before the webhooks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from services.kubesim import apierrors
from services.kubesim.apiwarnings import warn
from services.kubesim.patch import PatchError, json_patch
from services.kubesim.resourcetype import ResourceType
from services.webhook.core import hypernode_policy
from services.webhook.core.queues import ListedQueues
from services.webhook.core.review import build_admission_review, patch_operations, review_admission
from services.webhook.core.webhooks import Webhook, matching

Obj = dict[str, Any]
SYSTEM_NAMESPACE = "kube-system"

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


class StoreView:
    """The cluster as the webhooks read it, from the store, read only when a rule asks."""

    def __init__(
        self,
        queues: Callable[[], Iterable[Obj]],
        namespaces: Callable[[str], Mapping[str, str] | None],
        default_local_queue: Callable[[str], bool],
    ) -> None:
        self._queues_of = queues
        self._listed: ListedQueues | None = None
        self._namespaces = namespaces
        self._default_local_queue = default_local_queue

    def _queues(self) -> ListedQueues:
        if self._listed is None:
            self._listed = ListedQueues(list(self._queues_of()))
        return self._listed

    def get(self, name: str) -> Obj | None:
        return self._queues().get(name)

    def all(self) -> list[Obj]:
        return self._queues().all()

    def children(self, parent: str) -> list[Obj]:
        return self._queues().children(parent)

    def namespace_annotations(self, namespace: str) -> Mapping[str, str] | None:
        return self._namespaces(namespace)

    def default_local_queue_exists(self, namespace: str) -> bool:
        return self._default_local_queue(namespace)


class Webhooks:
    """The webhooks of the write being admitted; ``validating`` off leaves only mutation."""

    def __init__(
        self,
        view: Callable[[], StoreView],
        *,
        uid: Callable[[], str],
        validating: bool = True,
        optional: frozenset[str] = frozenset(),
    ) -> None:
        self._view = view
        self._uid = uid
        self.validating = validating
        # The optional webhooks registered (services.webhook.core.webhooks.OPTIONAL).
        self.optional = optional

    def _review(
        self,
        webhook: Webhook,
        operation: str,
        rtype: ResourceType,
        new: Obj | None,
        old: Obj | None,
        subresource: str = "",
    ) -> Obj:
        meta = (new if new is not None else old or {}).get("metadata") or {}
        review = build_admission_review(
            uid=self._uid(),
            operation=operation,
            kind=(rtype.group, rtype.version, rtype.kind),
            resource=(rtype.group, rtype.version, rtype.plural),
            name=str(meta.get("name") or ""),
            namespace=str(meta.get("namespace") or ""),
            obj=new,
            old=old,
            subresource=subresource,
        )
        response: Obj = review_admission(webhook, review, self._view())["response"]
        for text in response.get("warnings") or ():
            warn(text)
        return response

    def _applies(self, webhook: Webhook, obj: Obj) -> bool:
        namespace = (obj.get("metadata") or {}).get("namespace")
        return not (webhook.skip_system_namespaces and namespace == SYSTEM_NAMESPACE)

    def mutate(self, operation: str, rtype: ResourceType, obj: Obj) -> Obj:
        """``obj`` after the mutating webhooks' patches."""
        hooks = matching(
            rtype.group,
            rtype.version,
            rtype.plural,
            operation,
            mutating=True,
            optional=self.optional,
        )
        for webhook in hooks:
            if not self._applies(webhook, obj):
                continue
            response = self._review(webhook, operation, rtype, obj, None)
            self._raise_if_denied(webhook, rtype, obj, response)
            operations = patch_operations(response)
            if not operations:  # most pods pass Kueue's pod webhook untouched: no copy
                continue
            try:
                obj = json_patch(obj, operations)
            except PatchError as error:
                raise apierrors.ApiError(
                    500, f"failed to apply the patch of webhook {webhook.name!r}: {error}"
                ) from error
        return obj

    def __call__(
        self,
        operation: str,
        rtype: ResourceType,
        new: Obj,
        old: Obj | None,
        *,
        subresource: str = "",
    ) -> None:
        """Validating admission (for DELETE, ``new`` is the object deleted; ``subresource``:
        a write of one, judged by the webhooks whose rules name it)."""
        if not self.validating:
            return
        policy = POLICIES.get((rtype.group, rtype.plural))
        if policy is not None and operation in ("CREATE", "UPDATE") and not subresource:
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
        hooks = matching(
            rtype.group,
            rtype.version,
            rtype.plural,
            operation,
            mutating=False,
            subresource=subresource,
            optional=self.optional,
        )
        for webhook in hooks:
            if not self._applies(webhook, new):
                continue
            if operation == "DELETE":
                response = self._review(webhook, operation, rtype, None, new)
            else:
                response = self._review(webhook, operation, rtype, new, old, subresource)
            self._raise_if_denied(webhook, rtype, new, response)

    @staticmethod
    def _raise_if_denied(webhook: Webhook, rtype: ResourceType, obj: Obj, response: Obj) -> None:
        if response.get("allowed"):
            return
        raise apierrors.webhook_denied(webhook.name, response.get("status") or {})
