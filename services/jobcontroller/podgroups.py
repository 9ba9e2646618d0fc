"""PodGroups for plain pods, as Volcano's podgroup controller creates them.

The gang scheduler only schedules pods that belong to a PodGroup. A pod addressed to it
(``spec.schedulerName`` in the configured names) that carries no ``scheduling.k8s.io/group-name``
annotation gets a PodGroup of one: named ``podgroup-<uid of its controller owner>`` (or of the
pod itself when it has none), so all pods of one workload (a batch/v1 Job, a ReplicaSet) share it.
The pod is then annotated with the group's name.

``reconcile_pod`` is the whole sync of a pod outside any job sync, as ``Actions`` like a job's:
release a tracking finalizer no Job will remove (``batchjob.orphans``), create the PodGroup
unless it exists, then (once it exists) annotate the pod.
"""

from __future__ import annotations

from collections.abc import Collection

from services.jobcontroller.batchjob import orphans
from services.jobcontroller.core import BATCH_CONTROLLER_NAME, Actions, Patch
from shared.kube.keys import key_of, namespaced_key
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES, scheduler_name
from shared.models import Job, Json, Pod, to_dict
from shared.models.volcano import GROUP_NAME_ANNOTATION, QUEUE_NAME_ANNOTATION
from shared.resources import spec_requests

PODGROUP_PREFIX = "podgroup-"
# Scheduling hints Volcano copies from the pod onto its PodGroup.
_PROPAGATED_ANNOTATIONS = (
    "volcano.sh/preemptable",
    "volcano.sh/revocable-zone",
    "volcano.sh/jdb-min-available",
    "volcano.sh/jdb-max-unavailable",
)


def needs_podgroup(pod: Pod, scheduler_names: Collection[str]) -> bool:
    """A live pod for Shoal's scheduler that no PodGroup claims yet (architecture §4)."""
    meta = pod.metadata
    return (
        scheduler_name(pod.spec.schedulerName) in scheduler_names
        and not meta.annotations.get(GROUP_NAME_ANNOTATION)
        and meta.deletionTimestamp is None
        and pod.status.phase not in ("Succeeded", "Failed")
    )


def reconcile_pod(
    pod: Pod,
    *,
    job: Job | None,
    podgroup_exists: bool,
    scheduler_names: Collection[str] = SHOAL_SCHEDULER_NAMES,
    batch_managed_by: str = BATCH_CONTROLLER_NAME,
) -> Actions:
    """One sync of a pod outside any job sync. ``job``: the cached batch/v1 Job its controller
    reference names (None when none is cached); ``podgroup_exists``: whether the cache holds
    the PodGroup ``podgroup_key(pod)``."""
    actions = Actions()
    release = orphans.release(pod, job, batch_managed_by)
    if release is not None:
        actions.patch.append(release)
    if not needs_podgroup(pod, scheduler_names):
        return actions
    name = podgroup_name(pod)
    if not podgroup_exists:
        actions.create.append(_podgroup(pod, name))
    annotate = {"metadata": {"annotations": {GROUP_NAME_ANNOTATION: name}}}
    actions.patch_after_create.append(Patch("Pod", key_of(pod), annotate))
    return actions


def podgroup_key(pod: Pod) -> str:
    return namespaced_key(pod.metadata.namespace, podgroup_name(pod))


def podgroup_name(pod: Pod) -> str:
    ref = pod.metadata.controller_ref()
    return PODGROUP_PREFIX + (ref.uid if ref is not None else pod.metadata.uid)


def _owner(pod: Pod) -> Json:
    ref = pod.metadata.controller_ref()
    if ref is not None:
        return to_dict(ref)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": pod.metadata.name,
        "uid": pod.metadata.uid,
        "controller": True,
    }


def _podgroup(pod: Pod, name: str) -> Json:
    annotations = {
        key: pod.metadata.annotations[key]
        for key in _PROPAGATED_ANNOTATIONS
        if key in pod.metadata.annotations
    }
    spec: Json = {
        "minMember": 1,
        "queue": pod.metadata.annotations.get(QUEUE_NAME_ANNOTATION) or "default",
        "minResources": spec_requests(pod.spec).to_list(),
    }
    if pod.spec.priorityClassName:
        spec["priorityClassName"] = pod.spec.priorityClassName
    metadata: Json = {
        "name": name,
        "namespace": pod.metadata.namespace or "default",
        "ownerReferences": [_owner(pod)],
    }
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": "Pending"},
    }
