"""Writing Kueue status decisions: Workload admission and conditions, queue counters.

The scheduler computed each status from one resourceVersion of the object; the binder writes
it as a merge patch of the status subresource with that resourceVersion as a precondition, as
Kueue's own controllers write with optimistic concurrency. A 409 (the object changed since) or a
404 (it is gone) is not an error: the scheduler sees the newer object and decides again. A
Workload that gets its quota or is preempted also gets Kueue's Normal Event.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from shared.events import KueueStatusDecided
from shared.kube import ApiError, KubeClient
from shared.kube.keys import split_key
from shared.kube.resources import resource_for
from shared.kube.timefmt import format_rfc3339

KUEUE_API = "kueue.x-k8s.io/v1beta2"
# Condition type (now true on a Workload) → the Event Kueue records for it.
_EVENTS = {"QuotaReserved": "QuotaReserved", "Admitted": "Admitted", "Preempted": "Preempted"}

PostEvent = Callable[[dict[str, str], str, str], Awaitable[None]]


async def write_status(kube: KubeClient, d: KueueStatusDecided, post_event: PostEvent) -> bool:
    """Write one decided status; False when it no longer applies (changed or gone)."""
    namespace, name = split_key(d.key)
    patch: dict[str, object] = {"status": d.status}
    if d.resource_version:
        patch["metadata"] = {"resourceVersion": d.resource_version}
    rt = resource_for(KUEUE_API, d.kind)
    try:
        await kube.patch(rt, name, patch, namespace=namespace or None, subresource="status")
    except ApiError as exc:
        if exc.status in (404, 409):
            return False
        raise
    involved = {
        "apiVersion": KUEUE_API,
        "kind": "Workload",
        "namespace": namespace,
        "name": name,
        "uid": d.uid,
    }
    for reason, message in events(d):
        await post_event(involved, reason, message)
    return True


def events(d: KueueStatusDecided) -> list[tuple[str, str]]:
    """The Normal Events (reason, message) writing ``d`` posts: a Workload condition of
    ``_EVENTS`` that turned true in the cycle that decided it."""
    if d.kind != "Workload":
        return []
    decided_at = format_rfc3339(d.occurred_at)
    found: list[tuple[str, str]] = []
    for condition in d.status.get("conditions") or []:
        reason = _EVENTS.get(str(condition.get("type")))
        changed_now = condition.get("lastTransitionTime") == decided_at
        if reason and condition.get("status") == "True" and changed_now:
            found.append((reason, str(condition.get("message") or "")))
    return found
