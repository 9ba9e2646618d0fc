"""drf: dominant resource fairness between jobs — the job with the smallest dominant share
goes first, and a task may preempt only to even out dominant shares.

With ``enableHierarchy`` the plugin also orders queues and picks reclaim victims by
hierarchical DRF over the queues' ``volcano.sh/hierarchy`` paths (see ``hdrf``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.resources import share
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.hdrf import Attr, Tree
from services.scheduler.plugins.quota import job_allocated, total_resource

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "drf"
SHARE_DELTA = 0.000001


class DrfPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        total = total_resource(ssn)
        self.dims = tuple(i for i in ssn.space.quota_dims if total[i] > 0)
        self.total = total
        option = next((o for tier in ssn.tiers for o in tier if o.name == NAME), None)
        self.tree = (
            Tree(total, self.dims)
            if option is not None and option.enabled("enableHierarchy")
            else None
        )
        self.attrs: dict[str, Attr] = {}
        # Jobs whose ``share`` lags their allocation (without hierarchy only).
        self._stale: set[str] = set()
        for job in ssn.jobs.values():
            if job.allocated_task_num():
                attr = Attr(job_allocated(job))
                attr.share = self._share(attr)
            else:
                attr = Attr(ssn.space.zeros())  # holds nothing: its share is 0
            self.attrs[job.key] = attr
            queue = ssn.queues.get(job.queue)
            if self.tree is not None and queue is not None:
                self.tree.allocated += attr.allocated
                self.tree.update(job, attr, queue)
        ssn.points.job_order.add(NAME, self.job_key)
        ssn.points.preemptable.add(NAME, self.preemptable)
        if self.tree is not None:
            ssn.points.queue_order.add(NAME, self.tree.queue_key)
            ssn.points.reclaimable.add(NAME, self.reclaimable)
        ssn.points.on_allocate.add(NAME, self.on_allocate)
        ssn.points.on_deallocate.add(NAME, self.on_deallocate)

    def _share(self, attr: Attr) -> float:
        return share(attr.allocated, self.total, self.dims)

    def job_key(self, job: JobInfo) -> float:
        attr = self.attrs.get(job.key)
        if attr is None:
            return 0.0
        if self._stale and job.key in self._stale:
            self._stale.discard(job.key)
            attr.share = self._share(attr)
        return attr.share

    def preemptable(
        self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        mine = share(self.attrs[preemptor.job].allocated + preemptor.qreq, self.total, self.dims)
        left: dict[str, Attr] = {}
        victims = []
        for task in candidates:
            attr = left.setdefault(task.job, self.attrs[task.job].copy())
            attr.allocated -= task.qreq
            theirs = self._share(attr)
            if mine < theirs or abs(mine - theirs) <= SHARE_DELTA:
                victims.append(task)
        return victims, PERMIT

    def reclaimable(
        self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """hdrf's victims: tasks whose queue would still sort after the reclaimer's queue
        once the reclaimer holds its task and the victim has lost its own."""
        assert self.tree is not None
        left_job = self.ssn.jobs.get(reclaimer.job)
        left_queue = self.ssn.queues.get(left_job.queue) if left_job is not None else None
        if left_job is None or left_queue is None:
            return [], PERMIT
        tree = self.tree.clone()
        mine = self.attrs[left_job.key].copy()
        mine.allocated += reclaimer.qreq
        tree.allocated += reclaimer.qreq
        mine.share = self._share(mine)
        tree.update(left_job, mine, left_queue)
        victims = []
        for task in candidates:
            job = self.ssn.jobs.get(task.job)
            queue = self.ssn.queues.get(job.queue) if job is not None else None
            if job is None or queue is None:
                continue
            if self._behind(tree, job, queue, task, left_queue):
                victims.append(task)
        return victims, PERMIT

    def _behind(
        self, tree: Tree, job: JobInfo, queue: QueueInfo, task: TaskInfo, reclaimer: QueueInfo
    ) -> bool:
        """Would ``reclaimer`` sort before ``queue`` once ``task`` is gone? (tree restored)"""
        theirs = self.attrs[job.key].copy()
        tree.allocated -= task.qreq
        theirs.allocated -= task.qreq
        theirs.share = self._share(theirs)
        tree.update(job, theirs, queue)
        before = tree.queue_key(reclaimer) < tree.queue_key(queue)
        tree.allocated += task.qreq
        theirs.allocated += task.qreq
        theirs.share = self._share(theirs)
        tree.update(job, theirs, queue)
        return before

    def on_allocate(self, task: TaskInfo) -> None:
        attr = self.attrs.get(task.job)
        if attr is None:
            return
        attr.allocated += task.qreq
        if self.tree is None:
            # Only the job order reads the share then: it is worked out when asked for.
            self._stale.add(task.job)
            return
        attr.share = share(attr.allocated, self.total, self.dims)
        self.tree.allocated += task.qreq
        self._update_tree(task, attr)

    def on_deallocate(self, task: TaskInfo) -> None:
        attr = self.attrs.get(task.job)
        if attr is None:
            return
        attr.allocated -= task.qreq
        if self.tree is None:
            self._stale.add(task.job)
            return
        attr.share = share(attr.allocated, self.total, self.dims)
        self.tree.allocated -= task.qreq
        self._update_tree(task, attr)

    def _update_tree(self, task: TaskInfo, attr: Attr) -> None:
        assert self.tree is not None
        job = self.ssn.jobs.get(task.job)
        queue = self.ssn.queues.get(job.queue) if job is not None else None
        if job is not None and queue is not None:
            self.tree.update(job, attr, queue)


def new(arguments: dict[str, Any]) -> DrfPlugin:
    Arguments(arguments)
    return DrfPlugin()
