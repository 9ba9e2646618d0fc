"""preempt: starving jobs evict lower-priority running tasks of their own queue, then tasks
preempt within their own job. Victims come from the preemptable plugins; the preemptor is
pipelined onto the node being freed, and binds in a later session once the victims are gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from services.scheduler.actions.allocate import pending_tasks
from services.scheduler.actions.ordering import KeyedQueue
from services.scheduler.actions.victims import enough, eviction_order, fits_future
from services.scheduler.api import JobInfo, TaskInfo, TaskStatus
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "preempt"


def preempt_one(
    ssn: Session,
    placer: Placer,
    stmt: Statement,
    preemptor: TaskInfo,
    eligible: Callable[[TaskInfo], bool],
) -> bool:
    """Try the nodes best-score first; evict the fewest, lowest-ordered victims that free room."""
    nodes = ssn.nodes
    for row in placer.ranked(preemptor, placer.feasible(preemptor, resources=False)):
        candidates = [t for t in nodes.tasks[row].values() if eligible(t)]
        if not candidates:
            continue
        victims = ssn.preemptable(preemptor, candidates)
        if not enough(nodes, preemptor, row, victims):
            continue
        for victim in eviction_order(ssn, victims):
            if fits_future(nodes, preemptor, row):
                break
            stmt.evict(victim)
        if fits_future(nodes, preemptor, row):
            stmt.pipeline(preemptor, row)
            return True
    return False


def _running(task: TaskInfo) -> bool:
    return task.status is TaskStatus.RUNNING and not task.best_effort


class Preempt:
    name = NAME

    def execute(self, ssn: Session) -> None:
        starving: dict[str, KeyedQueue[JobInfo]] = {}
        tasks: dict[str, list[TaskInfo]] = {}
        for job in ssn.jobs.values():
            if job.is_pending() or job.queue not in ssn.queues or not ssn.job_starving(job):
                continue
            starving.setdefault(job.queue, KeyedQueue(ssn.job_order_key)).push(job)
            tasks[job.key] = pending_tasks(ssn, job, best_effort=False)
        placer = Placer(ssn)
        order = KeyedQueue(ssn.queue_order_key, (ssn.queues[q] for q in sorted(starving)))
        while order:
            queue = order.pop()
            self._between_jobs(ssn, placer, starving[queue.name], tasks)
            for job in sorted(ssn.jobs.values(), key=lambda j: j.key):
                if job.queue == queue.name and job.key in tasks:
                    self._within_job(ssn, placer, job)

    def _between_jobs(
        self,
        ssn: Session,
        placer: Placer,
        jobs: KeyedQueue[JobInfo],
        tasks: dict[str, list[TaskInfo]],
    ) -> None:
        while jobs:
            job = jobs.pop()
            stmt = Statement(ssn)
            assigned = False
            while ssn.job_starving(job) and tasks[job.key]:
                preemptor = tasks[job.key].pop()

                def eligible(t: TaskInfo, p: TaskInfo = preemptor, q: str = job.queue) -> bool:
                    owner = ssn.jobs.get(t.job)
                    return (
                        _running(t)
                        and t.preemptable
                        and owner is not None
                        and owner.queue == q
                        and t.job != p.job
                    )

                assigned = preempt_one(ssn, placer, stmt, preemptor, eligible) or assigned
            if not ssn.job_pipelined(job):
                stmt.discard()
                continue
            stmt.commit()
            if assigned:
                jobs.push(job)

    def _within_job(self, ssn: Session, placer: Placer, job: JobInfo) -> None:
        for preemptor in reversed(pending_tasks(ssn, job, best_effort=False)):
            if preemptor.status is not TaskStatus.PENDING:
                continue
            stmt = Statement(ssn)

            def same_job(t: TaskInfo, p: TaskInfo = preemptor) -> bool:
                return _running(t) and t.job == p.job

            assigned = preempt_one(ssn, placer, stmt, preemptor, same_job)
            stmt.commit()
            if not assigned:
                break


def new() -> Preempt:
    return Preempt()
