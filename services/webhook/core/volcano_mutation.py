"""Volcano's mutating webhooks: ``mutatejob.volcano.sh`` (pkg/webhooks/admission/jobs/mutate),
``mutatequeue.volcano.sh`` (queues/mutate) and ``mutatepodgroup.volcano.sh`` (podgroups/mutate),
all on CREATE only.

Each mutates the object it is given in place, field by field as upstream's ``createPatch``
builds its operations; the review turns the result into a JSON Patch.
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.queues import ClusterView

Obj = dict[str, Any]

DEFAULT_QUEUE = "default"
DEFAULT_MAX_RETRY = 3
DEFAULT_TASK_SPEC = "default"  # v1alpha1.DefaultTaskSpec: a task without a name is default<i>
DEFAULT_SCHEDULER_NAME = "volcano"  # GenerateSchedulerName with the default --scheduler-name
HIERARCHY = "volcano.sh/hierarchy"
HIERARCHY_WEIGHTS = "volcano.sh/hierarchy-weights"
QUEUE_NAME_ANNOTATION = "scheduling.volcano.sh/queue-name"
# Plugins that need the svc plugin (tensorflow, mpi, pytorch, ray) and the one that also needs ssh.
_NEED_SVC = ("tensorflow", "mpi", "pytorch", "ray")


def _task_min_available(task: Obj) -> int:
    partition = task.get("partitionPolicy") or {}
    # minPartitions unset (0) would make minAvailable 0 and drop the gang: use replicas then.
    if partition and int(partition.get("minPartitions") or 0) > 0:
        return int(partition["minPartitions"]) * int(partition.get("partitionSize") or 0)
    return int(task.get("replicas") or 0)


def _mutate_tasks(tasks: list[Obj]) -> None:
    """``mutateSpec``: task names, host-network DNS policy, minAvailable, maxRetry."""
    for index, task in enumerate(tasks):
        if not task.get("name"):
            task["name"] = f"{DEFAULT_TASK_SPEC}{index}"
        pod_spec = (task.get("template") or {}).get("spec")
        if (
            isinstance(pod_spec, dict)
            and pod_spec.get("hostNetwork")
            and not pod_spec.get("dnsPolicy")
        ):
            pod_spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        if task.get("minAvailable") is None:
            task["minAvailable"] = _task_min_available(task)
        if not task.get("maxRetry"):
            task["maxRetry"] = DEFAULT_MAX_RETRY


def _default_plugins(plugins: dict[str, Any]) -> None:
    """``patchDefaultPlugins``: the svc plugin under tensorflow/mpi/pytorch/ray, ssh under mpi."""
    if any(name in plugins for name in _NEED_SVC):
        plugins.setdefault("svc", [])
    if "mpi" in plugins:
        plugins.setdefault("ssh", [])


def mutate_job(job: Obj, cluster: ClusterView) -> None:
    """``createPatch`` of a batch.volcano.sh Job."""
    spec = job.setdefault("spec", {})
    if not spec.get("queue"):
        spec["queue"] = DEFAULT_QUEUE
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    if not spec.get("maxRetry"):
        spec["maxRetry"] = DEFAULT_MAX_RETRY
    tasks = spec.get("tasks")
    if isinstance(tasks, list):
        _mutate_tasks(tasks)
    if not spec.get("minAvailable"):
        spec["minAvailable"] = sum(
            int(t["minAvailable"] if t.get("minAvailable") is not None else t.get("replicas") or 0)
            for t in tasks or []
        )
    if isinstance(spec.get("plugins"), dict):
        _default_plugins(spec["plugins"])


def mutate_queue(queue: Obj, cluster: ClusterView) -> None:
    """``createQueuePatch``: a hierarchy not under ``root`` is put under it; reclaimable true and
    weight 1 when unset."""
    annotations = (queue.get("metadata") or {}).get("annotations") or {}
    hierarchy = annotations.get(HIERARCHY, "")
    weights = annotations.get(HIERARCHY_WEIGHTS, "")
    if hierarchy and weights and not hierarchy.startswith("root"):
        annotations[HIERARCHY] = f"root/{hierarchy}"
        annotations[HIERARCHY_WEIGHTS] = f"1/{weights}"
    spec = queue.setdefault("spec", {})
    if spec.get("reclaimable") is None:
        spec["reclaimable"] = True
    if not spec.get("weight"):
        spec["weight"] = 1


def mutate_podgroup(podgroup: Obj, cluster: ClusterView) -> None:
    """``createPodGroupPatch``: a PodGroup of the ``default`` queue goes to its namespace's queue
    (the ``scheduling.volcano.sh/queue-name`` annotation) when the namespace names one."""
    spec = podgroup.get("spec") or {}
    if spec.get("queue") != DEFAULT_QUEUE:
        return
    namespace = (podgroup.get("metadata") or {}).get("namespace") or ""
    annotations = cluster.namespace_annotations(namespace)
    if annotations is not None and QUEUE_NAME_ANNOTATION in annotations:
        spec["queue"] = annotations[QUEUE_NAME_ANNOTATION]
