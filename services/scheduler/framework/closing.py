"""End of session: PodGroup phases (Volcano's ``jobStatus``) and "why pending" messages."""

from __future__ import annotations

from services.scheduler.api import JobInfo
from services.scheduler.api.job import COMPLETED, INQUEUE, PENDING, RUNNING, UNKNOWN
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskStatus

UNSCHEDULABLE = "Unschedulable"
SCHEDULED = "Scheduled"
NOT_ENOUGH_RESOURCES = "NotEnoughResources"


def new_phase(job: JobInfo, *, unschedulable: bool) -> str:
    counts = job.counts
    if counts[TaskStatus.RUNNING] and unschedulable:
        return UNKNOWN
    succeeded = counts[TaskStatus.SUCCEEDED]
    allocated = sum(counts[s] for s in ALLOCATED_STATUSES) + succeeded
    if allocated >= job.min_available:
        return COMPLETED if allocated and succeeded == allocated else RUNNING
    if job.phase != INQUEUE:
        return PENDING
    return job.phase


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
