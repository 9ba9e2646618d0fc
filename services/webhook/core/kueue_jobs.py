"""Kueue's job webhooks' ``Default`` (pkg/controller/jobs/job/job_webhook.go and the kubeflow
jobs' webhooks, over pkg/controller/jobframework/defaults.go), on CREATE.

``ApplyDefaultLocalQueue``: a job created without a queue name in a managed namespace that has a
LocalQueue named ``default`` is labelled for it. ``ApplyDefaultForSuspend``: a job of a Kueue
queue is created suspended, so no pod exists before its Workload is admitted.
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.queues import ClusterView

Obj = dict[str, Any]
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
# The integrations on by default that Shoal serves (and the Volcano Job, which Shoal integrates
# as Kueue would a kind of its own), and the Configuration's default
# ``managedJobsNamespaceSelector`` (kubernetes.io/metadata.name NotIn these).
KUEUE_JOB_KINDS = frozenset(
    {
        ("batch/v1", "Job"),
        ("kubeflow.org/v1", "PyTorchJob"),
        ("batch.volcano.sh/v1alpha1", "Job"),
    }
)
KUEUE_UNMANAGED_NAMESPACES = frozenset({"kube-system", "kueue-system"})
KUEUE_DEFAULT_LOCAL_QUEUE = "default"  # constants.DefaultLocalQueueName


def queue_name(obj: Obj) -> str:
    return str(((obj.get("metadata") or {}).get("labels") or {}).get(KUEUE_QUEUE_LABEL) or "")


def default_local_queue(obj: Obj, cluster: ClusterView) -> None:
    """``ApplyDefaultLocalQueue``; not for a job whose controller Kueue manages."""
    if (obj.get("apiVersion"), obj.get("kind")) not in KUEUE_JOB_KINDS:
        return
    meta = obj.setdefault("metadata", {})
    namespace = str(meta.get("namespace") or "")
    if queue_name(obj) or namespace in KUEUE_UNMANAGED_NAMESPACES:
        return
    owners = meta.get("ownerReferences") or []
    if any(
        o.get("controller") and (o.get("apiVersion"), o.get("kind")) in KUEUE_JOB_KINDS
        for o in owners
        if isinstance(o, dict)
    ):
        return
    if cluster.default_local_queue_exists(namespace):
        meta["labels"] = {
            **(meta.get("labels") or {}),
            KUEUE_QUEUE_LABEL: KUEUE_DEFAULT_LOCAL_QUEUE,
        }


def default_batch_job(job: Obj, cluster: ClusterView) -> None:
    """The batch/v1 Job webhook's ``Default``."""
    default_local_queue(job, cluster)
    if queue_name(job):
        job.setdefault("spec", {})["suspend"] = True


def default_pytorchjob(job: Obj, cluster: ClusterView) -> None:
    """The PyTorchJob webhook's ``Default`` (suspend is ``runPolicy.suspend``)."""
    default_local_queue(job, cluster)
    if queue_name(job):
        job.setdefault("spec", {}).setdefault("runPolicy", {})["suspend"] = True


def default_volcano_job(job: Obj, cluster: ClusterView) -> None:
    """Shoal's integration of the Volcano Job: the default LocalQueue (a Volcano Job has no
    ``suspend``; Shoal's job controller holds it while its Workload waits)."""
    default_local_queue(job, cluster)
