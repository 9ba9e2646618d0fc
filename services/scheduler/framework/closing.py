"""End of session: PodGroup phases (Volcano's ``jobStatus``) and "why pending" messages."""

from __future__ import annotations

from collections.abc import Mapping

from services.scheduler.api import JobInfo
from services.scheduler.api.job import COMPLETED, INQUEUE, PENDING, RUNNING, UNKNOWN
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskStatus

UNSCHEDULABLE = "Unschedulable"
SCHEDULED = "Scheduled"
NOT_ENOUGH_RESOURCES = "NotEnoughResources"
ALL_NODES_UNAVAILABLE = "all nodes are unavailable"


def _scheduled_and_completed(job: JobInfo) -> tuple[int, int]:
    """Volcano's ``ScheduledTaskNum`` (plus released tasks still on a node, which keep their
    gang slot) and its completed count (Succeeded or Failed). Shoal also counts the tasks this
    session allocated, so a gang placed now shows Running one cycle sooner."""
    counts = job.counts
    completed = counts[TaskStatus.SUCCEEDED] + counts[TaskStatus.FAILED]
    scheduled = sum(counts[s] for s in ALLOCATED_STATUSES) + completed
    if counts[TaskStatus.RELEASING]:
        scheduled += sum(
            1
            for t in job.tasks.values()
            if t.status is TaskStatus.RELEASING and t.pod.spec.nodeName
        )
    return scheduled, completed


def new_phase(job: JobInfo, *, unschedulable: bool) -> str:
    """Volcano's ``getPodGroupPhase``: a job whose scheduled tasks all ended (failed or not) is
    Completed; one with its gang scheduled is Running; otherwise Pending unless Inqueue."""
    if job.counts[TaskStatus.RUNNING] and unschedulable:
        return UNKNOWN
    scheduled, completed = _scheduled_and_completed(job)
    if scheduled >= job.min_available:
        return COMPLETED if scheduled and scheduled == completed else RUNNING
    if job.phase != INQUEUE:
        return PENDING
    return job.phase


def finished(job: JobInfo) -> bool:
    """Every scheduled task ended and the gang had run: nothing is left to schedule or explain,
    so no Unschedulable condition (Volcano's gang writes one for a job whose pods failed)."""
    counts = job.counts
    if counts[TaskStatus.PENDING] or not (
        counts[TaskStatus.SUCCEEDED] or counts[TaskStatus.FAILED]
    ):
        return False  # the common case, decided without counting the scheduled tasks
    return new_phase(job, unschedulable=False) == COMPLETED


_SCHEDULED = frozenset(
    {TaskStatus.RUNNING, TaskStatus.BOUND, TaskStatus.FAILED, TaskStatus.SUCCEEDED}
)


def releasing_holds_gang(job: JobInfo) -> bool:
    """Volcano's ``shouldSkipUnschedulableForReleasing``: a job below its gang only because
    some of its scheduled pods are terminating (they still hold their node and gang slot) and
    with nothing left to schedule gets no Unschedulable condition; a pending or pipelined
    replacement keeps the condition, so the work still to do stays visible."""
    counts = job.counts
    if not counts[TaskStatus.RELEASING] or counts[TaskStatus.PENDING]:
        return False
    if counts[TaskStatus.PIPELINED]:
        return False
    releasing = sum(
        1 for t in job.tasks.values() if t.status is TaskStatus.RELEASING and t.pod.spec.nodeName
    )
    if not releasing:
        return False
    scheduled = sum(counts[s] for s in _SCHEDULED)
    return scheduled + releasing >= job.min_available


def fit_error(job: JobInfo) -> str:
    """Volcano's ``JobInfo.FitError``: the readiness, a histogram of task statuses with
    minAvailable, the pending tasks' reasons, and the first task's node fit errors."""
    histogram = [f"{n} {TaskStatus(s).name.title()}" for s, n in enumerate(job.counts) if n]
    histogram.append(f"{job.min_available} minAvailable")
    ready = "pod group is ready" if job.is_ready() else "pod group is not ready"
    message = f"{ready}, {', '.join(sorted(histogram))}"
    if job.counts[TaskStatus.PENDING]:
        message += f"; Pending: {job.counts[TaskStatus.PENDING]} {UNSCHEDULABLE}"
    verdicts = [
        f"{status.message} ({plugin})"
        for plugin in sorted(job.reasons)
        for status in job.reasons[plugin]
    ]
    if verdicts:  # Volcano's JobFitErrors: why the job as a whole was held back
        return f"{message}. Origin reason is: {'; '.join(verdicts)}"
    for key in sorted(job.fit_errors):
        if key in job.tasks:
            message += f". Origin reason is {job.tasks[key].name}: {nodes_unavailable(job, key)}"
            break
    return message


def nodes_unavailable(job: JobInfo, task_key: str) -> str:
    """Volcano's ``FitErrors.Error``: ``0/N nodes are unavailable: <histogram>.``"""
    fit = job.fit_errors[task_key]
    if fit.total_nodes == 0:
        return ALL_NODES_UNAVAILABLE
    parts = ", ".join(f"{c.nodes} {c.status.message}" for c in fit.histogram)
    text = f"0/{fit.total_nodes} nodes are unavailable: {parts}."
    return f"In hyperNode {fit.hyper_node}: {text}" if fit.hyper_node else text


def pod_unschedulable(job: JobInfo, pipelined: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The ``PodScheduled=False`` (reason, message) of each task still waiting, as Volcano's
    ``RecordJobStatusEvent``/``TaskSchedulingReason``: a pipelined task may run once resources
    are released; a pending one names its node fit errors, else the job's ``fit_error``."""
    out: dict[str, tuple[str, str]] = {}
    if not (job.counts[TaskStatus.PENDING] or job.counts[TaskStatus.PIPELINED]):
        return out  # the common case of a placed job: no walk over its tasks
    base: str | None = None
    for task in job.tasks.values():
        if task.status is TaskStatus.PIPELINED:
            out[task.key] = (
                UNSCHEDULABLE,
                f"Pod {task.key} can possibly be assigned to {pipelined.get(task.key, '')}, "
                "once resource is released and minAvailable is satisfied",
            )
        elif task.status is TaskStatus.PENDING:
            if task.key in job.fit_errors:
                out[task.key] = (UNSCHEDULABLE, nodes_unavailable(job, task.key))
            else:
                base = base if base is not None else fit_error(job)
                out[task.key] = (UNSCHEDULABLE, base)
    return out


def job_details(job: JobInfo) -> list[str]:
    """Every distinct reason recorded for the job: node histograms first, then verdicts."""
    details: list[str] = []
    for fit in job.fit_errors.values():
        text = fit.message()
        if text not in details:
            details.append(text)
    for plugin in sorted(job.reasons):
        for status in job.reasons[plugin]:
            text = f"{status.message} ({plugin})"
            if text not in details:
                details.append(text)
    return details


def unschedulable_message(job: JobInfo) -> tuple[str, str]:
    """(reason, message) for the Unschedulable condition of a job that is not ready."""
    placed = job.ready_task_num() + job.waiting_task_num() + job.placeable
    unready = max(job.min_available - placed, 1)
    details = job_details(job)
    if not details:
        pending = job.counts[TaskStatus.PENDING]
        if job.phase == PENDING:
            details = [f"pod group is Pending (not enqueued), {pending} Pending"]
        else:
            details = [
                f"pod group is not ready, {pending} Pending, {job.min_available} minAvailable"
            ]
    message = f"{unready}/{len(job.tasks)} tasks in gang unschedulable: {'; '.join(details)}"
    return NOT_ENOUGH_RESOURCES, message
