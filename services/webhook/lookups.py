"""What the webhooks read from the cluster, read before each review (the shell's I/O).

Volcano's webhook-manager reads Queues and Namespaces through informers and Kueue's job webhook
asks its queue cache whether a namespace has a LocalQueue named ``default``; this stateless
service reads exactly what the review's webhook declares (``Webhook.reads``) from the API
server, so every replica answers from the cluster as it is, with no cache to warm.
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.kueue_jobs import (
    KUEUE_DEFAULT_LOCAL_QUEUE,
    KUEUE_JOB_KINDS,
    KUEUE_UNMANAGED_NAMESPACES,
    queue_name,
)
from services.webhook.core.queues import Snapshot
from services.webhook.core.webhooks import Webhook
from shared.kube import KubeClient
from shared.kube.client import ApiError
from shared.kube.resources import RESOURCES

Obj = dict[str, Any]
QUEUE = RESOURCES[("scheduling.volcano.sh/v1beta1", "Queue")]
NAMESPACE = RESOURCES[("v1", "Namespace")]
LOCAL_QUEUE = RESOURCES[("kueue.x-k8s.io/v1beta2", "LocalQueue")]


def _may_take_default_queue(request: Obj) -> bool:
    """Whether Kueue's webhooks could give the object the namespace's default LocalQueue:
    not when it names a queue, lives in a namespace Kueue does not manage, or is controlled
    by a Kueue job kind (every pod a job controller creates). Saves the read on those."""
    obj = request.get("object")
    if not isinstance(obj, dict) or queue_name(obj):
        return False
    if str(request.get("namespace") or "") in KUEUE_UNMANAGED_NAMESPACES:
        return False
    owners = (obj.get("metadata") or {}).get("ownerReferences") or []
    return not any(
        isinstance(o, dict)
        and o.get("controller")
        and (o.get("apiVersion"), o.get("kind")) in KUEUE_JOB_KINDS
        for o in owners
    )


class ClusterReader:
    """Reads a review's ClusterView from the API server."""

    def __init__(self, kube: KubeClient) -> None:
        self._kube = kube

    async def snapshot(self, webhook: Webhook, request: Obj) -> Snapshot:
        namespace = str(request.get("namespace") or "")
        queues: list[Obj] = []
        namespaces: dict[str, dict[str, str]] = {}
        default_local_queues: list[str] = []
        if "queues" in webhook.reads:
            queues, _ = await self._kube.list_all(QUEUE)
        if "namespaces" in webhook.reads and namespace:
            try:
                ns = await self._kube.get(NAMESPACE, namespace)
            except ApiError as error:
                if error.status != 404:
                    raise
            else:
                namespaces[namespace] = dict(ns["metadata"].get("annotations") or {})
        if "localqueues" in webhook.reads and namespace and _may_take_default_queue(request):
            try:
                await self._kube.get(LOCAL_QUEUE, KUEUE_DEFAULT_LOCAL_QUEUE, namespace)
            except ApiError as error:
                if error.status != 404:
                    raise
            else:
                default_local_queues.append(namespace)
        return Snapshot(queues, namespaces=namespaces, default_local_queues=default_local_queues)
