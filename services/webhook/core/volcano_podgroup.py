"""Volcano's ``validatepodgroup.volcano.sh`` webhook (pkg/webhooks/admission/podgroups/validate),
on CREATE only: the queue must exist and be Open; network topology limits must not conflict."""

from __future__ import annotations

from typing import Any

from services.webhook.core.queues import QueueLister
from services.webhook.core.volcano_topology import validate_network_topology

Obj = dict[str, Any]
WEBHOOK = "validatepodgroup.volcano.sh"


def _queue_state(name: str, queues: QueueLister) -> str:
    if not name:
        return ""
    queue = queues.get(name)
    if queue is None:
        return f'unable to find queue: queue.scheduling.volcano.sh "{name}" not found'
    state = (queue.get("status") or {}).get("state", "")
    if state != "Open":
        return (
            "can only submit PodGroup to queue with state `Open`, "
            f"queue `{name}` status is `{state}`. "
        )
    return ""


def _topology(spec: Obj) -> str:
    errors = []
    if validate_network_topology(spec.get("networkTopology")):
        errors.append(
            "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology "
            "simultaneously."
        )
    for policy in spec.get("subGroupPolicy") or []:
        if validate_network_topology(policy.get("networkTopology")):
            errors.append(
                f"in subGroupPolicy '{policy.get('name', '')}': must not specify "
                "'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously."
            )
            break
    return " ".join(errors)


def validate_podgroup(podgroup: Obj, queues: QueueLister) -> str:
    """``validatePodGroup``: the refusal message (empty: admitted)."""
    spec = podgroup.get("spec") or {}
    errors = [
        message.strip()
        for message in (_queue_state(spec.get("queue") or "", queues), _topology(spec))
        if message
    ]
    return "; ".join(errors)
