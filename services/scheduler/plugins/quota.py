"""Per-queue resource accounting shared by proportion and capacity (Volcano ``queueAttr``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.job import INQUEUE, RUNNING
from services.scheduler.api.resources import FloatVec, ResourceSpace
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskStatus

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


_PENDING = TaskStatus.PENDING


class QueueAttr:
    """What a queue holds (allocated), wants (request), has admitted (inqueue) and may get."""

    __slots__ = (
        "allocated",
        "capability",
        "deserved",
        "elastic",
        "guarantee",
        "inqueue",
        "name",
        "real_capability",
        "request",
        "share",
        "weight",
    )

    def __init__(self, queue: QueueInfo, space: ResourceSpace) -> None:
        self.name = queue.name
        self.weight = queue.weight
        self.allocated = space.zeros()
        self.request = space.zeros()
        self.inqueue = space.zeros()
        self.elastic = space.zeros()
        self.deserved = space.zeros()
        self.capability = queue.capability.copy()
        self.guarantee = queue.guarantee.copy()
        self.real_capability = queue.capability.copy()
        self.share = 0.0


def total_resource(ssn: Session) -> FloatVec:
    total: FloatVec = ssn.nodes.allocatable.sum(axis=0, dtype=np.float64)
    total[ssn.space.pods] = 0.0
    return total


def job_allocated(job: JobInfo) -> FloatVec:
    """The allocated tasks' requests summed in task order (an empty vector: none), a fresh
    array each call; the sum is kept on the job until one of its tasks changes."""
    total = job.allocated_sum
    if total is None:
        total = np.zeros(0)
        for task in job.tasks.values():
            if task.status in ALLOCATED_STATUSES:
                total = task.qreq.copy() if not len(total) else total + task.qreq
        job.allocated_sum = total
    return total.copy()


def account_job(attr: QueueAttr, job: JobInfo) -> None:
    """Volcano's per-job additions to its queue at session open."""
    if job.min_resources is None and not job.allocated_task_num():
        # Nothing held and nothing reserved: the additions below would all add zeros.
        for task in job.tasks.values():
            if task.status is _PENDING:
                attr.request += task.qreq
        return
    # The same sums as adding each allocated task to zeros, in task order.
    allocated = job_allocated(job)
    if not len(allocated):
        allocated = np.zeros_like(attr.allocated)
    if job.counts[TaskStatus.PENDING]:
        for task in job.tasks.values():
            if task.status is TaskStatus.PENDING:
                attr.request += task.qreq
    attr.allocated += allocated
    attr.request += allocated
    minimum = job.min_resources
    # ``util.GetInqueueResource``: what minResources still reserves beyond what the job holds,
    # so an Inqueue job whose tasks are binding is not counted twice.
    if minimum is not None and (
        job.phase == INQUEUE
        or (job.phase == RUNNING and job.allocated_task_num() >= job.min_available)
    ):
        attr.inqueue += np.maximum(minimum - allocated, 0)
    attr.elastic += np.maximum(allocated - (minimum if minimum is not None else 0), 0)


def total_request(space: ResourceSpace, tasks: Sequence[TaskInfo]) -> FloatVec:
    """The tasks' requests summed as a quota vector (Volcano sums ``Resreq``)."""
    total = space.zeros()
    for task in tasks:
        total += task.qreq
    return total


def describe(space: ResourceSpace, vector: FloatVec) -> str:
    return space.describe(np.where(np.isfinite(vector), np.round(vector), 0))
