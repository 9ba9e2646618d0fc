"""Placing tasks one by one into a statement: the loop allocate runs for a job, and for each
sub-job of a job with a ``subGroupPolicy`` (Volcano's ``allocateResourcesForTasks``).

Each task is checked against its queue (``allocatable``) and the role cache (a task of a role
that already fitted nowhere is skipped), then goes to the best node: bound if it fits the idle
resources, pipelined if only the future idle holds it. A task that fits no node records why and
ends the loop unless the gang can still be met. What differs between a job and a sub-job (whose
failures the role cache looks at, how far to go, which HyperNode span to track) is its
``Scope``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import msgspec

from services.scheduler.actions.hypernode_allocate import spanned
from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.hypernodes import TOP
from services.scheduler.api.resources import BoolVec
from services.scheduler.api.status import FitErrors
from services.scheduler.api.sub_job import GroupedJobInfo, SubJobInfo
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


class Scope(Protocol):
    """What the tasks being placed belong to: a job, or one sub-job of a job."""

    @property
    def job(self) -> JobInfo: ...

    def role_failure(self, task: TaskInfo) -> FitErrors | None:
        """Why a task of the same role, in this scope, fitted nowhere."""
        ...

    def unplaced(self, fit: FitErrors) -> FitErrors: ...

    def need_continue(self) -> bool: ...

    def choosing(self) -> None: ...

    def placed(self, row: int) -> None: ...

    def done(self, tasks_left: list[TaskInfo]) -> bool: ...


def place_tasks(
    ssn: Session,
    placer: Placer,
    queue: QueueInfo,
    scope: Scope,
    tasks: list[TaskInfo],
    stmt: Statement,
    within: BoolVec | None = None,
) -> bool:
    """Place ``tasks`` (popped from the end) into ``stmt`` on the nodes ``within`` if given;
    True if the scope was done with tasks possibly left, False once they ran out or one
    fitted nowhere."""
    job = scope.job
    while tasks:
        task = tasks.pop()
        refused = ssn.allocatable(queue, task)
        if refused is not None:
            job.record(refused)
            continue
        failed = scope.role_failure(task)
        if failed is not None:
            job.fit_errors[task.key] = failed
            continue
        scope.choosing()
        row = placer.choose(task, within)
        if row < 0:
            job.fit_errors[task.key] = scope.unplaced(placer.fit_errors(task, within))
            if scope.need_continue():
                continue
            break
        if placer.fits_idle(task, row):
            stmt.allocate(task, row)
        else:
            stmt.pipeline(task, row)
        scope.placed(row)
        if scope.done(tasks):
            return True
    return False


class JobScope:
    """A whole job: done once ready with tasks left (it goes back into its queue)."""

    def __init__(self, ssn: Session, job: JobInfo) -> None:
        self.ssn = ssn
        self.job = job

    def role_failure(self, task: TaskInfo) -> FitErrors | None:
        job = self.job
        if not task.role or not job.fit_errors:
            return None
        return next((f for k, f in job.fit_errors.items() if job.tasks[k].role == task.role), None)

    def unplaced(self, fit: FitErrors) -> FitErrors:
        return fit

    def need_continue(self) -> bool:
        return self.job.need_continue_allocating()

    def choosing(self) -> None:
        """Nothing to record: a job's span is tracked as it is placed."""

    def placed(self, row: int) -> None:
        topology = self.ssn.topology
        key = self.job.key
        if topology is not None and key in topology.placing:
            topology.placing[key] = spanned(topology.tree, topology.placing[key], row)

    def done(self, tasks_left: list[TaskInfo]) -> bool:
        return bool(tasks_left) and self.ssn.job_ready(self.job)


class SubJobScope:
    """One sub-job placed within ``hyper_node``: done once the sub-job is ready. Its span is
    what the placer reads under ``topology.placing`` while it chooses (``finish`` drops it)."""

    def __init__(self, ssn: Session, job: GroupedJobInfo, sub: SubJobInfo, hyper_node: str) -> None:
        self.ssn = ssn
        self.job: GroupedJobInfo = job
        self.sub = sub
        self.hyper_node = hyper_node
        self.tracked = ssn.topology is not None and sub.network_topology is not None
        self.allocated = sub.allocated

    def role_failure(self, task: TaskInfo) -> FitErrors | None:
        job, sub = self.job, self.sub
        return next(
            (
                f
                for k, f in job.fit_errors.items()
                if task.role and job.tasks[k].role == task.role and job.sub_job_of[k] is sub
            ),
            None,
        )

    def unplaced(self, fit: FitErrors) -> FitErrors:
        if self.hyper_node != TOP:
            return msgspec.structs.replace(fit, hyper_node=self.hyper_node)
        return fit

    def need_continue(self) -> bool:
        return self.job.need_continue_allocating_in(self.sub)

    def choosing(self) -> None:
        topology = self.ssn.topology
        if topology is not None and self.tracked:
            topology.placing[self.sub.uid] = self.allocated

    def placed(self, row: int) -> None:
        topology = self.ssn.topology
        if topology is not None and self.tracked:
            self.allocated = spanned(topology.tree, self.allocated, row)

    def done(self, tasks_left: list[TaskInfo]) -> bool:
        return self.ssn.sub_job_ready(self.job, self.sub)

    def finish(self) -> None:
        topology = self.ssn.topology
        if topology is not None:
            topology.placing.pop(self.sub.uid, None)
