"""gang: a job runs only with ``minMember`` tasks (and ``minTaskMember`` per task role).

Its close hook writes the PodGroup condition: ``Unschedulable`` with a precise message built
from the per-plugin reasons, or ``Scheduled`` once the gang is ready.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import JobInfo, TaskInfo
from services.scheduler.api.status import Code, Status
from services.scheduler.api.sub_job import GroupedJobInfo, SubJobInfo
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskStatus
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.closing import (
    SCHEDULED,
    UNSCHEDULABLE,
    finished,
    releasing_holds_gang,
    unschedulable_message,
)
from services.scheduler.framework.extension import PERMIT, EvictionContext, Verdict
from services.scheduler.plugins.base import BasePlugin

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "gang"
_READY = frozenset(ALLOCATED_STATUSES | {TaskStatus.SUCCEEDED})
_VALID = frozenset(_READY | {TaskStatus.PIPELINED, TaskStatus.PENDING})
_PIPELINED = frozenset(_READY | {TaskStatus.PIPELINED})


def _roles_meet(job: JobInfo, statuses: frozenset[TaskStatus], *, best_effort: bool) -> bool:
    if not job.min_task_member:
        return True
    if job.min_available < sum(job.min_task_member.values()):
        return True
    counts = job.role_counts(statuses)
    if best_effort:
        for task in job.pending_tasks():
            if task.best_effort:
                counts[task.role] = counts.get(task.role, 0) + 1
    return all(counts.get(role, 0) >= need for role, need in job.min_task_member.items())


def _valid(job: JobInfo) -> Status | None:
    if not _roles_meet(job, _VALID, best_effort=False):
        counts = job.role_counts(_VALID)
        short = ", ".join(
            f"{role} {counts.get(role, 0)}/{need}"
            for role, need in sorted(job.min_task_member.items())
            if counts.get(role, 0) < need
        )
        return Status(
            code=Code.UNRESOLVABLE,
            reason="NotEnoughPodsOfTask",
            message=f"not enough valid pods of each task for gang-scheduling: {short}",
            plugin=NAME,
        )
    if isinstance(job, GroupedJobInfo) and not job.sub_jobs_valid():
        return Status(
            code=Code.UNRESOLVABLE,
            reason="NotEnoughPodsOfTask",
            message="Not enough valid subGroups of each task for gang-scheduling",
            plugin=NAME,
        )
    valid = job.valid_task_num()
    if valid < job.min_available:
        return Status(
            code=Code.UNRESOLVABLE,
            reason="NotEnoughTasks",
            message=(
                f"not enough valid tasks for gang-scheduling: {valid} valid, "
                f"{job.min_available} minAvailable"
            ),
            plugin=NAME,
        )
    return None


def _order(job: JobInfo) -> float:
    return 1.0 if job.is_ready() else 0.0


def _gang_ready(job: JobInfo) -> bool:
    return job.is_ready() and _roles_meet(job, _READY, best_effort=True)


def _ready(job: JobInfo) -> bool:
    """Also ``minSubGroups`` ready sub-jobs per policy (upstream ``CheckSubJobReady``)."""
    if not _gang_ready(job):
        return False
    return not isinstance(job, GroupedJobInfo) or job.sub_jobs_ready()


def _pipelined(job: JobInfo) -> Verdict:
    occupied = job.ready_task_num() + job.waiting_task_num()
    if (
        occupied >= job.min_available
        and _roles_meet(job, _PIPELINED, best_effort=False)
        and (not isinstance(job, GroupedJobInfo) or job.sub_jobs_pipelined())
    ):
        return PERMIT
    return Status(
        reason="GangNotPipelined",
        message=f"{occupied}/{job.min_available} tasks placed or pipelined",
        plugin=NAME,
    )


def _sub_job_order(sub: SubJobInfo) -> float:
    """Sub-jobs not yet ready first."""
    return 1.0 if sub.is_ready() else 0.0


def _sub_job_pipelined(sub: SubJobInfo) -> Verdict:
    if sub.is_pipelined():
        return PERMIT
    return Status(
        reason="SubGroupNotPipelined",
        message=f"sub-group {sub.uid} is not pipelined (minAvailable {sub.min_available})",
        plugin=NAME,
    )


def _starving(job: JobInfo) -> bool:
    return job.ready_task_num() + job.waiting_task_num() < job.min_available


def _every_candidate(
    _: EvictionContext, candidates: Sequence[TaskInfo]
) -> tuple[list[TaskInfo], int]:
    """The gang actions keep gangs whole through their safe/whole bundles: permit all."""
    return list(candidates), PERMIT


class GangPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.points.job_valid.add(NAME, _valid)
        ssn.points.job_order.add(NAME, _order)
        ssn.points.job_ready.add(NAME, _ready)
        ssn.points.job_pipelined.add(NAME, _pipelined)
        ssn.points.job_starving.add(NAME, _starving)
        ssn.points.sub_job_order.add(NAME, _sub_job_order)
        ssn.points.sub_job_ready.add(NAME, SubJobInfo.is_ready)
        ssn.points.sub_job_pipelined.add(NAME, _sub_job_pipelined)
        ssn.points.preemptable.add(NAME, self.victims)
        ssn.points.reclaimable.add(NAME, self.victims)
        ssn.points.unified_evictable.add(NAME, _every_candidate)

    def victims(self, _: TaskInfo, candidates: Sequence[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """Only tasks beyond a job's minAvailable may go: evicting never breaks a gang."""
        occupied: dict[str, int] = {}
        victims = []
        for task in candidates:
            job = self.ssn.jobs[task.job]
            left = occupied.setdefault(job.key, job.ready_task_num())
            if left > job.min_available:
                occupied[job.key] = left - 1
                victims.append(task)
        return victims, PERMIT

    def on_session_close(self, ssn: Session) -> None:
        for job in ssn.jobs.values():
            # Volcano's gang skips jobs without tasks: a PodGroup whose pods are not created
            # yet has nothing to explain, unless another plugin held it back (why pending).
            if finished(job) or (not job.tasks and all(p == NAME for p in job.reasons)):
                continue
            # Upstream's close reads the job's gang only, not its sub-groups.
            ready = _gang_ready(job)
            if not ready and releasing_holds_gang(job):
                continue
            if ready:
                ssn.set_condition(
                    job,
                    SCHEDULED,
                    Status(
                        code=Code.SUCCESS,
                        reason="Scheduled",
                        message="tasks in gang are ready to be scheduled",
                        plugin=NAME,
                    ),
                )
            else:
                reason, message = unschedulable_message(job)
                ssn.set_condition(
                    job, UNSCHEDULABLE, Status(reason=reason, message=message, plugin=NAME)
                )


def new(arguments: dict[str, Any]) -> GangPlugin:
    Arguments(arguments)
    return GangPlugin()
