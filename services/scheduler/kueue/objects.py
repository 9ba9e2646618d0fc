"""The Kueue objects one admission run looks at, and the status updates it decides."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.models import (
    ClusterQueue,
    Cohort,
    Json,
    LocalQueue,
    ResourceFlavor,
    Workload,
)


@dataclass(frozen=True)
class StatusUpdate:
    """The whole new ``status`` of one object, and the resourceVersion it was computed from."""

    kind: str
    key: str
    uid: str
    resource_version: str
    status: Json


def status_update(
    obj: Workload | ClusterQueue | LocalQueue | Cohort, kind: str, key: str, status: Json
) -> StatusUpdate:
    return StatusUpdate(
        kind=kind,
        key=key,
        uid=obj.metadata.uid,
        resource_version=obj.metadata.resourceVersion,
        status=status,
    )


@dataclass
class KueueObjects:
    """The Kueue objects one admission run looked at."""

    workloads: list[Workload] = field(default_factory=list)
    cluster_queues: list[ClusterQueue] = field(default_factory=list)
    local_queues: list[LocalQueue] = field(default_factory=list)
    flavors: list[ResourceFlavor] = field(default_factory=list)
    cohorts: list[Cohort] = field(default_factory=list)

    def cluster_queue_of(self, wl: Workload) -> str:
        """The ClusterQueue a workload is admitted to, else the one its LocalQueue points to."""
        if wl.status.admission is not None:
            return wl.status.admission.clusterQueue
        for lq in self.local_queues:
            if lq.metadata.name == wl.spec.queueName and (lq.metadata.namespace or "default") == (
                wl.metadata.namespace or "default"
            ):
                return lq.spec.clusterQueue
        return ""
