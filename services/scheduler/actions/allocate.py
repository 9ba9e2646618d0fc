"""allocate: queue by queue (lowest share first), job by job, task by task, place pods.

A job's tasks go through one Statement: committed when the gang is ready, kept (reserved,
not bound) when it is pipelined, discarded otherwise. A ready job with tasks left goes back
into its queue so other jobs get a turn. A task that fits no node keeps its node histogram as
the job's reason; the job goes on with its other tasks while its gang can still be met
(Volcano's ``NeedContinueAllocating``), and skips further tasks of the same role. A job with
a ``subGroupPolicy`` is placed sub-job by sub-job (``sub_job_allocate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.scheduler.actions.hypernode_allocate import allocate_in_hyper_nodes
from services.scheduler.actions.ordering import KeyedQueue, LiveQueue
from services.scheduler.actions.sub_job_allocate import Worksheet, allocate_grouped, organize
from services.scheduler.actions.task_placement import JobScope, place_tasks
from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.job import INQUEUE
from services.scheduler.api.resources import BoolVec
from services.scheduler.api.sub_job import GroupedJobInfo
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "allocate"


def pending_tasks(ssn: Session, job: JobInfo, *, best_effort: bool) -> list[TaskInfo]:
    """The job's pending tasks, *last* to place first (pop from the end)."""
    tasks = [t for t in job.pending_tasks() if t.best_effort == best_effort]
    tasks.sort(key=ssn.task_order_key, reverse=True)
    return tasks


class Allocate:
    name = NAME

    def execute(self, ssn: Session) -> None:
        enqueue_on = "enqueue" in ssn.actions
        by_queue: dict[str, KeyedQueue[JobInfo]] = {}
        for job in ssn.jobs.values():
            if job.is_pending():
                if enqueue_on:
                    continue
                # Without an enqueue action nothing would admit the job: Volcano admits it.
                job.phase = INQUEUE
            if job.queue not in ssn.queues:
                continue
            invalid = ssn.job_valid(job)  # jobs admitted this session were not checked at open
            if invalid is not None:
                job.record(invalid)
                continue
            by_queue.setdefault(job.queue, KeyedQueue(ssn.job_order_key)).push(job)
        queues = LiveQueue(ssn.queue_order_key, (ssn.queues[q] for q in sorted(by_queue)))
        placer = Placer(ssn)
        pending: dict[str, list[TaskInfo]] = {}
        sheets: dict[str, Worksheet] = {}
        while queues:
            queue = queues.pop()
            overused = ssn.overused(queue)
            jobs = by_queue[queue.name]
            if overused is not None:
                for job in _drain(jobs):
                    job.record(overused)
                continue
            if not jobs:
                continue
            job = jobs.pop()
            if isinstance(job, GroupedJobInfo):
                if job.key not in sheets:
                    sheets[job.key] = organize(ssn, job)
                if allocate_grouped(ssn, placer, queue, job, sheets[job.key]):
                    jobs.push(job)
                queues.push(queue)
                continue
            if job.key not in pending:
                pending[job.key] = pending_tasks(ssn, job, best_effort=False)
            topology = ssn.topology
            if topology is not None and job.key in topology.jobs:
                if allocate_in_hyper_nodes(ssn, placer, queue, job, pending[job.key], place):
                    jobs.push(job)
            else:
                self._allocate_job(ssn, placer, queue, job, pending[job.key], jobs)
            queues.push(queue)

    def _allocate_job(
        self,
        ssn: Session,
        placer: Placer,
        queue: QueueInfo,
        job: JobInfo,
        tasks: list[TaskInfo],
        jobs: KeyedQueue[JobInfo],
    ) -> None:
        stmt = Statement(ssn)
        if place(ssn, placer, queue, job, tasks, stmt):
            jobs.push(job)
        if ssn.job_ready(job):
            stmt.commit()
        elif ssn.job_pipelined(job):
            stmt.keep()
        else:
            stmt.discard()


def place(
    ssn: Session,
    placer: Placer,
    queue: QueueInfo,
    job: JobInfo,
    tasks: list[TaskInfo],
    stmt: Statement,
    within: BoolVec | None = None,
) -> bool:
    """Place the job's tasks (popped from the end) into ``stmt``, on the nodes ``within`` if
    given; True if the job became ready with tasks left (it goes back into its queue)."""
    return place_tasks(ssn, placer, queue, JobScope(ssn, job), tasks, stmt, within)


def _drain(jobs: KeyedQueue[JobInfo]) -> list[JobInfo]:
    drained = []
    while jobs:
        drained.append(jobs.pop())
    return drained


def new() -> Allocate:
    return Allocate()
