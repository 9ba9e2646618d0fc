"""gangreclaim: a starving job takes resources back from other queues by evicting whole
bundles (Volcano's ``gangreclaim`` action; see ``gang_eviction`` for the shared steps).

Overused queues are skipped, and a job whose queue may not reclaim for its pending tasks
together (``preemptive``) waits. Candidates are the running, preemptable tasks of jobs in
other, reclaimable queues whose PodGroup allows eviction. Bundles of the queue first in
victim-queue order (else last in queue order) go first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from services.scheduler.actions.bundles import Bundle, sort_bundles
from services.scheduler.actions.gang_eviction import GangEviction, gang_preemptable
from services.scheduler.api import JobInfo, QueueInfo, TaskInfo, TaskStatus
from services.scheduler.api.resources import FloatVec
from services.scheduler.framework.extension import EvictionKind
from services.scheduler.framework.session import descending

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "gangreclaim"


class GangReclaim(GangEviction):
    name = NAME
    kind = EvictionKind.GANG_RECLAIM

    def skip_queue(self, ssn: Session, queue: QueueInfo) -> bool:
        return ssn.overused(queue) is not None

    def may_evict_for(
        self, ssn: Session, queue: QueueInfo, job: JobInfo, pending: Sequence[TaskInfo]
    ) -> bool:
        refused = ssn.preemptive(queue, pending)
        if refused is not None:
            job.record(refused)
        return refused is None

    def candidates(self, ssn: Session, job: JobInfo) -> dict[str, list[TaskInfo]]:
        found: dict[str, list[TaskInfo]] = {}
        for on_node in ssn.nodes.tasks:
            for task in on_node.values():
                if task.status is not TaskStatus.RUNNING or not task.preemptable:
                    continue
                owner = ssn.jobs.get(task.job)
                if owner is None or owner.queue == job.queue or not gang_preemptable(owner):
                    continue
                queue = ssn.queues.get(owner.queue)
                if queue is not None and queue.reclaimable:
                    found.setdefault(owner.key, []).append(task)
        return found

    def sort(
        self, ssn: Session, job: JobInfo, bundles: Sequence[Bundle], need: FloatVec
    ) -> list[Bundle]:
        mine = ssn.queues[job.queue]

        def victim_queue_first(left: Bundle, right: Bundle) -> int:
            lq, rq = ssn.queues[left.job.queue], ssn.queues[right.job.queue]
            if lq.name == rq.name:
                return 0
            lk, rk = ssn.victim_queue_key(lq, mine), ssn.victim_queue_key(rq, mine)
            if lk != rk:
                return -1 if lk < rk else 1
            return descending(ssn.queue_order_key(lq), ssn.queue_order_key(rq))

        return sort_bundles(bundles, need, victim_queue_first)


def new() -> GangReclaim:
    return GangReclaim()
