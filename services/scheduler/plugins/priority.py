"""priority: order jobs and tasks by PriorityClass; only lower priority may be preempted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import JobInfo, TaskInfo
from services.scheduler.api.sub_job import SubJobInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT, EvictionContext, EvictionKind
from services.scheduler.plugins.base import BasePlugin

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "priority"


class PriorityPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.points.job_order.add(NAME, _job_key)
        ssn.points.task_order.add(NAME, _task_key)
        ssn.points.sub_job_order.add(NAME, _sub_job_key)
        ssn.points.preemptable.add(NAME, self.preemptable)
        ssn.points.unified_evictable.add(NAME, self.unified_evictable)
        ssn.points.job_starving.add(NAME, _starving)

    def preemptable(
        self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        jobs = self.ssn.jobs
        mine = jobs[preemptor.job]
        victims = []
        for task in candidates:
            if task.job != preemptor.job:
                if jobs[task.job].priority >= mine.priority:
                    continue
            elif task.priority >= preemptor.priority:
                continue
            victims.append(task)
        return victims, PERMIT

    def unified_evictable(
        self, ctx: EvictionContext, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """gangreclaim is fairness-driven: priority does not gate it (as it registers no
        reclaimable); gangpreempt evicts only jobs of lower priority than the evicting job."""
        if ctx.kind is EvictionKind.GANG_RECLAIM:
            return list(candidates), PERMIT
        jobs = self.ssn.jobs
        return [t for t in candidates if jobs[t.job].priority < ctx.job.priority], PERMIT


def _job_key(job: JobInfo) -> float:
    return -float(job.priority)


def _sub_job_key(sub: SubJobInfo) -> float:
    """Sub-jobs of higher priority (their highest task priority) first."""
    return -float(sub.priority)


def _task_key(task: TaskInfo) -> float:
    return -float(task.priority)


def _starving(job: JobInfo) -> bool:
    return job.ready_task_num() + job.waiting_task_num() < len(job.tasks)


def new(arguments: dict[str, Any]) -> PriorityPlugin:
    Arguments(arguments)
    return PriorityPlugin()
