"""reclaim: a starving job takes resources back from *other* queues (Volcano's ``reclaim``).

Queues in queue order, overused ones skipped; a queue's starving jobs in job order, each
through one statement committed only if the job is then pipelined. For each pending task
(``preemptionPolicy: Never`` and tasks the queue may not take — ``preemptive`` — skipped),
nodes are tried in order: running, preemptable tasks of reclaimable queues are offered to the
reclaimable plugins, and victims are evicted (lowest order first) until the task fits the
node's future idle plus what was reclaimed. Those evictions have a statement of their own,
merged only when the task is then pipelined there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.actions.ordering import starving_by_queue
from services.scheduler.actions.preempt import preemptor_tasks
from services.scheduler.actions.victims import enough, may_preempt
from services.scheduler.api import JobInfo, TaskInfo, TaskStatus
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "reclaim"


class Reclaim:
    name = NAME

    def execute(self, ssn: Session) -> None:
        starving, queues = starving_by_queue(ssn)
        placer = Placer(ssn)
        while queues:
            queue = queues.pop()
            if ssn.overused(queue) is not None:
                continue
            jobs = starving.get(queue.name)
            while jobs:
                job = jobs.pop()
                stmt = Statement(ssn)
                # A job's pending tasks change only by its own placements: reading them when
                # it is popped is what Volcano's up-front map holds by then.
                pending = preemptor_tasks(ssn, job)
                while ssn.job_starving(job) and pending:
                    task = pending.pop()
                    if not may_preempt(task):
                        continue
                    refused = ssn.preemptive(queue, [task])
                    if refused is not None:
                        job.record(refused)
                        continue
                    self._reclaim_for(ssn, placer, stmt, job, task)
                if ssn.job_pipelined(job):
                    stmt.commit()
                else:
                    stmt.discard()

    def _reclaim_for(
        self,
        ssn: Session,
        placer: Placer,
        stmt: Statement,
        job: JobInfo,
        task: TaskInfo,
    ) -> None:
        nodes = ssn.nodes
        for row in (int(r) for r in np.flatnonzero(placer.static(task).passed)):
            candidates = []
            for other in nodes.tasks[row].values():
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
            if not enough(nodes, task, row, victims):
                continue
            node_stmt = Statement(ssn)
            for victim in ssn.victim_order(victims, ssn.queues[job.queue]):
                if np.all(nodes.future[row] >= task.request):
                    break
                node_stmt.evict(victim)
            if not np.all(nodes.future[row] >= task.request):
                node_stmt.discard()
                continue
            node_stmt.pipeline(task, row)
            stmt.merge(node_stmt)
            return


def new() -> Reclaim:
    return Reclaim()
