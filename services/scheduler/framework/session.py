"""A scheduling session: the cluster copy, the plugins' callbacks, and Volcano's tier rules.

Plugins register callbacks per extension point when the session opens; the session combines
them exactly as Volcano does: order keys compared plugin by plugin in tier order, job ready
and valid as an AND, enqueue and pipeline as tiered votes, victims intersected within a tier
with the first deciding tier winning. Decisions accumulate here until the session closes.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from services.scheduler.api import JobInfo, NodeTable, QueueInfo, TaskInfo, TaskStatus
from services.scheduler.api.cluster import Cluster
from services.scheduler.api.status import Status
from services.scheduler.api.sub_job import GroupedJobInfo, SubJobInfo
from services.scheduler.conf import PluginOption
from services.scheduler.framework import extension as ext
from services.scheduler.framework.points import ExtensionPoint, ExtensionPoints
from services.scheduler.framework.topology import Topology, open_topology

F = TypeVar("F")


class Op(enum.Enum):
    """What a statement did to a task; the session applies, undoes and records it."""

    ALLOCATE = "allocate"
    PIPELINE = "pipeline"
    EVICT = "evict"


_ALLOCATED = TaskStatus.ALLOCATED
_EVICT, _ALLOCATE_OP = Op.EVICT, Op.ALLOCATE


class Session:
    """Holds the cluster and plugin callbacks; actions drive it, statements change it."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        tiers: Sequence[Sequence[PluginOption]],
        plugins: Sequence[object],
        actions: Sequence[str],
        now: datetime,
        configurations: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.cluster = cluster
        self.space = cluster.space
        self.nodes: NodeTable = cluster.nodes
        self.jobs: dict[str, JobInfo] = cluster.jobs
        self.queues: dict[str, QueueInfo] = cluster.queues
        self.tiers = [list(tier) for tier in tiers]
        # The session's plugins, for whoever looks one up by its type (tests, tools); the
        # session itself only calls their callbacks.
        self.plugins: list[object] = list(plugins)
        self.actions = tuple(actions)
        # Per-action arguments (the conf's ``configurations``), read by the actions.
        self.configurations: Mapping[str, Mapping[str, Any]] = configurations or {}
        self.now = now
        self.points = ExtensionPoints()
        self.binds: dict[str, str] = {}
        self.pipelined: dict[str, str] = {}
        self.evictions: list[str] = []
        # Conditions set during the session, by job key then condition type.
        self.conditions: dict[str, dict[str, Status]] = {}
        # HyperNodes and jobs' network topology; None when the cluster has no HyperNodes.
        self.topology: Topology | None = (
            open_topology(cluster.hyper_nodes, self.nodes, self.jobs.values())
            if cluster.hyper_nodes
            else None
        )

    def close(self) -> None:
        """Drop the plugins and their callbacks: each plugin holds the session, so the session
        and its whole cluster would otherwise wait for the cyclic collector (after a large
        session, a gen-0 collection walking every task) instead of going when the caller
        lets go of them."""
        self.plugins = []
        self.points = ExtensionPoints()

    def seal(self) -> None:
        """Resolve which callbacks are on, per tier, once every plugin has registered."""
        self.points.seal(self.tiers)

    # -- ordering ---------------------------------------------------------------------
    def job_order_key(self, job: JobInfo) -> tuple[Any, ...]:
        return (*[fn(job) for fn in self.points.job_order.all], job.created, job.key)

    def task_order_key(self, task: TaskInfo) -> tuple[Any, ...]:
        """Plugin keys, then Volcano's ``CompareTask``: pod index, creation, uid."""
        return (
            *[fn(task) for fn in self.points.task_order.all],
            task.index,
            task.created,
            task.key,
        )

    def queue_order_key(self, queue: QueueInfo) -> tuple[Any, ...]:
        return (*(fn(queue) for fn in self.points.queue_order.all), queue.created, queue.name)

    # -- job checks -------------------------------------------------------------------
    def job_valid(self, job: JobInfo) -> Status | None:
        for fn in self.points.job_valid.all:
            status: Status | None = fn(job)
            if status is not None:
                return status
        return None

    def job_ready(self, job: JobInfo) -> bool:
        ready = True
        for fn in self.points.job_ready.all:  # asked per task placed: no generator
            ready = ready and fn(job)
        return ready

    def job_pipelined(self, job: JobInfo) -> bool:
        return self._vote(self.points.job_pipelined, job, record=False)

    def job_starving(self, job: JobInfo) -> bool:
        for tier in self.points.job_starving.tiers:
            for fn in tier:
                if not fn(job):
                    return False
            if tier:
                return True
        return False

    # -- sub-jobs (``subGroupPolicy``) ------------------------------------------------------
    def sub_job_ready(self, job: JobInfo, sub: SubJobInfo) -> bool:
        """Volcano's ``SubJobReady``: a job without policies is its own sub-job."""
        if not isinstance(job, GroupedJobInfo):
            return self.job_ready(job)
        return all(fn(sub) for fn in self.points.sub_job_ready.all)

    def sub_job_pipelined(self, job: JobInfo, sub: SubJobInfo) -> bool:
        """Volcano's ``SubJobPipelined``: tiered votes, as ``job_pipelined``."""
        if not isinstance(job, GroupedJobInfo):
            return self.job_pipelined(job)
        for tier in self.points.sub_job_pipelined.tiers:
            permitted = False
            for fn in tier:
                verdict: ext.Verdict = fn(sub)
                if isinstance(verdict, Status):
                    return False
                permitted = permitted or verdict > 0
            if permitted:
                return True
        return True

    def sub_job_order_key(self, sub: SubJobInfo) -> tuple[Any, ...]:
        """Volcano's ``SubJobOrderFn``: plugin keys, then the match index, then the uid."""
        return (*(fn(sub) for fn in self.points.sub_job_order.all), sub.match_index, sub.uid)

    def job_enqueueable(self, job: JobInfo) -> bool:
        return self._vote(self.points.job_enqueueable, job, record=True)

    def job_enqueued(self, job: JobInfo) -> None:
        for fn in self.points.job_enqueued.all:
            fn(job)

    def _vote(self, point: ExtensionPoint[ext.JobVoteFn], job: JobInfo, *, record: bool) -> bool:
        """Tiered votes: any rejection loses; a permit ends the search at its tier."""
        for tier in point.tiers:
            permitted = False
            for fn in tier:
                verdict: ext.Verdict = fn(job)
                if isinstance(verdict, Status):
                    if record:
                        job.record(verdict)
                    return False
                permitted = permitted or verdict > 0
            if permitted:
                return True
        return True

    # -- queue checks -----------------------------------------------------------------
    def overused(self, queue: QueueInfo) -> Status | None:
        for fn in self.points.overused.all:
            status: Status | None = fn(queue)
            if status is not None:
                return status
        return None

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        for fn in self.points.allocatable.all:
            status: Status | None = fn(queue, task)
            if status is not None:
                return status
        return None

    def preemptive(self, queue: QueueInfo, tasks: Sequence[TaskInfo]) -> Status | None:
        """May ``queue`` reclaim for all of ``tasks`` together (Volcano ``Preemptive``)?"""
        for fn in self.points.preemptive.all:
            status: Status | None = fn(queue, tasks)
            if status is not None:
                return status
        return None

    # -- victims ----------------------------------------------------------------------
    def preemptable(self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        return self._victims(self.points.preemptable, lambda fn: fn(preemptor, candidates))

    def reclaimable(self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        return self._victims(self.points.reclaimable, lambda fn: fn(reclaimer, candidates))

    def unified_evictable(
        self, ctx: ext.EvictionContext, candidates: Sequence[TaskInfo]
    ) -> list[TaskInfo]:
        """The gang actions' victim filter (Volcano ``UnifiedEvictable``), tiered as
        ``preemptable``."""
        return self._victims(self.points.unified_evictable, lambda fn: fn(ctx, candidates))

    @staticmethod
    def _victims(
        point: ExtensionPoint[F], vote: Callable[[F], tuple[list[TaskInfo], int]]
    ) -> list[TaskInfo]:
        """Intersect the victims of a tier's plugins; the first tier that votes decides.

        Unlike Volcano, a plugin answering "no victims" is a veto, not an undecided tier:
        otherwise drf in a lower tier could evict a higher-priority job that the priority
        plugin just protected.
        """
        for tier in point.tiers:
            victims: list[TaskInfo] | None = None
            for fn in tier:
                found, verdict = vote(fn)
                if verdict == ext.ABSTAIN:
                    continue
                if not found:
                    return []
                if victims is None:
                    victims = list(found)
                else:
                    keys = {t.key for t in found}
                    victims = [t for t in victims if t.key in keys]
            if victims is not None:
                return victims
        return []

    def victim_queue_key(self, queue: QueueInfo, preemptor: QueueInfo) -> tuple[float, ...]:
        """Volcano's ``VictimQueueOrderFn`` plugin part: smaller keys are evicted first."""
        return tuple(fn(queue, preemptor) for fn in self.points.victim_queue_order.all)

    def victim_order(
        self, victims: Sequence[TaskInfo], preemptor: QueueInfo | None
    ) -> list[TaskInfo]:
        """Volcano's ``BuildVictimsPriorityQueue``: victims of the queue first in victim-queue
        order (plugin keys against the ``preemptor``'s queue), else last in queue order; then
        of the job last in job order; then the task last in task order."""
        keys = {}
        for task in victims:
            job = self.jobs[task.job]
            queue = self.queues[job.queue]
            keys[task.key] = (
                self.victim_queue_key(queue, preemptor) if preemptor is not None else (),
                self.queue_order_key(queue),
                self.job_order_key(job),
                self.task_order_key(task),
            )

        def compare(left: TaskInfo, right: TaskInfo) -> int:
            lk, rk = keys[left.key], keys[right.key]
            if left.job != right.job:
                if self.jobs[left.job].queue != self.jobs[right.job].queue:
                    if lk[0] != rk[0]:
                        return -1 if lk[0] < rk[0] else 1
                    return descending(lk[1], rk[1])
                if lk[2] != rk[2]:
                    return descending(lk[2], rk[2])
            return descending(lk[3], rk[3])

        return sorted(victims, key=functools.cmp_to_key(compare))

    def victim_tasks(self, tasks: Sequence[TaskInfo]) -> list[TaskInfo]:
        """Volcano's ``VictimTasks``: the union of a tier's answers (each task once); the
        first tier naming any victim decides."""
        for tier in self.points.victim_tasks.tiers:
            victims: dict[str, TaskInfo] = {}
            for fn in tier:
                for task in fn(tasks):
                    victims.setdefault(task.key, task)
            if victims:
                return list(victims.values())
        return []

    # -- network topology ---------------------------------------------------------------
    def hyper_node_gradient(self, job: JobInfo, hyper_node: str) -> list[list[str]]:
        """The first enabled plugin's gradients, else only ``hyper_node`` (Volcano's
        ``HyperNodeGradientForJobFn``)."""
        for fn in self.points.hyper_node_gradient.all:
            return fn(job, hyper_node)
        return [[hyper_node]]

    def hyper_node_gradient_for_sub_job(self, sub: SubJobInfo, hyper_node: str) -> list[list[str]]:
        """Volcano's ``HyperNodeGradientForSubJobFn``: the first enabled plugin's gradients,
        else only ``hyper_node``."""
        for fn in self.points.hyper_node_gradient_for_sub_job.all:
            return fn(sub, hyper_node)
        return [[hyper_node]]

    def hyper_node_scores(
        self, group: ext.TaskGroup, candidates: Sequence[str]
    ) -> dict[str, float]:
        """Every enabled plugin's HyperNode scores for a job or sub-job, summed (0 without
        any)."""
        total = dict.fromkeys(candidates, 0.0)
        for fn in self.points.hyper_node_order.all:
            for name, score in fn(group, candidates).items():
                total[name] = total.get(name, 0.0) + score
        return total

    # -- state changes (used by Statement) ----------------------------------------------
    @staticmethod
    def _fire(point: ExtensionPoint[ext.TaskEvent], task: TaskInfo) -> None:
        for fn in point.all:
            fn(task)

    def apply_allocate(self, task: TaskInfo, row: int) -> None:
        self.jobs[task.job].set_status(task, _ALLOCATED)
        self.nodes.add(row, task)
        for fn in self.points.on_allocate.all:
            fn(task)

    def apply_pipeline(self, task: TaskInfo, row: int) -> None:
        self.jobs[task.job].set_status(task, TaskStatus.PIPELINED)
        self.nodes.add(row, task)
        self._fire(self.points.on_allocate, task)

    def apply_evict(self, task: TaskInfo) -> None:
        row = task.node
        self.nodes.remove(row, task)
        self.jobs[task.job].set_status(task, TaskStatus.RELEASING)
        self.nodes.add(row, task)
        self._fire(self.points.on_deallocate, task)

    def simulate_remove(self, task: TaskInfo) -> int:
        """Take a placed task off its node for a dry run (Volcano ``SimulateRemoveTaskFn``
        on a node copy): its resources free and no predicate sees it; returns its row."""
        row = task.node
        self.nodes.remove(row, task)
        self._fire(self.points.on_deallocate, task)
        return row

    def simulate_add(self, task: TaskInfo, row: int) -> None:
        """Undo ``simulate_remove`` (Volcano ``SimulateAddTaskFn``)."""
        self.nodes.add(row, task)
        self._fire(self.points.on_allocate, task)

    def undo(self, op: Op, task: TaskInfo) -> None:
        job = self.jobs[task.job]
        row = task.node
        self.nodes.remove(row, task)
        if op is Op.EVICT:
            job.set_status(task, TaskStatus.RUNNING)
            self.nodes.add(row, task)
            self._fire(self.points.on_allocate, task)
        else:
            job.set_status(task, TaskStatus.PENDING)
            self._fire(self.points.on_deallocate, task)

    def record(self, op: Op, task: TaskInfo, row: int, *, reserved: bool) -> None:
        node = self.nodes.names[row]
        if op is _EVICT:
            self.evictions.append(task.key)
        elif op is _ALLOCATE_OP and not reserved:
            self.binds[task.key] = node
        else:
            self.pipelined[task.key] = node

    # -- conditions ---------------------------------------------------------------------
    def set_condition(self, job: JobInfo, condition_type: str, status: Status) -> None:
        self.conditions.setdefault(job.key, {})[condition_type] = status


def descending(left: Any, right: Any) -> int:
    """A comparison putting the later of an order first (Volcano's ``!OrderFn(l, r)``)."""
    if left == right:
        return 0
    return 1 if left < right else -1
