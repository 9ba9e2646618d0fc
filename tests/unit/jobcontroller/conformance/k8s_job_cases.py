"""Kubernetes' job controller test fixtures, rebuilt for Shoal's pure batch/v1 reconcile.

Upstream (``pkg/controller/job/job_controller_test.go``) builds a Job with ``newJob`` (name
``foobar`` in ``default``, selector and template labels ``foo: bar``, one container) and pods
with ``newPodList``/``setPodsStatuses``/``setPodsStatusesWithIndexes`` (controlled by the Job,
labelled ``foo: bar``, with the tracking finalizer, finished long ago), runs ``syncJob`` once
and reads the status it wrote and the pod control's calls. Here the same objects go through
``reconcile(job, Observed, now)``; creations, deletions and pod patches are the ``Actions``'
lists, the status is the one the reconcile returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.jobcontroller.batchjob import reconcile
from services.jobcontroller.core import Actions, Observed
from shared.kube.timefmt import format_rfc3339
from shared.models import Job, Pod, convert

NOW = 1_700_000_000.0
JOB_UID = "job-uid"
TRACKING = "batch.kubernetes.io/job-tracking"
INDEX = "batch.kubernetes.io/job-completion-index"
# ``testFinishedAt``: one second after the zero time, so that no back-off applies.
TEST_FINISHED_AT = "0001-01-01T00:00:01Z"
NO_INDEX = "-"  # upstream's ``noIndex``


def stamp(offset: float = 0.0) -> str:
    return format_rfc3339(NOW + offset)


def new_job(
    parallelism: int, completions: int, backoff_limit: int, completion_mode: str = ""
) -> dict[str, Any]:
    """``newJob``: -1 leaves parallelism/completions unset."""
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"foo": "bar"}},
        "template": {
            "metadata": {"labels": {"foo": "bar"}},
            "spec": {"containers": [{"name": "", "image": "foo/bar"}]},
        },
        "backoffLimit": backoff_limit,
    }
    if completion_mode:
        spec["completionMode"] = completion_mode
    if completions >= 0:
        spec["completions"] = completions
    if parallelism >= 0:
        spec["parallelism"] = parallelism
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "foobar", "namespace": "default", "uid": JOB_UID},
        "spec": spec,
        "status": {},
    }


@dataclass
class PodBuilder:
    """``newPod`` plus what the builders of the table add."""

    name: str
    phase: str
    index: str | None = None
    ready: bool = False
    terminating: bool = False
    finished: bool = True  # a terminated container state (newPodList sets it on every pod)
    finalizer: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def build(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "name": self.name,
            "namespace": "default",
            "uid": self.name,
            "labels": {"foo": "bar"},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": "foobar",
                    "uid": JOB_UID,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        }
        if self.finalizer:
            meta["finalizers"] = [TRACKING]
        spec: dict[str, Any] = {"containers": [{"name": "", "image": "foo/bar"}]}
        if self.index is not None and self.index != NO_INDEX:
            meta["annotations"] = {INDEX: self.index}
            spec["hostname"] = f"foobar-{self.index}"
        if self.terminating:
            meta["deletionTimestamp"] = stamp()
        status: dict[str, Any] = {"phase": self.phase}
        if self.finished:
            terminated = {"terminated": {"exitCode": 0, "finishedAt": TEST_FINISHED_AT}}
            status["containerStatuses"] = [{"name": "", "state": terminated}]
        if self.ready:
            status["conditions"] = [{"type": "Ready", "status": "True"}]
        if "uid" in self.extra:
            meta["uid"] = self.extra["uid"]
        if "annotations" in self.extra:
            meta.setdefault("annotations", {}).update(self.extra["annotations"])
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        pod["status"] = self.extra.get("status", status)
        return pod


def pod_statuses(
    pending: int = 0,
    active: int = 0,
    succeeded: int = 0,
    failed: int = 0,
    terminating: int = 0,
    ready: int = 0,
) -> list[PodBuilder]:
    """``setPodsStatuses``: the first ``ready`` running pods are Ready."""
    pods = [PodBuilder(f"pending-{i}", "Pending") for i in range(pending)]
    pods += [PodBuilder(f"running-{i}", "Running", ready=i < ready) for i in range(active)]
    pods += [PodBuilder(f"succeeded-{i}", "Succeeded") for i in range(succeeded)]
    pods += [PodBuilder(f"failed-{i}", "Failed") for i in range(failed)]
    pods += [
        PodBuilder(f"terminating-{i}", "Running", terminating=True) for i in range(terminating)
    ]
    return pods


def pods_with_indexes(statuses: list[tuple[str, str]]) -> list[PodBuilder]:
    """``setPodsStatusesWithIndexes``: only finished pods get a terminated container state."""
    return [
        PodBuilder(f"indexed-{i}", phase, index=index, finished=phase in ("Failed", "Succeeded"))
        for i, (index, phase) in enumerate(statuses)
    ]


def run(
    job: dict[str, Any], pods: list[PodBuilder], *, satisfied: bool = True, now: float = NOW
) -> Actions:
    observed = Observed(
        pods=[convert(p.build(), Pod) for p in pods], expectations_satisfied=satisfied
    )
    return reconcile(convert(job, Job), observed, now)


def cond_json(kind: str, status: str, reason: str, message: str) -> dict[str, str]:
    """A Job condition in the API schema (times left out, as upstream's comparisons do)."""
    return {"type": kind, "status": status, "reason": reason, "message": message}


def conditions_of(status: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(type, status, reason, message) of each condition, times ignored as upstream does."""
    return [
        (c["type"], c["status"], c.get("reason", ""), c.get("message", ""))
        for c in status.get("conditions", [])
    ]


def job_of(
    spec: dict[str, Any], status: dict[str, Any] | None = None, **meta: Any
) -> dict[str, Any]:
    """A Job as a ``batch.Job`` literal of the table writes it (``validObjectMeta``,
    ``validSelector``, ``validTemplate``), with ``spec`` on top."""
    job = new_job(-1, -1, 0)
    job["spec"].pop("backoffLimit")
    job["spec"].update(spec)
    job["status"] = dict(status or {})
    job["metadata"].update(meta)
    return job


def terminated(exit_code: int, name: str = "", finished: bool = False) -> dict[str, Any]:
    """A container status terminated with ``exit_code`` (``FinishedAt`` only when given)."""
    state: dict[str, Any] = {"exitCode": exit_code}
    if finished:
        state["finishedAt"] = TEST_FINISHED_AT
    return {"name": name, "state": {"terminated": state}}


def my_pod(i: int, status: dict[str, Any], *, indexed: bool = False, deleting: bool = False,
           uid: str = "", index: str | None = None, finalizer: bool = True,
           annotations: dict[str, str] | None = None) -> PodBuilder:  # fmt: skip
    """``podBuilder{}.name("mypod-<i>").job(job)`` with the tracking finalizer and the given
    status (``index`` for Indexed Jobs: ``i`` unless given)."""
    builder = PodBuilder(
        f"mypod-{i}",
        str(status.get("phase", "")),
        index=index if index is not None else (str(i) if indexed else None),
        terminating=deleting,
        finished=False,
        finalizer=finalizer,
    )
    builder.extra["status"] = status
    if uid:
        builder.extra["uid"] = uid
    if annotations:
        builder.extra["annotations"] = annotations
    return builder


FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"


def built_pods(
    specs: list[tuple[str, str, str | dict[str, Any], str | None, bool]],
) -> list[PodBuilder]:
    """``buildPod().uid(u).index(i).phase(p)[.indexFailureCount(c)][.trackingFinalizer()]``
    rows as (uid, index, phase or status, failure count, finalizer), named ``mypod-<n>``."""
    pods = []
    for n, (uid, index, phase, count, finalizer) in enumerate(specs):
        status = {"phase": phase} if isinstance(phase, str) else phase
        annotations = {FAILURE_COUNT: count} if count is not None else None
        pods.append(my_pod(n, status, uid=uid, index=index, finalizer=finalizer,
                           annotations=annotations))  # fmt: skip
    return pods


def whole_status(status: dict[str, Any]) -> dict[str, Any]:
    """The status as upstream compares it (``StartTime``, ``CompletionTime``, ``Ready``
    ignored; counters read as 0 and lists as empty when absent)."""
    return {
        "active": status.get("active", 0),
        "succeeded": status.get("succeeded", 0),
        "failed": status.get("failed", 0),
        "terminating": status.get("terminating", 0),
        "completedIndexes": status.get("completedIndexes", ""),
        "failedIndexes": status.get("failedIndexes"),
        "uncountedTerminatedPods": status.get("uncountedTerminatedPods", {}),
        "conditions": conditions_of(status),
    }
