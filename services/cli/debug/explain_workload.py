"""``shoal explain NAMESPACE/WORKLOAD``: why is my Workload pending (Kueue).

One admission run — the run ``shoal simulate admit`` and the scheduler's live admission make —
over the Kueue objects of a file (``-f``), or of the cache a recorded cycle saw (rebuilt from
the log as ``shoal replay`` does; statuses the scheduler had decided but not yet seen written
are not in the log, so a workload admitted just before may show as still pending);
then, for the Workload asked about: admitted (ClusterQueue and each pod set's flavors),
preempted to make room for another, or pending with the ``QuotaReserved=False`` condition Kueue
writes (its reason — ``WaitingForQuota``, ``WaitingForPreemptedWorkloads``, ``Misconfigured``,
``NoMatchingFlavor``, ``ExceedsMaxQuota`` — and message) and the admission core's own verdict
behind it. Kueue's fair sharing is on when the scheduler's settings turn it on
(``SHOAL_SCHEDULER_KUEUE_CONFIG``, ``SHOAL_SCHEDULER_KUEUE_FAIR_SHARING``).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

from services.scheduler.kueue import AdmissionResult, FairSharing, admit
from services.scheduler.kueue.status import quota_reserved_reason
from shared.cache import ObjectCache
from shared.errors import UserError
from shared.models import Model, Workload, object_key


def workload_keys(objects: list[Model]) -> set[str]:
    return {object_key(o.metadata) for o in objects if isinstance(o, Workload)}


def fair_sharing_from_environment() -> FairSharing | None:
    """Kueue's fairSharing as the scheduler's settings in this environment give it."""
    from services.scheduler.cli import kueue_fair_sharing
    from services.scheduler.service import SchedulerSettings
    from shared.config import load_settings

    settings = load_settings(SchedulerSettings, os.environ, prefix="SHOAL_SCHEDULER_")
    return kueue_fair_sharing(settings)


def explain_workload(
    objects: list[Model],
    key: str,
    now: datetime,
    *,
    source: str,
    fair_sharing: FairSharing | None = None,
) -> dict[str, Any]:
    """What one admission run over manifests says about Workload ``key`` (``namespace/name``)."""
    if key not in workload_keys(objects):
        raise UserError(f"{source}: no Workload {key!r}")
    return describe(admit(objects, now, source=source, fair_sharing=fair_sharing), key)


def explain_cached_workload(
    cache: ObjectCache, key: str, now: float, *, fair_sharing: FairSharing | None = None
) -> dict[str, Any] | None:
    """What the live admission says about Workload ``key`` of ``cache``; None if not there."""
    from services.scheduler.admission import WORKLOAD, AdmissionState

    if cache.get(WORKLOAD, key) is None:
        return None
    result, _ = AdmissionState(fair_sharing=fair_sharing).decide(cache, now)
    doc = describe(result, key)
    doc["at"] = datetime.fromtimestamp(now, UTC).isoformat()
    return doc


def describe(result: AdmissionResult, key: str) -> dict[str, Any]:
    doc: dict[str, Any] = {"workload": key}
    admitted = result.admitted.get(key)
    if admitted is not None:
        doc["state"] = "Admitted"
        doc["clusterQueue"] = admitted.cluster_queue
        doc["podSets"] = {
            name: {"count": ps.count, "flavors": dict(sorted(ps.flavors.items()))}
            for name, ps in sorted(admitted.podsets.items())
        }
    elif key in result.preempted:
        doc["state"] = "Preempted"
        doc["preemptedBy"] = result.preempted[key]
    elif key in result.pending:
        why = result.pending[key]
        doc["state"] = "Pending"
        doc["reason"] = quota_reserved_reason(key, result)
        doc["message"] = why.message
        doc["verdict"] = why.reason
    else:
        doc["state"] = "Admitted"
        doc["message"] = "already holds its quota"
    return doc


def render_workload(doc: dict[str, Any]) -> str:
    lines = [f"workload {doc['workload']}: {doc['state']}"]
    if "clusterQueue" in doc:
        lines.append(f"  ClusterQueue {doc['clusterQueue']}")
        for name, podset in doc.get("podSets", {}).items():
            flavors = ", ".join(f"{r}={f}" for r, f in podset["flavors"].items())
            lines.append(f"  pod set {name}: {podset['count']} pods on {flavors}")
    if "preemptedBy" in doc:
        lines.append(f"  evicted to make room for {doc['preemptedBy']}")
    if "reason" in doc:
        lines.append(f"  QuotaReserved=False {doc['reason']}: {doc['message']}")
        lines.append(f"  [admission {doc['verdict']}]")
    elif "message" in doc:
        lines.append(f"  {doc['message']}")
    return "\n".join(lines)
