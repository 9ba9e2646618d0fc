"""capacity: per-queue ``capability`` (hard limit), ``deserved`` (reclaim line) and
``guarantee`` (never reclaimed below). With ``enableHierarchy`` queues form a tree through
``spec.parent`` (root at the top): every limit is checked on the queue and its ancestors,
and only leaf queues take jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.resources import FloatVec, less_equal, less_equal_in, share
from services.scheduler.api.status import Status
from services.scheduler.framework.extension import PERMIT, Verdict
from services.scheduler.plugins.base import Arguments, BasePlugin
from services.scheduler.plugins.quota import QueueAttr, account_job, describe, total_resource

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "capacity"


class CapacityPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        space = ssn.space
        option = next((o for tier in ssn.tiers for o in tier if o.name == NAME), None)
        self.hierarchy = option is not None and option.enabled("enableHierarchy")
        total = total_resource(ssn)
        guarantees = sum((q.guarantee for q in ssn.queues.values()), space.zeros())
        self.attrs = {name: QueueAttr(q, space) for name, q in ssn.queues.items()}
        self.parent = {name: q.parent for name, q in ssn.queues.items() if q.parent in ssn.queues}
        self.children = {p for p in self.parent.values()} if self.hierarchy else set()
        for job in ssn.jobs.values():
            for attr in self._chain(job.queue):
                account_job(attr, job)
        for name in self._top_down():
            attr, queue = self.attrs[name], ssn.queues[name]
            real = np.minimum(np.maximum(total - guarantees, 0) + attr.guarantee, attr.capability)
            if self.hierarchy and name in self.parent:
                real = np.minimum(real, self.attrs[self.parent[name]].real_capability)
            attr.real_capability = real
            deserved = queue.deserved if queue.has_deserved else space.zeros()
            deserved = np.minimum(np.minimum(deserved, real), attr.request)
            attr.deserved = np.maximum(deserved, attr.guarantee)
            attr.share = self._share(attr)
        ssn.points.queue_order.add(NAME, self.queue_key)
        ssn.points.allocatable.add(NAME, self.allocatable)
        ssn.points.preemptive.add(NAME, self.preemptive)
        ssn.points.reclaimable.add(NAME, self.reclaimable)
        ssn.points.job_enqueueable.add(NAME, self.enqueueable)
        ssn.points.job_enqueued.add(NAME, self.enqueued)
        ssn.points.on_allocate.add(NAME, self.on_allocate)
        ssn.points.on_deallocate.add(NAME, self.on_deallocate)

    def _top_down(self) -> list[str]:
        def depth(name: str) -> int:
            seen, d = {name}, 0
            while name in self.parent and self.parent[name] not in seen:
                name = self.parent[name]
                seen.add(name)
                d += 1
            return d

        return sorted(self.attrs, key=lambda n: (depth(n), n))

    def _chain(self, queue: str) -> list[QueueAttr]:
        """The queue and, with hierarchy, its ancestors up to root."""
        chain = [self.attrs[queue]] if queue in self.attrs else []
        seen = {queue}
        while self.hierarchy and queue in self.parent and self.parent[queue] not in seen:
            queue = self.parent[queue]
            seen.add(queue)
            chain.append(self.attrs[queue])
        return chain

    def _share(self, attr: QueueAttr) -> float:
        return share(attr.allocated, attr.deserved, self.ssn.space.quota_dims)

    def queue_key(self, queue: QueueInfo) -> tuple[float, float, int]:
        """Higher ``spec.priority`` first, then lower share; at equal shares a queue with a
        deserved quota first (Volcano ``compareShareWithDeserved``)."""
        attr = self.attrs.get(queue.name)
        if attr is None:
            return (-float(queue.priority), 0.0, 1)
        return (-float(queue.priority), attr.share, 0 if attr.deserved.any() else 1)

    def _limit(self, queue: str, task: TaskInfo, line: str) -> Status | None:
        dims = task.qreq > 0
        for attr in self._chain(queue):
            limit = attr.real_capability if line == "capability" else attr.deserved
            if not less_equal_in(attr.allocated + task.qreq, limit, dims):
                space = self.ssn.space
                return Status(
                    reason="QueueCapabilityExceeded" if line == "capability" else "QueueDeserved",
                    message=(
                        f"queue {attr.name} {line} {describe(space, limit)} would be exceeded"
                        f" (allocated {describe(space, attr.allocated)})"
                    ),
                    plugin=NAME,
                )
        return None

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        return self._limit(queue.name, task, "capability")

    def preemptive(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        return self._limit(queue.name, task, "deserved")

    def reclaimable(
        self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        victims = []
        allocations: dict[str, FloatVec] = {}
        for task in candidates:
            queue = self.ssn.jobs[task.job].queue
            attr = self.attrs[queue]
            allocated = allocations.setdefault(queue, attr.allocated.copy())
            if np.any((allocated < reclaimer.qreq) & (reclaimer.qreq > 0)):
                continue
            if less_equal(allocated, attr.deserved):
                continue
            if not less_equal(attr.guarantee, allocated - task.qreq):
                continue
            allocated -= task.qreq
            victims.append(task)
        return victims, PERMIT

    def enqueueable(self, job: JobInfo) -> Verdict:
        if self.hierarchy and job.queue in self.children:
            return Status(
                reason="QueueNotLeaf",
                message=f"queue {job.queue} has child queues; jobs go to leaf queues",
                plugin=NAME,
            )
        minimum = job.min_resources
        if minimum is None:
            return PERMIT
        for attr in self._chain(job.queue):
            wanted = minimum + attr.allocated + attr.inqueue - attr.elastic
            if not less_equal_in(wanted, attr.real_capability, minimum > 0):
                space = self.ssn.space
                return Status(
                    reason="QueueCapabilityExceeded",
                    message=(
                        f"queue {attr.name} cannot admit minResources {describe(space, minimum)}:"
                        f" allocated {describe(space, attr.allocated)}, inqueue"
                        f" {describe(space, attr.inqueue)}, capability"
                        f" {describe(space, attr.real_capability)}"
                    ),
                    plugin=NAME,
                )
        return PERMIT

    def enqueued(self, job: JobInfo) -> None:
        if job.min_resources is not None:
            for attr in self._chain(job.queue):
                attr.inqueue += job.min_resources

    def _move(self, task: TaskInfo, sign: float) -> None:
        for attr in self._chain(self.ssn.jobs[task.job].queue):
            attr.allocated += sign * task.qreq
            attr.share = self._share(attr)

    def on_allocate(self, task: TaskInfo) -> None:
        self._move(task, 1.0)

    def on_deallocate(self, task: TaskInfo) -> None:
        self._move(task, -1.0)


def new(arguments: dict[str, Any]) -> CapacityPlugin:
    Arguments(arguments)
    return CapacityPlugin()
