"""preempt: starving jobs evict lower-priority running tasks of their own queue, then tasks
preempt within their own job (Volcano's ``preempt`` action, normal mode).

Victims come from the preemptable plugins, node by node in score order; evictions on a node
go through a statement of their own that is merged only when the preemptor then fits there
(queue allocatable, future idle, predicates), so victims on a node that did not help are never
evicted. The preemptor is pipelined onto the node being freed and binds in a later session.
A job's preemptions are committed only if the job is then pipelined. With the action argument
``enableTopologyAwarePreemption`` the victims on a node are chosen as kube-scheduler does
(see ``topology_preempt``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.scheduler.actions.ordering import KeyedQueue
from services.scheduler.actions.topology_preempt import TopologyArgs, topology_aware_preempt
from services.scheduler.actions.victims import Attempt, may_preempt
from services.scheduler.api import JobInfo, QueueInfo, TaskInfo, TaskStatus
from services.scheduler.framework.arguments import Arguments, action_arguments
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "preempt"
# Volcano's api.PreemptableStatus.
_PREEMPTABLE_STATUSES = frozenset({TaskStatus.BOUND, TaskStatus.RUNNING})


def preemptor_tasks(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """Every pending task (best-effort ones too), *last* to try first (pop from the end)."""
    tasks = list(job.pending_tasks())
    tasks.sort(key=ssn.task_order_key, reverse=True)
    return tasks


def preempt_one(attempt: Attempt, topology: TopologyArgs | None = None) -> bool:
    if not may_preempt(attempt.preemptor):
        return False
    if topology is not None:
        return topology_aware_preempt(attempt, topology)
    return normal_preempt(attempt)


def normal_preempt(attempt: Attempt) -> bool:
    """Try the nodes best-score first; evict the lowest-ordered victims until the task fits."""
    ssn, placer, preemptor = attempt.ssn, attempt.placer, attempt.preemptor
    for row in placer.ranked(preemptor, placer.static(preemptor).passed):
        victims = attempt.victims_on(row)
        if victims is None:
            continue
        node_stmt = Statement(ssn)
        fits = attempt.fits_on(row)
        for victim in ssn.victim_order(victims, attempt.queue):
            if fits:
                break
            node_stmt.evict(victim)
            fits = attempt.fits_on(row)
        if fits:
            return attempt.pipeline(node_stmt, row)
        node_stmt.discard()
    return False


def _eligible_status(preemptor: TaskInfo, task: TaskInfo) -> bool:
    """Running or bound, preemptable, and never a request-less task's victim unless it too has
    no requests (a best-effort pod may preempt only best-effort pods)."""
    return (
        task.status in _PREEMPTABLE_STATUSES
        and task.preemptable
        and not (preemptor.best_effort and not task.best_effort)
    )


class Preempt:
    name = NAME
    topology: TopologyArgs | None = None

    def read_arguments(self, arguments: Arguments) -> TopologyArgs | None:
        return TopologyArgs.of(arguments)

    def execute(self, ssn: Session) -> None:
        self.topology = self.read_arguments(action_arguments(ssn.configurations, NAME))
        starving: dict[str, KeyedQueue[JobInfo]] = {}
        under_request: dict[str, list[JobInfo]] = {}
        tasks: dict[str, list[TaskInfo]] = {}
        for job in ssn.jobs.values():
            if job.is_pending() or ssn.job_valid(job) is not None:
                continue
            if job.queue not in ssn.queues or not ssn.job_starving(job):
                continue
            if ssn.topology is not None and job.key in ssn.topology.jobs:
                # Volcano: "jobs containing networkTopology do not support preemption" (issue
                # 4374). Shoal skips them only where HyperNodes exist, where it models them.
                continue
            starving.setdefault(job.queue, KeyedQueue(ssn.job_order_key)).push(job)
            under_request.setdefault(job.queue, []).append(job)
            tasks[job.key] = preemptor_tasks(ssn, job)
        placer = Placer(ssn)
        order = KeyedQueue(ssn.queue_order_key, (ssn.queues[q] for q in sorted(starving)))
        while order:
            queue = order.pop()
            self._between_jobs(ssn, placer, queue, starving[queue.name], tasks)
            for job in under_request[queue.name]:
                self._within_job(ssn, placer, queue, job)

    def _between_jobs(
        self,
        ssn: Session,
        placer: Placer,
        queue: QueueInfo,
        jobs: KeyedQueue[JobInfo],
        tasks: dict[str, list[TaskInfo]],
    ) -> None:
        while jobs:
            job = jobs.pop()
            stmt = Statement(ssn)
            while ssn.job_starving(job) and tasks[job.key]:
                preemptor = tasks[job.key].pop()

                def eligible(t: TaskInfo, p: TaskInfo = preemptor) -> bool:
                    owner = ssn.jobs.get(t.job)
                    return (
                        _eligible_status(p, t)
                        and owner is not None
                        and owner.queue == queue.name
                        and t.job != p.job
                    )

                attempt = Attempt(ssn, placer, stmt, queue, preemptor, eligible)
                preempt_one(attempt, self.topology)
            if ssn.job_pipelined(job):
                stmt.commit()
            else:
                stmt.discard()

    def _within_job(self, ssn: Session, placer: Placer, queue: QueueInfo, job: JobInfo) -> None:
        for preemptor in reversed(preemptor_tasks(ssn, job)):
            stmt = Statement(ssn)

            def same_job(t: TaskInfo, p: TaskInfo = preemptor) -> bool:
                return _eligible_status(p, t) and t.job == p.job

            attempt = Attempt(ssn, placer, stmt, queue, preemptor, same_job)
            if not preempt_one(attempt, self.topology):
                stmt.discard()
                break
            stmt.commit()


def new() -> Preempt:
    return Preempt()
