"""The job kinds Kueue's integration manages, and how it reads and changes each (``GenericJob``).

batch/v1 Job and PyTorchJob have a ``suspend`` switch: Kueue holds them suspended and starts
them by patching the switch and the pod templates. A Volcano Job has none, and Volcano's
webhook refuses changes to its tasks' templates; Kueue has no Volcano integration to follow,
so Shoal holds it *gated*: the job controller does not run the Volcano Job's own sync (no
PodGroup, no pod) until its Workload is admitted, adds the flavors' node labels and
tolerations to the pods it then creates, and deletes the job's pods when the Workload is
evicted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from shared.models import Job, Json, PyTorchJob, VolcanoJob

MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"

PodSetTemplate = tuple[str, int, Json, int | None]
"""(pod set name, count, pod template, minCount) in Kueue's pod set order."""


@dataclass(frozen=True, slots=True)
class JobShape:
    """How Kueue's integration of one job kind reads and changes it."""

    group: str
    templates: Callable[[Any], list[PodSetTemplate]]
    finished: Callable[[Any], tuple[str, bool, bool]]
    """(message, success, finished) as ``GenericJob.Finished``."""
    suspended: Callable[[Any], bool]
    suspend_patch: Callable[[bool], Json]
    template_patch: Callable[[Any, list[Json]], Json]
    """The merge patch that sets each pod set's template spec (nodeSelector, tolerations)."""
    priority_class: Callable[[Any], str] = lambda job: ""
    """The job's own PriorityClass name, when its pod templates name none."""
    gated: bool = False
    """No suspend switch: held by not syncing the job (see the module doc)."""


def _batch_templates(job: Job) -> list[PodSetTemplate]:
    count = job.spec.parallelism if job.spec.parallelism is not None else 1
    if job.spec.completions is not None and job.spec.completions < count:
        count = job.spec.completions
    minimum = job.metadata.annotations.get(MIN_PARALLELISM_ANNOTATION, "")
    return [("main", count, job.spec.template, int(minimum) if minimum.isdigit() else None)]


def _batch_finished(job: Job) -> tuple[str, bool, bool]:
    for c in job.status.conditions:
        if c.type in ("Complete", "Failed") and c.status == "True":
            return c.message or "", c.type != "Failed", True
    return "", True, False


def _batch_template_patch(job: Job, specs: list[Json]) -> Json:
    return {"spec": {"template": {"spec": specs[0]}}}


BATCH_JOB = JobShape(
    group="batch",
    templates=_batch_templates,
    finished=_batch_finished,
    suspended=lambda job: bool(job.spec.suspend),
    suspend_patch=lambda suspend: {"spec": {"suspend": suspend}},
    template_patch=_batch_template_patch,
)

_PYTORCH_ORDER = ("Master", "Worker")


def _replica_types(job: PyTorchJob) -> list[str]:
    types = list(job.spec.pytorchReplicaSpecs)
    return sorted(types, key=lambda t: (_PYTORCH_ORDER.index(t) if t in _PYTORCH_ORDER else 2, t))


def _pytorch_templates(job: PyTorchJob) -> list[PodSetTemplate]:
    found: list[PodSetTemplate] = []
    for kind in _replica_types(job):
        replica = job.spec.pytorchReplicaSpecs[kind]
        count = replica.replicas if replica.replicas is not None else 1
        found.append((kind.lower(), count, replica.template, None))
    return found


def _pytorch_finished(job: PyTorchJob) -> tuple[str, bool, bool]:
    for c in job.status.conditions:
        if c.type in ("Succeeded", "Failed") and c.status == "True":
            return c.message or "", c.type != "Failed", True
    return "", True, False


def _pytorch_template_patch(job: PyTorchJob, specs: list[Json]) -> Json:
    return {
        "spec": {
            "pytorchReplicaSpecs": {
                kind: {"template": {"spec": spec}}
                for kind, spec in zip(_replica_types(job), specs, strict=True)
            }
        }
    }


PYTORCH_JOB = JobShape(
    group="kubeflow.org",
    templates=_pytorch_templates,
    finished=_pytorch_finished,
    suspended=lambda job: bool(job.spec.runPolicy.suspend),
    suspend_patch=lambda suspend: {"spec": {"runPolicy": {"suspend": suspend}}},
    template_patch=_pytorch_template_patch,
)

# Volcano's finished phases (``pkg/controllers/job/state``): only Completed is a success.
_VOLCANO_FINISHED = {"Completed": True, "Failed": False, "Aborted": False, "Terminated": False}


def _volcano_templates(job: VolcanoJob) -> list[PodSetTemplate]:
    return [(task.name, task.replicas, task.template, None) for task in job.spec.tasks]


def _volcano_finished(job: VolcanoJob) -> tuple[str, bool, bool]:
    state = job.status.state
    success = _VOLCANO_FINISHED.get(state.phase)
    if success is None:
        return "", True, False
    return state.message or f"Job {state.phase}", success, True


def _no_patch(*_: Any) -> Json:
    return {}


VOLCANO_JOB = JobShape(
    group="batch.volcano.sh",
    templates=_volcano_templates,
    finished=_volcano_finished,
    suspended=lambda job: True,
    suspend_patch=_no_patch,
    template_patch=_no_patch,
    priority_class=lambda job: str(job.spec.priorityClassName or ""),
    gated=True,
)

SHAPES: Mapping[tuple[str, str], JobShape] = {
    ("batch/v1", "Job"): BATCH_JOB,
    ("kubeflow.org/v1", "PyTorchJob"): PYTORCH_JOB,
    ("batch.volcano.sh/v1alpha1", "Job"): VOLCANO_JOB,
}
