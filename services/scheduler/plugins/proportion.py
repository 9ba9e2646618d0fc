"""proportion: queues share the cluster by weight (water-filling up to each queue's request).

Deserved shares drive queue order (lowest share first), ``overused`` (allocate skips the
queue), ``allocatable`` (a task may not take its queue past deserved), reclaim (only queues
above deserved give tasks back) and enqueue (a job's minResources must fit the queue's
capability next to what is allocated and admitted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.resources import (
    EPSILON,
    FloatVec,
    less_equal,
    less_equal_in,
    share,
    within_for,
)
from services.scheduler.api.status import Status
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT, Verdict
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.quota import (
    QueueAttr,
    account_job,
    describe,
    total_request,
    total_resource,
)

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "proportion"
OPEN = "Open"


def water_fill(attrs: Sequence[QueueAttr], total: FloatVec) -> None:
    """Volcano's deserved loop: split what remains by weight until every queue is met."""
    remaining = total.copy()
    met: set[str] = set()
    while True:
        weights = sum(a.weight for a in attrs if a.name not in met)
        if weights == 0:
            break
        before = remaining.copy()
        increased = np.zeros_like(total)
        decreased = np.zeros_like(total)
        for attr in attrs:
            if attr.name in met:
                continue
            old = attr.deserved.copy()
            attr.deserved = attr.deserved + remaining * (attr.weight / weights)
            attr.deserved = np.minimum(attr.deserved, attr.real_capability)
            attr.deserved = np.minimum(attr.deserved, attr.request)
            attr.deserved = np.maximum(attr.deserved, attr.guarantee)
            if less_equal(attr.request, attr.deserved) or np.array_equal(attr.deserved, old):
                met.add(attr.name)
            diff = attr.deserved - old
            increased += np.maximum(diff, 0)
            decreased += np.maximum(-diff, 0)
        remaining = remaining - increased + decreased
        if np.all(remaining < EPSILON) or np.array_equal(remaining, before):
            break


class ProportionPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        space = ssn.space
        total = total_resource(ssn)
        guarantees = sum((q.guarantee for q in ssn.queues.values()), space.zeros())
        self.attrs: dict[str, QueueAttr] = {}
        # Queues whose ``share`` lags their allocation: only the queue order reads it.
        self._stale: set[str] = set()
        for job in ssn.jobs.values():
            queue = ssn.queues[job.queue]
            attr = self.attrs.get(job.queue)
            if attr is None:
                attr = self.attrs[job.queue] = QueueAttr(queue, space)
                attr.real_capability = np.minimum(
                    np.maximum(total - guarantees, 0) + attr.guarantee, attr.capability
                )
            account_job(attr, job)
        water_fill([self.attrs[k] for k in sorted(self.attrs)], total)
        for attr in self.attrs.values():
            self._update_share(attr)
        ssn.points.queue_order.add(NAME, self.queue_key)
        ssn.points.overused.add(NAME, self.overused)
        ssn.points.allocatable.add(NAME, self.allocatable)
        ssn.points.preemptive.add(NAME, self.preemptive)
        ssn.points.reclaimable.add(NAME, self.reclaimable)
        ssn.points.job_enqueueable.add(NAME, self.enqueueable)
        ssn.points.job_enqueued.add(NAME, self.enqueued)
        ssn.points.on_allocate.add(NAME, self.on_allocate)
        ssn.points.on_deallocate.add(NAME, self.on_deallocate)

    def _update_share(self, attr: QueueAttr) -> None:
        attr.share = share(attr.allocated, attr.deserved, self.ssn.space.quota_dims)

    def _status(self, reason: str, message: str) -> Status:
        return Status(reason=reason, message=message, plugin=NAME)

    def queue_key(self, queue: QueueInfo) -> tuple[float, float]:
        """Higher ``spec.priority`` first, then the lower share."""
        attr = self.attrs.get(queue.name)
        if attr is not None and self._stale and queue.name in self._stale:
            self._stale.discard(queue.name)
            self._update_share(attr)
        return (-float(queue.priority), attr.share if attr else 0.0)

    def overused(self, queue: QueueInfo) -> Status | None:
        attr = self.attrs.get(queue.name)
        if attr is None or not less_equal(attr.deserved, attr.allocated):
            return None
        space = self.ssn.space
        return self._status(
            "QueueOverused",
            f"queue {queue.name} is overused: allocated {describe(space, attr.allocated)}"
            f" reaches deserved {describe(space, attr.deserved)}",
        )

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        attr = self.attrs.get(queue.name)
        if queue.state == OPEN and (
            attr is None or within_for(attr.allocated, task.qreq, attr.deserved)
        ):
            return None  # the common answer, without the arrays the refusal builds
        return self._queue_allocatable(queue, task.qreq)

    def preemptive(self, queue: QueueInfo, tasks: Sequence[TaskInfo]) -> Status | None:
        return self._queue_allocatable(queue, total_request(self.ssn.space, tasks))

    def _queue_allocatable(self, queue: QueueInfo, request: FloatVec) -> Status | None:
        """Volcano's ``queueAllocatable`` (its allocatable and preemptive check): an open queue
        whose allocation stays within deserved in every dimension the tasks request."""
        if queue.state != OPEN:
            return self._status(
                "QueueNotOpen", f"queue {queue.name} is {queue.state}, not Open: no new tasks"
            )
        attr = self.attrs.get(queue.name)
        if attr is None:
            return None
        future = attr.allocated + request
        if less_equal_in(future, attr.deserved, request > 0):
            return None
        space = self.ssn.space
        return self._status(
            "QueueDeservedExceeded",
            f"queue {queue.name} would exceed its deserved {describe(space, attr.deserved)}"
            f" (allocated {describe(space, attr.allocated)})",
        )

    def reclaimable(
        self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        victims = []
        allocations: dict[str, FloatVec] = {}
        for task in candidates:
            queue = self.ssn.jobs[task.job].queue
            attr = self.attrs.get(queue)
            if attr is None:
                continue
            allocated = allocations.setdefault(queue, attr.allocated.copy())
            if not less_equal(allocated, attr.deserved):
                allocated -= task.qreq
                victims.append(task)
        return victims, PERMIT

    def enqueueable(self, job: JobInfo) -> Verdict:
        queue = self.ssn.queues[job.queue]
        if queue.state != OPEN:
            return self._status(
                "QueueNotOpen", f"queue {queue.name} is {queue.state}, not Open: job not enqueued"
            )
        attr = self.attrs.get(job.queue)
        if attr is None or job.min_resources is None:
            return PERMIT
        wanted = job.min_resources + attr.allocated + attr.inqueue - attr.elastic
        dims = (job.min_resources > 0) | (attr.allocated + attr.inqueue > 0)
        if less_equal_in(wanted, attr.real_capability, dims):
            return PERMIT
        space = self.ssn.space
        return self._status(
            "QueueCapacityExceeded",
            f"queue {job.queue} cannot admit minResources {describe(space, job.min_resources)}:"
            f" allocated {describe(space, attr.allocated)}, inqueue"
            f" {describe(space, attr.inqueue)}, capability {describe(space, attr.real_capability)}",
        )

    def enqueued(self, job: JobInfo) -> None:
        attr = self.attrs.get(job.queue)
        if attr is not None and job.min_resources is not None:
            attr.inqueue += job.min_resources

    def on_allocate(self, task: TaskInfo) -> None:
        queue = self.ssn.jobs[task.job].queue
        attr = self.attrs.get(queue)
        if attr is not None:
            attr.allocated += task.qreq
            self._stale.add(queue)  # the share is worked out when the queue order asks

    def on_deallocate(self, task: TaskInfo) -> None:
        queue = self.ssn.jobs[task.job].queue
        attr = self.attrs.get(queue)
        if attr is not None:
            attr.allocated -= task.qreq
            self._stale.add(queue)


def new(arguments: dict[str, Any]) -> ProportionPlugin:
    Arguments(arguments)
    return ProportionPlugin()
