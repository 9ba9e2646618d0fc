"""The objects a Volcano Job owns: its pods ``<job>-<task>-<index>`` and its PodGroup.

Pods carry the annotations and labels Volcano's ``createJobPod`` sets, which the scheduler and the
job controller itself read back (task, index, version, retry count, PodGroup). The PodGroup's
``minResources`` are the requests of the first ``minAvailable`` pods, counted from each task's
``minAvailable`` first and then topped up from the remaining replicas, in task order (Volcano
orders tasks by PriorityClass value; a pure core has no PriorityClass lister, so ties keep order).
"""

from __future__ import annotations

import copy

import msgspec

from services.jobcontroller.volcanojob.plugins import Plugin
from services.jobcontroller.volcanojob.spec import JobView, Task
from shared.models import Json, PodSpec, convert
from shared.models.volcano import (
    GROUP_NAME_ANNOTATION,
    JOB_NAME_KEY,
    JOB_NAMESPACE_KEY,
    JOB_RETRY_COUNT_KEY,
    JOB_VERSION_KEY,
    PARTITION_ID_KEY,
    QUEUE_NAME_KEY,
    TASK_INDEX_KEY,
    TASK_SPEC_KEY,
    SubGroupPolicySpec,
)
from shared.resources import EMPTY, Resources, spec_requests

TEMPLATE_UID_KEY = "volcano.sh/template-uid"
# Job annotations/labels Volcano copies onto every pod, for the scheduler's benefit.
_INHERITED_ANNOTATIONS = (
    "volcano.sh/preemptable",
    "volcano.sh/cooldown-time",
    "volcano.sh/revocable-zone",
)
_INHERITED_LABELS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time")
_JDB_KEYS = ("volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable")


def pod_name(job: JobView, task: Task, index: int) -> str:
    return f"{job.name}-{task.name}-{index}"


def build_pod(
    job: JobView, task: Task, index: int, *, version: int, retry_count: int, plugins: list[Plugin]
) -> Json:
    """The full pod manifest for replica ``index`` of ``task``."""
    template = copy.deepcopy(task.template)
    meta = template.get("metadata") or {}
    spec: Json = template.get("spec") or {}
    spec.setdefault("containers", [])
    if not spec.get("schedulerName"):
        spec["schedulerName"] = job.scheduler_name
    if not spec.get("priorityClassName") and job.priority_class_name:
        spec["priorityClassName"] = job.priority_class_name
    annotations: dict[str, str] = dict(meta.get("annotations") or {})
    labels: dict[str, str] = dict(meta.get("labels") or {})
    annotations.update(
        {
            TASK_INDEX_KEY: str(index),
            TASK_SPEC_KEY: task.name,
            GROUP_NAME_ANNOTATION: job.podgroup_name,
            JOB_NAME_KEY: job.name,
            QUEUE_NAME_KEY: job.queue,
            JOB_VERSION_KEY: str(version),
            TEMPLATE_UID_KEY: f"{job.name}-{task.name}",
            JOB_RETRY_COUNT_KEY: str(retry_count),
        }
    )
    for key in _INHERITED_ANNOTATIONS:
        if key in job.annotations:
            annotations[key] = job.annotations[key]
    jdb = next((key for key in _JDB_KEYS if key in job.annotations), None)
    if jdb is not None:
        annotations[jdb] = job.annotations[jdb]
    labels.update(
        {
            TASK_INDEX_KEY: str(index),
            JOB_NAME_KEY: job.name,
            TASK_SPEC_KEY: task.name,
            JOB_NAMESPACE_KEY: job.namespace,
            QUEUE_NAME_KEY: job.queue,
        }
    )
    for key in _INHERITED_LABELS:
        if key in job.labels:
            labels[key] = job.labels[key]
    if task.partition_size is not None:
        size = task.partition_size
        labels[PARTITION_ID_KEY] = str(index // size if size > 0 else 0)
    pod: Json = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": pod_name(job, task, index),
            "namespace": job.namespace,
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": [job.owner_reference()],
        },
        "spec": spec,
    }
    for plugin in plugins:
        plugin.on_pod_create(job, task, index, pod)
    return pod


# A task template's pod requests by the template's pod spec as JSON: every sync of a job works
# out its PodGroup's minResources, and reading a template into a PodSpec was most of that
# (a few templates serve many jobs). Only specs that read cleanly are kept; kept is bounded.
_REQUESTS_KEPT = 1024
_requests_by_spec: dict[bytes, Resources] = {}


def _task_requests(task: Task) -> Resources:
    spec = task.pod_spec()
    key = msgspec.json.encode(spec)
    found = _requests_by_spec.get(key)
    if found is None:
        found = spec_requests(convert(spec, PodSpec, document=f"task {task.name}"))
        if len(_requests_by_spec) >= _REQUESTS_KEPT:
            _requests_by_spec.clear()
        _requests_by_spec[key] = found
    return found


def min_resources(job: JobView) -> Resources:
    """Requests of the first ``minAvailable`` pods, as Volcano's ``CalcPGMinResources``."""
    total, counted = EMPTY, 0
    for task in job.tasks:
        take = min(task.min_available, job.min_available - counted)
        if take <= 0:
            break
        total = total + _task_requests(task).scale(take)
        counted += take
    left = job.min_available - counted
    for task in job.tasks:
        if left <= 0:
            break
        spare = task.replicas - task.min_available
        take = min(spare, left)
        if take > 0:
            total = total + _task_requests(task).scale(take)
            left -= take
    return total


def podgroup_spec(job: JobView) -> Json:
    spec: Json = {
        "minMember": job.min_available,
        "minTaskMember": {task.name: task.min_task_member for task in job.tasks},
        "queue": job.queue,
        "minResources": min_resources(job).to_list(),
    }
    if job.priority_class_name:
        spec["priorityClassName"] = job.priority_class_name
    return spec


def build_podgroup(job: JobView) -> Json:
    metadata: Json = {
        "name": job.podgroup_name,
        "namespace": job.namespace,
        "ownerReferences": [job.owner_reference()],
    }
    if job.labels:
        metadata["labels"] = dict(job.labels)
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": {**podgroup_spec(job), **network_topology(job), **sub_group_policy(job)},
    }


def network_topology(job: JobView) -> Json:
    """Set when the PodGroup is created only, as upstream (a later change is not patched)."""
    return {"networkTopology": job.network_topology} if job.network_topology else {}


def sub_group_policy(job: JobView) -> Json:
    """The tasks' partition policies as the PodGroup's ``subGroupPolicy`` (upstream
    ``setPgSubGroupPolicy``)."""
    policies = [task.sub_group_policy for task in job.tasks if task.sub_group_policy]
    return {"subGroupPolicy": policies} if policies else {}


def sub_group_policy_changed(job: JobView, have: list[SubGroupPolicySpec]) -> bool:
    """Upstream ``updatePgSubGroupPolicy``: a task lost its partition policy, or a task's
    policy differs from the PodGroup's of that name."""
    old = {policy.name: policy for policy in have}
    for task in job.tasks:
        if task.sub_group_policy is None:
            if task.name in old:
                return True
            continue
        if convert(task.sub_group_policy, SubGroupPolicySpec) != old.get(task.name):
            return True
    return False
