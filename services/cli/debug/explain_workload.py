"""``shoal explain -f FILE NAMESPACE/WORKLOAD``: why is my Workload pending (Kueue).

One admission run over the Kueue objects in the file — the run ``shoal simulate admit`` and the
scheduler's live admission make — and, for the Workload asked about: admitted (ClusterQueue and
each pod set's flavors), pending with the last verdict it got (reason and message, as its
``QuotaReserved=False`` condition would say), or preempted to make room for another.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from services.scheduler.kueue import AdmissionResult, admit
from shared.errors import UserError
from shared.models import Model, Workload, object_key


def workload_keys(objects: list[Model]) -> set[str]:
    return {object_key(o.metadata) for o in objects if isinstance(o, Workload)}


def explain_workload(
    objects: list[Model], key: str, now: datetime, *, source: str
) -> dict[str, Any]:
    """What one admission run says about Workload ``key`` (``namespace/name``)."""
    if key not in workload_keys(objects):
        raise UserError(f"{source}: no Workload {key!r}")
    result: AdmissionResult = admit(objects, now, source=source)
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
        doc["reason"] = why.reason
        doc["message"] = why.message
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
        lines.append(f"  [{doc['reason']}] {doc['message']}")
    elif "message" in doc:
        lines.append(f"  {doc['message']}")
    return "\n".join(lines)
