"""Tracking finalizers of pods no running Job will count (``syncOrphanPod`` in Kubernetes).

A pod keeps ``batch.kubernetes.io/job-tracking`` until its Job counted it. When there is no Job
left to do that — the pod has no controller, its Job is gone (or is another Job of the same
name), or its Job already finished — the finalizer is removed so the pod can be deleted.
A pod controlled by something other than a batch/v1 Job, or by a Job managed by another
controller (``spec.managedBy``), is left alone.
"""

from __future__ import annotations

from services.jobcontroller.batchjob import spec
from services.jobcontroller.batchjob.keys import CONTROLLER_NAME
from services.jobcontroller.batchjob.manage import finalizer_removal
from services.jobcontroller.batchjob.pods import has_finalizer
from services.jobcontroller.batchjob.sync import is_finished
from services.jobcontroller.core import Patch
from shared.kube.keys import key_of, namespaced_key
from shared.models import Job, Pod


def controller_job_key(pod: Pod) -> str | None:
    """``namespace/name`` of the batch/v1 Job the pod names as its controller, if any."""
    ref = pod.metadata.controller_ref()
    if ref is None or ref.apiVersion != "batch/v1" or ref.kind != "Job":
        return None
    return namespaced_key(pod.metadata.namespace, ref.name)


def needs_release(pod: Pod, job: Job | None, claim: str = CONTROLLER_NAME) -> bool:
    """Whether the pod's tracking finalizer must go; ``job``: the cached Job its controller
    reference names (None when there is none)."""
    if not has_finalizer(pod):
        return False
    ref = pod.metadata.controller_ref()
    if ref is not None and (ref.apiVersion, ref.kind) != ("batch/v1", "Job"):
        return False
    if job is None or ref is None or job.metadata.uid != ref.uid:
        # Beside Kubernetes' own Job controller (another claim), a pod whose Job is not known
        # here may be that controller's, seen before its Job: its finalizer is that
        # controller's to remove (it releases every orphan, Shoal's Jobs' included).
        return claim == CONTROLLER_NAME
    return not spec.managed_externally(job, claim) and is_finished(job)


def release(pod: Pod, job: Job | None, claim: str = CONTROLLER_NAME) -> Patch | None:
    """The finalizer-removal patch for an orphaned pod, or None."""
    if not needs_release(pod, job, claim):
        return None
    return finalizer_removal(key_of(pod), pod)
