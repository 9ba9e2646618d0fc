"""Which pods belong to a Job: adopt matching orphans, release owned pods that stopped matching.

As ``PodControllerRefManager.ClaimPods`` does: a pod the Job controls counts while its labels
match the selector, else it is released (its owner reference removed); an orphan that matches
is adopted with a patch adding the controller reference and the tracking finalizer. A Job being
deleted neither adopts nor releases. A pod whose tracking-finalizer removal is in flight is
claimed as it will be once the patch lands (without the finalizer): an earlier sync counted it,
so no step of this one may count or release it again (Kubernetes skips ``expectedRmFinalizers``
the same way).
"""

from __future__ import annotations

import msgspec

from services.jobcontroller.batchjob import keys
from services.jobcontroller.batchjob.spec import JobView
from services.jobcontroller.core import Actions, Observed, Patch
from shared.kube.keys import key_of
from shared.models import Json, OwnerReference, Pod


def owner_reference(job: JobView) -> OwnerReference:
    return OwnerReference(
        apiVersion="batch/v1",
        kind="Job",
        name=job.name,
        uid=job.uid,
        controller=True,
        blockOwnerDeletion=True,
    )


def claim_pods(job: JobView, observed: Observed, actions: Actions) -> list[Pod]:
    """The Job's pods for this sync; adoption/release patches are appended to ``actions``."""
    claimed: list[Pod] = []
    for pod in observed.pods:
        ref = pod.metadata.controller_ref()
        if ref is None or ref.uid != job.uid:
            continue
        if job.selector.matches(pod.metadata.labels):
            removing = pod.metadata.uid in observed.finalizers_removing
            claimed.append(_without_finalizer(pod) if removing else pod)
        elif pod.metadata.deletionTimestamp is None and not job.deleting:
            actions.patch.append(Patch("Pod", key_of(pod), _release_patch(job, pod), "strategic"))
    if job.deleting:
        return claimed
    for pod in observed.orphans:
        if not _adoptable(job, pod):
            continue
        actions.patch.append(Patch("Pod", key_of(pod), _adopt_patch(job, pod), "strategic"))
        claimed.append(_adopted(job, pod))
    return claimed


def _adoptable(job: JobView, pod: Pod) -> bool:
    meta = pod.metadata
    return (
        meta.controller_ref() is None
        and meta.deletionTimestamp is None
        and (meta.namespace or "default") == job.namespace
        and job.selector.matches(meta.labels)
    )


def _adopt_patch(job: JobView, pod: Pod) -> Json:
    ref: Json = msgspec.to_builtins(owner_reference(job))
    return {
        "metadata": {
            "ownerReferences": [ref],
            "uid": pod.metadata.uid,
            "finalizers": [keys.TRACKING_FINALIZER],
        }
    }


def _release_patch(job: JobView, pod: Pod) -> Json:
    return {
        "metadata": {
            "ownerReferences": [{"$patch": "delete", "uid": job.uid}],
            "uid": pod.metadata.uid,
        }
    }


def _without_finalizer(pod: Pod) -> Pod:
    finalizers = [f for f in pod.metadata.finalizers if f != keys.TRACKING_FINALIZER]
    meta = msgspec.structs.replace(pod.metadata, finalizers=finalizers)
    return msgspec.structs.replace(pod, metadata=meta)


def _adopted(job: JobView, pod: Pod) -> Pod:
    """The pod as it will be once the adoption patch is applied."""
    meta = pod.metadata
    finalizers = list(meta.finalizers)
    if keys.TRACKING_FINALIZER not in finalizers:
        finalizers.append(keys.TRACKING_FINALIZER)
    owners = [*meta.ownerReferences, owner_reference(job)]
    new_meta = msgspec.structs.replace(meta, ownerReferences=owners, finalizers=finalizers)
    return msgspec.structs.replace(pod, metadata=new_meta)
