"""enqueue: admit Pending PodGroups (→ Inqueue) while the enqueueable plugins permit.

Queues take turns in queue order, one job each. A job without minResources is always
admitted, as in Volcano; otherwise the tiered vote of proportion/capacity/overcommit decides,
and a rejection is kept as the job's reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.scheduler.actions.ordering import KeyedQueue
from services.scheduler.api import JobInfo
from services.scheduler.api.job import INQUEUE

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "enqueue"


class Enqueue:
    name = NAME

    def execute(self, ssn: Session) -> None:
        by_queue: dict[str, KeyedQueue[JobInfo]] = {}
        for job in ssn.jobs.values():
            if job.queue in ssn.queues and job.is_pending():
                by_queue.setdefault(job.queue, KeyedQueue(ssn.job_order_key)).push(job)
        queues = KeyedQueue(ssn.queue_order_key, (ssn.queues[q] for q in sorted(by_queue)))
        while queues:
            queue = queues.pop()
            jobs = by_queue[queue.name]
            if not jobs:
                continue
            job = jobs.pop()
            if job.min_resources is None or ssn.job_enqueueable(job):
                ssn.job_enqueued(job)
                job.phase = INQUEUE
            queues.push(queue)


def new() -> Enqueue:
    return Enqueue()
