"""drf: dominant resource fairness between jobs — the job with the smallest dominant share
goes first, and a task may preempt only to even out dominant shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import JobInfo, TaskInfo
from services.scheduler.api.resources import FloatVec, share
from services.scheduler.framework.extension import PERMIT
from services.scheduler.plugins.base import Arguments, BasePlugin
from services.scheduler.plugins.quota import job_allocated, total_resource

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "drf"
SHARE_DELTA = 0.000001


class DrfPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.total = total_resource(ssn)
        self.dims = tuple(i for i in ssn.space.quota_dims if self.total[i] > 0)
        self.allocated: dict[str, FloatVec] = {}
        self.shares: dict[str, float] = {}
        for job in ssn.jobs.values():
            allocated = job_allocated(job)
            self.allocated[job.key] = allocated if len(allocated) else ssn.space.zeros()
            self.shares[job.key] = self._share(self.allocated[job.key])
        ssn.points.job_order.add(NAME, self.job_key)
        ssn.points.preemptable.add(NAME, self.preemptable)
        ssn.points.on_allocate.add(NAME, self.on_allocate)
        ssn.points.on_deallocate.add(NAME, self.on_deallocate)

    def _share(self, allocated: FloatVec) -> float:
        return share(allocated, self.total, self.dims)

    def job_key(self, job: JobInfo) -> float:
        return self.shares.get(job.key, 0.0)

    def preemptable(
        self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        mine = self._share(self.allocated[preemptor.job] + preemptor.qreq)
        left: dict[str, FloatVec] = {}
        victims = []
        for task in candidates:
            allocated = left.setdefault(task.job, self.allocated[task.job].copy())
            allocated -= task.qreq
            theirs = self._share(allocated)
            if mine < theirs or abs(mine - theirs) <= SHARE_DELTA:
                victims.append(task)
        return victims, PERMIT

    def on_allocate(self, task: TaskInfo) -> None:
        allocated = self.allocated[task.job]
        allocated += task.qreq
        self.shares[task.job] = self._share(allocated)

    def on_deallocate(self, task: TaskInfo) -> None:
        allocated = self.allocated[task.job]
        allocated -= task.qreq
        self.shares[task.job] = self._share(allocated)


def new(arguments: dict[str, Any]) -> DrfPlugin:
    Arguments(arguments)
    return DrfPlugin()
