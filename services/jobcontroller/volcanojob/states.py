"""The Volcano Job phase state machine: (phase, action) → how to act and how the phase moves.

Mirrors volcano ``pkg/controllers/job/state``: every phase either *syncs* the job (create missing
pods, count them) or *kills* it (delete pods whose phase is not retained, bump the version), then
runs an update function over the recounted status that may move the phase. ``RestartTask``
kills only one task's pods, ``RestartPod`` only the pod whose event fired the policy. The
retained phases: ``NONE`` deletes every pod, ``SOFT`` keeps Succeeded and Failed ones (their
results stay visible).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from services.jobcontroller.volcanojob.spec import JobView
from shared.models.volcano import VolcanoJobStatus

PENDING = "Pending"
RUNNING = "Running"
RESTARTING = "Restarting"
COMPLETING = "Completing"
COMPLETED = "Completed"
TERMINATING = "Terminating"
TERMINATED = "Terminated"
ABORTING = "Aborting"
ABORTED = "Aborted"
FAILED = "Failed"
FINISHED = frozenset({COMPLETED, FAILED, TERMINATED, ABORTED})

# Actions that kill one target (a task, or one pod of it) rather than the whole job.
TARGETED_ACTIONS = frozenset({"RestartTask", "RestartPod"})

RETAIN_NONE: frozenset[str] = frozenset()
RETAIN_SOFT: frozenset[str] = frozenset({"Succeeded", "Failed"})

# Returns True when it moved the phase (a new condition is then recorded).
UpdateFn = Callable[[JobView, VolcanoJobStatus], bool]


@dataclass(frozen=True, slots=True)
class Step:
    mode: Literal["sync", "kill", "kill_task"]
    retain: frozenset[str]
    update: UpdateFn | None


def to_phase(phase: str, *, retry: bool = False) -> UpdateFn:
    def update(job: JobView, status: VolcanoJobStatus) -> bool:
        if retry:
            status.retryCount += 1
        status.state.phase = phase
        return True

    return update


def when_drained(phase: str) -> UpdateFn:
    """Move to ``phase`` once no pod is pending, running or terminating."""

    def update(job: JobView, status: VolcanoJobStatus) -> bool:
        if status.terminating or status.pending or status.running:
            return False
        status.state.phase = phase
        return True

    return update


def pending_update(job: JobView, status: VolcanoJobStatus) -> bool:
    if job.min_available <= status.running + status.succeeded + status.failed:
        status.state.phase = RUNNING
        return True
    return False


def running_update(job: JobView, status: VolcanoJobStatus) -> bool:
    replicas = job.total_replicas
    if replicas == 0:
        return False  # scaled to zero: keep the phase
    min_success = job.min_success
    if min_success is not None and status.succeeded >= min_success:
        status.state.phase = COMPLETED
        return True
    if status.succeeded + status.failed != replicas:
        # Pods went back to pending (evicted, recreated): too few can run for the gang, so the
        # job waits again as Volcano's running state does.
        if status.pending > replicas - job.min_available:
            status.state.phase = PENDING
            return True
        return False
    if job.min_available >= sum(task.min_available for task in job.tasks):
        for task in job.tasks:
            counts = status.taskStatusCount.get(task.name)
            if counts is not None and counts.phase.get("Succeeded", 0) < task.min_available:
                status.state.phase = FAILED
                return True
    if min_success is not None and status.succeeded < min_success:
        status.state.phase = FAILED
    elif status.succeeded >= job.min_available:
        status.state.phase = COMPLETED
    else:
        status.state.phase = FAILED
    return True


def restarting_update(job: JobView, status: VolcanoJobStatus) -> bool:
    if status.retryCount >= job.max_retry:
        status.state.phase = FAILED
        return True
    if job.total_replicas - status.terminating >= status.minAvailable:
        status.state.phase = PENDING
        return True
    return False


def _active_step(action: str, sync_update: UpdateFn) -> Step:
    """Pending and Running react to actions alike; they differ only in how a sync moves on."""
    if action == "RestartJob":
        return Step("kill", RETAIN_NONE, to_phase(RESTARTING, retry=True))
    if action in TARGETED_ACTIONS:
        return Step("kill_task", RETAIN_NONE, to_phase(RESTARTING, retry=True))
    if action == "AbortJob":
        return Step("kill", RETAIN_SOFT, to_phase(ABORTING))
    if action == "CompleteJob":
        return Step("kill", RETAIN_SOFT, to_phase(COMPLETING))
    if action == "TerminateJob":
        return Step("kill", RETAIN_SOFT, to_phase(TERMINATING))
    return Step("sync", RETAIN_NONE, sync_update)


def step_for(phase: str, action: str, *, has_live_pods: bool) -> Step:
    """What the job does in ``phase`` when asked to execute ``action``."""
    if phase == RUNNING:
        return _active_step(action, running_update)
    if phase == RESTARTING:
        if action == "SyncJob":
            return Step("sync", RETAIN_NONE, restarting_update)
        if action in TARGETED_ACTIONS:
            return Step("kill_task", RETAIN_NONE, restarting_update)
        # A late RestartJob must not kill again once the pods are gone: that would delete the
        # freshly recreated PodGroup and wedge the job (volcano#6037).
        mode: Literal["sync", "kill"] = "kill" if has_live_pods else "sync"
        return Step(mode, RETAIN_NONE, restarting_update)
    if phase in (ABORTING, ABORTED):
        if action == "ResumeJob":
            return Step("kill", RETAIN_SOFT, to_phase(RESTARTING, retry=True))
        return Step("kill", RETAIN_SOFT, when_drained(ABORTED) if phase == ABORTING else None)
    if phase == COMPLETING:
        return Step("kill", RETAIN_SOFT, when_drained(COMPLETED))
    if phase == TERMINATING:
        return Step("kill", RETAIN_SOFT, when_drained(TERMINATED))
    if phase in (COMPLETED, FAILED, TERMINATED):
        return Step("kill", RETAIN_SOFT, None)
    return _active_step(action, pending_update)
