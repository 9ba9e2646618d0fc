"""reclaim: a starving job takes resources back from *other* queues that are above their
deserved share (reclaimable plugins decide); its task is pipelined onto the freed node."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.actions.allocate import pending_tasks
from services.scheduler.actions.ordering import KeyedQueue
from services.scheduler.api import JobInfo, TaskInfo, TaskStatus
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "reclaim"


class Reclaim:
    name = NAME

    def execute(self, ssn: Session) -> None:
        starving: dict[str, KeyedQueue[JobInfo]] = {}
        tasks: dict[str, list[TaskInfo]] = {}
        present: set[str] = set()
        for job in ssn.jobs.values():
            if job.is_pending() or job.queue not in ssn.queues:
                continue
            present.add(job.queue)
            if ssn.job_starving(job):
                starving.setdefault(job.queue, KeyedQueue(ssn.job_order_key)).push(job)
                tasks[job.key] = pending_tasks(ssn, job, best_effort=False)
        placer = Placer(ssn)
        queues = KeyedQueue(ssn.queue_order_key, (ssn.queues[q] for q in sorted(present)))
        while queues:
            queue = queues.pop()
            if ssn.overused(queue) is not None:
                continue
            jobs = starving.get(queue.name)
            if not jobs:
                continue
            job = jobs.pop()
            pending = tasks[job.key]
            if not pending or not ssn.job_starving(job):
                continue
            task = pending.pop()
            refused = ssn.allocatable(queue, task) or ssn.preemptive(queue, task)
            if refused is not None:
                job.record(refused)
                continue
            if self._reclaim_for(ssn, placer, job, task):
                jobs.push(job)
            queues.push(queue)

    def _reclaim_for(self, ssn: Session, placer: Placer, job: JobInfo, task: TaskInfo) -> bool:
        nodes = ssn.nodes
        for row in np.flatnonzero(placer.feasible(task, resources=False)):
            candidates = []
            for other in nodes.tasks[int(row)].values():
                owner = ssn.jobs.get(other.job)
                if (
                    other.status is not TaskStatus.RUNNING
                    or not other.preemptable
                    or owner is None
                    or owner.queue == job.queue
                    or not ssn.queues[owner.queue].reclaimable
                ):
                    continue
                candidates.append(other)
            if not candidates:
                continue
            victims = ssn.reclaimable(task, candidates)
            if not victims:
                continue
            freed = nodes.future[row] + sum(v.request for v in victims)
            if not np.all(freed >= task.request):
                continue
            stmt = Statement(ssn)
            reclaimed = np.zeros_like(task.request)
            for victim in victims:
                stmt.evict(victim)
                reclaimed += victim.request
                if np.all(reclaimed >= task.request):
                    break
            if np.all(nodes.future[row] >= task.request):
                stmt.pipeline(task, int(row))
                stmt.commit()
                return True
            stmt.commit()
        return False


def new() -> Reclaim:
    return Reclaim()
