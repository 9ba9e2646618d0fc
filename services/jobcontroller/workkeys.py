"""Work keys and type keys of the job controller: what a worker syncs, and the kinds a job owns.

A type key is ``apiVersion/Kind`` as the cache indexes objects; a work key names a job (or a
plain pod) to sync; expectations are kept per (job, owned kind). No I/O.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from shared.kube.keys import namespaced_key

POD = "v1/Pod"
PODGROUP = "scheduling.volcano.sh/v1beta1/PodGroup"
SERVICE = "v1/Service"
COMMAND = "bus.volcano.sh/v1alpha1/Command"
QUEUE = "scheduling.volcano.sh/v1beta1/Queue"
BATCH_JOB = "batch/v1/Job"
CRON_JOB = "batch/v1/CronJob"
VOLCANO_JOB = "batch.volcano.sh/v1alpha1/Job"
PYTORCH_JOB = "kubeflow.org/v1/PyTorchJob"
WORKLOAD = "kueue.x-k8s.io/v1beta2/Workload"
RESOURCE_FLAVOR = "kueue.x-k8s.io/v1beta2/ResourceFlavor"
PRIORITY_CLASS = "scheduling.k8s.io/v1/PriorityClass"
# Kueue's pod integration: a group of plain pods (``kueue.x-k8s.io/pod-group-name``) is synced
# as one, under this type key and ``namespace/group``.
KUEUE_POD_GROUP = "kueue.x-k8s.io/pod-group"
JOB_TYPES = frozenset({BATCH_JOB, CRON_JOB, VOLCANO_JOB, PYTORCH_JOB})
# Kinds a job owns and creates; expectations are kept per (job, kind).
OWNED_TYPES = (POD, PODGROUP, SERVICE, WORKLOAD)
_KIND_OF = {POD: "Pod", PODGROUP: "PodGroup", SERVICE: "Service", WORKLOAD: "Workload"}


def kind_of(type_key: str) -> str:
    """The kind of an owned type key (``v1/Pod`` → ``Pod``)."""
    return _KIND_OF.get(type_key, type_key.rpartition("/")[2])


class WorkKey(NamedTuple):
    """What a worker syncs: a job (``type_key`` is one of JOB_TYPES), a plain pod (POD) or a
    Kueue pod group (KUEUE_POD_GROUP)."""

    type_key: str
    key: str  # namespace/name

    def __str__(self) -> str:
        return f"{self.type_key}:{self.key}"


def work_key(job: Any) -> WorkKey:
    """The work key of a job object."""
    meta = job.metadata
    return WorkKey(f"{job.apiVersion}/{job.kind}", namespaced_key(meta.namespace, meta.name))


def expectation_key(job: WorkKey, type_key: str) -> str:
    return f"{job}|{_KIND_OF.get(type_key, type_key)}"
