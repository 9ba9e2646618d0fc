"""Progress of jobs as seen on the API server: phase per job, pods bound/running/done.

Pure functions over API dicts, shared by ``shoal up``'s live view, the e2e tests and
``shoal bench e2e``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from shared.kube.keys import namespaced_key

Json = dict[str, Any]
TERMINAL = frozenset({"Complete", "Completed", "Succeeded", "Failed", "Aborted", "Terminated"})
SUCCESS = frozenset({"Complete", "Completed", "Succeeded"})


@dataclass(frozen=True, slots=True)
class JobProgress:
    kind: str
    key: str
    phase: str
    pods: int
    bound: int
    running: int
    succeeded: int
    failed: int

    @property
    def done(self) -> bool:
        return self.phase in TERMINAL

    @property
    def succeeded_job(self) -> bool:
        return self.phase in SUCCESS


def _true(conditions: Iterable[Json], kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in conditions)


def job_phase(job: Json) -> str:
    status = job.get("status") or {}
    api_version = job.get("apiVersion", "")
    conditions = status.get("conditions") or []
    if api_version == "batch/v1":
        for kind in ("Complete", "Failed", "Suspended"):
            if _true(conditions, kind):
                return kind
        return "Running" if status.get("active") else "Pending"
    if api_version.startswith("batch.volcano.sh"):
        return str((status.get("state") or {}).get("phase") or "Pending")
    if api_version.startswith("kubeflow.org"):
        for kind in ("Succeeded", "Failed", "Restarting", "Running", "Created"):
            if _true(conditions, kind):
                return kind
        return "Pending"
    return "Unknown"


def _short_kind(job: Json) -> str:
    api_version = str(job.get("apiVersion", ""))
    if api_version.startswith("batch.volcano.sh"):
        return "vcjob"
    return str(job.get("kind", "")).lower()


def job_key(obj: Json) -> str:
    meta = obj.get("metadata") or {}
    return namespaced_key(meta.get("namespace"), str(meta.get("name", "")))


def progress(jobs: Iterable[Json], pods: Iterable[Json]) -> list[JobProgress]:
    """One row per job, counting the pods whose controller is that job (by uid)."""
    by_owner: dict[str, list[Json]] = {}
    for pod in pods:
        for ref in (pod.get("metadata") or {}).get("ownerReferences") or []:
            if ref.get("controller"):
                by_owner.setdefault(str(ref.get("uid")), []).append(pod)
    rows = []
    for job in jobs:
        owned = by_owner.get(str((job.get("metadata") or {}).get("uid")), [])
        phases = [str((p.get("status") or {}).get("phase", "")) for p in owned]
        rows.append(
            JobProgress(
                kind=_short_kind(job),
                key=job_key(job),
                phase=job_phase(job),
                pods=len(owned),
                bound=sum(1 for p in owned if (p.get("spec") or {}).get("nodeName")),
                running=phases.count("Running"),
                succeeded=phases.count("Succeeded"),
                failed=phases.count("Failed"),
            )
        )
    return sorted(rows, key=lambda r: (r.kind, r.key))
