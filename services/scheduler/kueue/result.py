"""What one admission run decided, and its ``shoal simulate admit`` JSON shape (architecture §5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.scheduler.api.status import Status
from services.scheduler.kueue.model import Snapshot
from services.scheduler.kueue.workloads import WorkloadInfo


@dataclass(frozen=True)
class PodSetFlavors:
    count: int
    flavors: dict[str, str]
    """Resource → flavor."""


@dataclass(frozen=True)
class Admitted:
    cluster_queue: str
    podsets: dict[str, PodSetFlavors]


@dataclass
class AdmissionResult:
    admitted: dict[str, Admitted] = field(default_factory=dict)
    """Workloads admitted by this run (already-admitted ones are not repeated)."""
    pending: dict[str, Status] = field(default_factory=dict)
    """Workloads still waiting, with why: the last verdict they got."""
    preempted: dict[str, str] = field(default_factory=dict)
    """Admitted workloads chosen for eviction → the workload they make room for."""
    heads: set[str] = field(default_factory=set)
    """Pending workloads a Kueue cycle of this run evaluated at the head of their
    ClusterQueue: the first of each ClusterQueue that was not admitted (Kueue's scheduler
    writes a waiting workload's condition only for a head it evaluated, ``requeueAndUpdate``).
    """
    no_fit: dict[str, str] = field(default_factory=dict)
    """Pending workloads no flavor fits at all → Kueue's NoFitReason (NoMatchingFlavor,
    ExceedsMaxQuota, WaitingForQuota), the reason of their QuotaReserved=False condition."""
    cycles: int = 0
    """Scheduling cycles run until no ClusterQueue had a head left to try."""
    snapshot: Snapshot | None = None
    """The quota tree the run worked on; each ClusterQueue's ``workloads`` are those that
    hold quota after it (admitted before, or by this run), with their usage."""
    workloads: list[WorkloadInfo] = field(default_factory=list)
    """Every Workload the run looked at (finished ones are left out), decoded."""
    admissible: dict[tuple[str, str], int] | None = None
    """Workloads that may still be admitted (no quota held, active, not admitted by this
    run) per LocalQueue (namespace, name), when a queue manager counted them; else the
    queue counters count them over ``workloads``."""

    def decisions(self) -> dict[str, Any]:
        return {
            "admitted": {
                key: {
                    "clusterQueue": a.cluster_queue,
                    "podSets": {
                        name: {"count": ps.count, "flavors": dict(sorted(ps.flavors.items()))}
                        for name, ps in sorted(a.podsets.items())
                    },
                }
                for key, a in sorted(self.admitted.items())
            },
            "pending": sorted(self.pending),
            "preempted": sorted(self.preempted),
        }
