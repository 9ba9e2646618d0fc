"""What a job sees when it syncs: the one builder of ``Observed``.

The service's cache and ``shoal simulate``'s snapshot both index objects by the job that
controls them and keep the ownerless ones of each namespace; ``observe`` asks either for the
job's pods, PodGroups, Services, Commands and Kueue Workloads (a CronJob: its Jobs), the
ResourceFlavors and PriorityClasses, and the ownerless pods (adoption candidates), PodGroups and
Services of its namespace.
"""

from __future__ import annotations

from typing import Any, Protocol

from services.jobcontroller.core import BATCH_CONTROLLER_NAME, Observed
from services.jobcontroller.workkeys import (
    BATCH_JOB,
    COMMAND,
    POD,
    PODGROUP,
    PRIORITY_CLASS,
    RESOURCE_FLAVOR,
    SERVICE,
    WORKLOAD,
    WorkKey,
)
from shared.kube.keys import split_key
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES


class ObjectIndex(Protocol):
    """Objects by controlling job, and the ownerless ones per namespace."""

    def owned(self, job: WorkKey, type_key: str) -> list[Any]: ...

    def loose(self, type_key: str, namespace: str) -> list[Any]: ...

    def cluster_scoped(self, type_key: str) -> list[Any]:
        """Every object of a cluster-scoped ``type_key`` (ResourceFlavors, PriorityClasses)."""
        ...


def observe(
    index: ObjectIndex,
    job: WorkKey,
    *,
    expectations_satisfied: bool = True,
    finalizers_removing: frozenset[str] = frozenset(),
    gang_scheduler_names: frozenset[str] = frozenset(SHOAL_SCHEDULER_NAMES),
    batch_managed_by: str = BATCH_CONTROLLER_NAME,
) -> Observed:
    namespace = split_key(job.key)[0]
    return Observed(
        pods=index.owned(job, POD),
        podgroups=index.owned(job, PODGROUP) + index.loose(PODGROUP, namespace),
        services=index.owned(job, SERVICE) + index.loose(SERVICE, namespace),
        commands=index.owned(job, COMMAND),
        expectations_satisfied=expectations_satisfied,
        orphans=index.loose(POD, namespace),
        finalizers_removing=finalizers_removing,
        workloads=index.owned(job, WORKLOAD),
        flavors={f.metadata.name: f for f in index.cluster_scoped(RESOURCE_FLAVOR)},
        priority_classes={c.metadata.name: c for c in index.cluster_scoped(PRIORITY_CLASS)},
        gang_scheduler_names=gang_scheduler_names,
        batch_managed_by=batch_managed_by,
        jobs=index.owned(job, BATCH_JOB),
    )
