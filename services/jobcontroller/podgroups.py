"""PodGroups for plain pods, as Volcano's podgroup controller creates them.

The gang scheduler only schedules pods that belong to a PodGroup. A pod addressed to it
(``spec.schedulerName`` in the configured names) that carries no ``scheduling.k8s.io/group-name``
annotation gets a PodGroup of one: named ``podgroup-<uid of its controller owner>`` (or of the
pod itself when it has none), so all pods of one workload (a batch/v1 Job, a ReplicaSet) share it.
The pod is then annotated with the group's name.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES, scheduler_name
from shared.models import Json, Pod, to_dict
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


@dataclass(frozen=True, slots=True)
class PodGroupForPod:
    """The PodGroup to create (if it does not exist yet) and the patch that joins the pod to it."""

    podgroup: Json
    pod_patch: Json


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


def podgroup_for_pod(
    pod: Pod, *, scheduler_names: Collection[str] = SHOAL_SCHEDULER_NAMES
) -> PodGroupForPod | None:
    """The PodGroup a plain pod needs, or None if it has one or is not for this scheduler."""
    if scheduler_name(pod.spec.schedulerName) not in scheduler_names:
        return None
    if pod.metadata.annotations.get(GROUP_NAME_ANNOTATION):
        return None
    if pod.metadata.deletionTimestamp is not None or pod.status.phase in ("Succeeded", "Failed"):
        return None
    name = podgroup_name(pod)
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
    podgroup: Json = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": "Pending"},
    }
    patch = {"metadata": {"annotations": {GROUP_NAME_ANNOTATION: name}}}
    return PodGroupForPod(podgroup=podgroup, pod_patch=patch)
