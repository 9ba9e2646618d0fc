"""The pod subresources that are verbs of their own: ``binding`` and ``eviction``."""

from __future__ import annotations

from typing import Any

from services.kubesim import apierrors
from services.kubesim.behaviour import disruption_condition, with_condition
from services.kubesim.registry import ResourceType
from services.kubesim.store import Store
from shared.kube.timefmt import format_rfc3339

Obj = dict[str, Any]


def evict(store: Store, rtype: ResourceType, namespace: str, name: str, body: Obj) -> None:
    """As the eviction subresource: a pod that is not terminal first gets the
    ``DisruptionTarget`` condition (``EvictionByEvictionAPI``), then is deleted."""
    options = body.get("deleteOptions") or {}
    uid = (options.get("preconditions") or {}).get("uid")
    pod = store.get(rtype, namespace, name)
    if uid and uid != pod["metadata"].get("uid"):
        raise apierrors.conflict(
            rtype.plural, rtype.group, name, "Precondition failed: UID mismatch"
        )
    if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
        now = format_rfc3339(store.clock())
        cond = disruption_condition("EvictionByEvictionAPI", "Eviction API: evicting", now)
        store.update_status(rtype, pod, with_condition(pod, cond))
    store.delete(
        rtype,
        namespace,
        name,
        grace_seconds=options.get("gracePeriodSeconds"),
        propagation=options.get("propagationPolicy"),
        precondition_uid=uid,
    )


def bind(store: Store, rtype: ResourceType, namespace: str, name: str, body: Obj) -> None:
    """``pods/<name>/binding`` or the legacy ``bindings`` (the name from the body)."""
    meta = body.get("metadata") or {}
    name = name or meta.get("name", "")
    node = (body.get("target") or {}).get("name")
    if not node:
        raise apierrors.invalid(
            "Binding", "", name, [("target.name", "FieldValueRequired", "Required value")]
        )
    store.bind(namespace, name, node, meta.get("annotations") or {})
