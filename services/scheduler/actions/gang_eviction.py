"""What gangpreempt and gangreclaim share (Volcano ``actions/utils``): a starving job evicts
whole victim bundles until its pending tasks, placed together, make it pipelined.

Queue by queue in queue order, starving job by job in job order, each job in a statement
committed only if the job is then pipelined. The job's pending tasks with requests (in task
order) are its need; the action's victim bundles (see ``bundles``), filtered by the plugins'
``UnifiedEvictable``, are added one by one until the idle and releasing resources of the domain
plus the chosen victims cover the need; then every chosen victim is evicted and every pending
task pipelined onto the best node that fits its future idle (queue ``allocatable`` and the
predicates checked), in a statement of its own that is kept only if all of them land and the
job is then pipelined. Shoal has no HyperNodes: the one domain is the whole cluster
(Volcano's ``<cluster-top-hypernode>``), so ``maxDomains`` changes nothing, and no sub-job
nomination is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.actions.bundles import (
    Bundle,
    BundleType,
    apply_allowed,
    create_job_bundles,
    flatten,
)
from services.scheduler.actions.ordering import starving_by_queue
from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.resources import FloatVec, IntVec
from services.scheduler.api.task import PREEMPTABLE_KEY
from services.scheduler.framework.arguments import Arguments, action_arguments
from services.scheduler.framework.extension import EvictionContext, EvictionKind
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

CLUSTER_TOP = "<cluster-top-hypernode>"
MAX_DOMAINS = "maxDomains"
ALLOW_WHOLE_BUNDLE = "allowWholeBundle"
DEFAULT_MAX_DOMAINS = 8
_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})


@dataclass(frozen=True)
class GangEvictionArgs:
    max_domains: int
    allow_whole_bundle: bool

    @classmethod
    def of(cls, args: Arguments) -> GangEvictionArgs:
        max_domains = args.integer(MAX_DOMAINS, DEFAULT_MAX_DOMAINS)
        return cls(
            max_domains=max_domains if max_domains > 0 else DEFAULT_MAX_DOMAINS,
            allow_whole_bundle=args.flag(ALLOW_WHOLE_BUNDLE, True),
        )


def gang_preemptable(job: JobInfo) -> bool:
    """``IsJobPreemptableForGangEviction``: a PodGroup without ``volcano.sh/preemptable``
    (annotation, else label) may be evicted; with it, as its value parses (Go ``ParseBool``,
    an unparsable value meaning false)."""
    meta = job.pod_group.metadata
    value = meta.annotations.get(PREEMPTABLE_KEY)
    if value is None:
        value = meta.labels.get(PREEMPTABLE_KEY)
    return value is None or value in _GO_TRUE


def pending_for_eviction(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """``CollectPendingTasksForGangEviction``: pending tasks with requests, in task order."""
    tasks = [t for t in job.pending_tasks() if not t.best_effort]
    tasks.sort(key=ssn.task_order_key)
    return tasks


class GangEviction:
    """The shared skeleton; gangpreempt and gangreclaim say which queues and victims."""

    name = ""
    kind = EvictionKind.GANG_PREEMPT

    def skip_queue(self, ssn: Session, queue: QueueInfo) -> bool:
        return False

    def may_evict_for(
        self, ssn: Session, queue: QueueInfo, job: JobInfo, pending: Sequence[TaskInfo]
    ) -> bool:
        return True

    def candidates(self, ssn: Session, job: JobInfo) -> dict[str, list[TaskInfo]]:
        """Victim candidates by job key."""
        raise NotImplementedError

    def sort(
        self, ssn: Session, job: JobInfo, bundles: Sequence[Bundle], need: FloatVec
    ) -> list[Bundle]:
        raise NotImplementedError

    def read_arguments(self, arguments: Arguments) -> GangEvictionArgs:
        return GangEvictionArgs.of(arguments)

    def execute(self, ssn: Session) -> None:
        args = self.read_arguments(action_arguments(ssn.configurations, self.name))
        starving, queues = starving_by_queue(ssn)
        placer = Placer(ssn)
        while queues:
            queue = queues.pop()
            if self.skip_queue(ssn, queue):
                continue
            jobs = starving.get(queue.name)
            while jobs:
                job = jobs.pop()
                stmt = Statement(ssn)
                self._evict_for(ssn, placer, stmt, queue, job, args)
                if ssn.job_pipelined(job):
                    stmt.commit()
                else:
                    stmt.discard()

    def _evict_for(
        self,
        ssn: Session,
        placer: Placer,
        stmt: Statement,
        queue: QueueInfo,
        job: JobInfo,
        args: GangEvictionArgs,
    ) -> None:
        pending = pending_for_eviction(ssn, job)
        nodes = ssn.nodes
        if not pending or not len(nodes) or not self.may_evict_for(ssn, queue, job, pending):
            return
        need: IntVec = sum((t.request for t in pending), np.zeros_like(pending[0].request))
        quota_need = sum((t.qreq for t in pending), np.zeros_like(pending[0].qreq))
        idle = nodes.idle.sum(axis=0) + nodes.releasing.sum(axis=0)
        chosen: list[TaskInfo] = []
        for bundle in self._bundles(ssn, job, quota_need, args):
            chosen.extend(bundle.tasks)
            freed = sum((t.request for t in chosen), np.zeros_like(need))
            if not np.all(need <= idle + freed):
                continue
            plan = self._plan(ssn, placer, queue, job, pending, chosen)
            if plan is not None:
                stmt.merge(plan)
                return

    def _bundles(
        self, ssn: Session, job: JobInfo, need: FloatVec, args: GangEvictionArgs
    ) -> list[Bundle]:
        """``selectDomainBundles``: bundles of the candidates the plugins allow, sorted."""
        bundles: list[Bundle] = []
        for key, tasks in self.candidates(ssn, job).items():
            bundles.extend(create_job_bundles(ssn.jobs[key], tasks))
        if not bundles:
            return []
        bundles = self.sort(ssn, job, bundles, need)
        ctx = EvictionContext(kind=self.kind, job=job, hyper_node=CLUSTER_TOP)
        allowed = {t.key for t in ssn.unified_evictable(ctx, flatten(bundles))}
        if not allowed:
            return []
        valid = self.sort(ssn, job, apply_allowed(bundles, allowed), need)
        return [b for b in valid if args.allow_whole_bundle or b.type is not BundleType.WHOLE]

    @staticmethod
    def _plan(
        ssn: Session,
        placer: Placer,
        queue: QueueInfo,
        job: JobInfo,
        pending: Sequence[TaskInfo],
        victims: Sequence[TaskInfo],
    ) -> Statement | None:
        """``BuildNominationPlanInDomain``: evict the victims, pipeline every pending task;
        the statement if the job is then pipelined, else None with everything undone."""
        attempt = Statement(ssn)
        for victim in victims:
            attempt.evict(victim)
        for task in pending:
            row = -1 if ssn.allocatable(queue, task) is not None else placer.choose(task)
            if row < 0:
                attempt.discard()
                return None
            attempt.pipeline(task, row)
        if not ssn.job_pipelined(job):
            attempt.discard()
            return None
        return attempt
