"""A scheduling session: the cluster copy, the plugins' callbacks, and Volcano's tier rules.

Plugins register callbacks per extension point when the session opens; the session combines
them exactly as Volcano does: order keys compared plugin by plugin in tier order, job ready
and valid as an AND, enqueue and pipeline as tiered votes, victims intersected within a tier
with the first deciding tier winning. Decisions accumulate here until the session closes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from services.scheduler.api import JobInfo, NodeTable, QueueInfo, TaskInfo, TaskStatus
from services.scheduler.api.cluster import Cluster
from services.scheduler.api.status import Status
from services.scheduler.conf import PluginOption
from services.scheduler.framework import extension as ext
from services.scheduler.framework.statement import Op

# Extension point → the PluginOption flag that switches it (None: always on).
POINT_FLAGS: dict[str, str | None] = {
    "job_order": "enableJobOrder",
    "task_order": "enableTaskOrder",
    "queue_order": "enableQueueOrder",
    "job_valid": None,
    "job_ready": "enableJobReady",
    "job_pipelined": "enableJobPipelined",
    "job_starving": "enableJobStarving",
    "job_enqueueable": "enableJobEnqueued",
    "job_enqueued": "enableJobEnqueued",
    "overused": "enabledOverused",
    "allocatable": "enabledAllocatable",
    "preemptive": "enablePreemptive",
    "preemptable": "enablePreemptable",
    "reclaimable": "enableReclaimable",
    "static_predicate": "enablePredicate",
    "dynamic_predicate": "enablePredicate",
    "node_order": "enableNodeOrder",
    "on_allocate": None,
    "on_deallocate": None,
}


class Session:
    """Holds the cluster and plugin callbacks; actions drive it, statements change it."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        tiers: Sequence[Sequence[PluginOption]],
        plugins: Sequence[ext.Plugin],
        actions: Sequence[str],
        now: datetime,
    ) -> None:
        self.cluster = cluster
        self.space = cluster.space
        self.nodes: NodeTable = cluster.nodes
        self.jobs: dict[str, JobInfo] = cluster.jobs
        self.queues: dict[str, QueueInfo] = cluster.queues
        self.tiers = [list(tier) for tier in tiers]
        self.plugins = list(plugins)
        self.actions = tuple(actions)
        self.now = now
        self._fns: dict[str, dict[str, Any]] = {point: {} for point in POINT_FLAGS}
        self._tiered: dict[str, list[list[tuple[str, Any]]]] = {}
        self._flat: dict[str, list[Any]] = {}
        self.binds: dict[str, str] = {}
        self.pipelined: dict[str, str] = {}
        self.evictions: list[str] = []
        # Conditions set during the session, by job key then condition type.
        self.conditions: dict[str, dict[str, Status]] = {}

    # -- registration -------------------------------------------------------------------
    def register(self, point: str, plugin: str, fn: Any) -> None:
        if point not in self._fns:
            raise ValueError(f"unknown extension point {point!r}")
        self._fns[point][plugin] = fn

    def seal(self) -> None:
        """Resolve which callbacks are on, per tier, once every plugin has registered."""
        for point, flag in POINT_FLAGS.items():
            fns = self._fns[point]
            tiered = [
                [
                    (option.name, fns[option.name])
                    for option in tier
                    if option.name in fns and (flag is None or self._enabled(option, flag))
                ]
                for tier in self.tiers
            ]
            self._tiered[point] = tiered
            self._flat[point] = [fn for tier in tiered for _, fn in tier]

    @staticmethod
    def _enabled(option: PluginOption, flag: str) -> bool:
        return option.enabled(flag)

    def callbacks(self, point: str) -> list[Any]:
        return self._flat[point]

    # -- ordering ---------------------------------------------------------------------
    def job_order_key(self, job: JobInfo) -> tuple[Any, ...]:
        return (*(fn(job) for fn in self._flat["job_order"]), job.created, job.key)

    def task_order_key(self, task: TaskInfo) -> tuple[Any, ...]:
        """Plugin keys, then Volcano's ``CompareTask``: pod index, creation, uid."""
        return (*(fn(task) for fn in self._flat["task_order"]), task.index, task.created, task.key)

    def queue_order_key(self, queue: QueueInfo) -> tuple[Any, ...]:
        return (*(fn(queue) for fn in self._flat["queue_order"]), queue.created, queue.name)

    # -- job checks -------------------------------------------------------------------
    def job_valid(self, job: JobInfo) -> Status | None:
        for fn in self._flat["job_valid"]:
            status: Status | None = fn(job)
            if status is not None:
                return status
        return None

    def job_ready(self, job: JobInfo) -> bool:
        return all(fn(job) for fn in self._flat["job_ready"])

    def job_pipelined(self, job: JobInfo) -> bool:
        return self._vote("job_pipelined", job, record=False)

    def job_starving(self, job: JobInfo) -> bool:
        for tier in self._tiered["job_starving"]:
            for _, fn in tier:
                if not fn(job):
                    return False
            if tier:
                return True
        return False

    def job_enqueueable(self, job: JobInfo) -> bool:
        return self._vote("job_enqueueable", job, record=True)

    def job_enqueued(self, job: JobInfo) -> None:
        for fn in self._flat["job_enqueued"]:
            fn(job)

    def _vote(self, point: str, job: JobInfo, *, record: bool) -> bool:
        """Tiered votes: any rejection loses; a permit ends the search at its tier."""
        for tier in self._tiered[point]:
            permitted = False
            for _, fn in tier:
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
        for fn in self._flat["overused"]:
            status: Status | None = fn(queue)
            if status is not None:
                return status
        return None

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        for fn in self._flat["allocatable"]:
            status: Status | None = fn(queue, task)
            if status is not None:
                return status
        return None

    def preemptive(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        for fn in self._flat["preemptive"]:
            status: Status | None = fn(queue, task)
            if status is not None:
                return status
        return None

    # -- victims ----------------------------------------------------------------------
    def preemptable(self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        return self._victims("preemptable", preemptor, candidates)

    def reclaimable(self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        return self._victims("reclaimable", reclaimer, candidates)

    def _victims(
        self, point: str, preemptor: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> list[TaskInfo]:
        """Intersect the victims of a tier's plugins; the first tier with victims decides.

        As Volcano: a plugin answering "no victims" ends its tier's vote with none, and the
        next tier is asked (a lower tier may then find victims a higher one protected).
        """
        for tier in self._tiered[point]:
            victims: list[TaskInfo] | None = None
            for _, fn in tier:
                found, vote = fn(preemptor, candidates)
                if vote == ext.ABSTAIN:
                    continue
                if not found:
                    return []
                if victims is None:
                    victims = list(found)
                else:
                    keys = {t.key for t in found}
                    victims = [t for t in victims if t.key in keys]
            if victims:
                return victims
        return []

    # -- state changes (used by Statement) ----------------------------------------------
    def _fire(self, point: str, task: TaskInfo) -> None:
        for fn in self._flat[point]:
            fn(task)

    def apply_allocate(self, task: TaskInfo, row: int) -> None:
        self.jobs[task.job].set_status(task, TaskStatus.ALLOCATED)
        self.nodes.add(row, task)
        self._fire("on_allocate", task)

    def apply_pipeline(self, task: TaskInfo, row: int) -> None:
        self.jobs[task.job].set_status(task, TaskStatus.PIPELINED)
        self.nodes.add(row, task)
        self._fire("on_allocate", task)

    def apply_evict(self, task: TaskInfo) -> None:
        row = task.node
        self.nodes.remove(row, task)
        self.jobs[task.job].set_status(task, TaskStatus.RELEASING)
        self.nodes.add(row, task)
        self._fire("on_deallocate", task)

    def undo(self, op: Op, task: TaskInfo) -> None:
        job = self.jobs[task.job]
        row = task.node
        self.nodes.remove(row, task)
        if op is Op.EVICT:
            job.set_status(task, TaskStatus.RUNNING)
            self.nodes.add(row, task)
            self._fire("on_allocate", task)
        else:
            job.set_status(task, TaskStatus.PENDING)
            self._fire("on_deallocate", task)

    def record(self, op: Op, task: TaskInfo, row: int, *, reserved: bool) -> None:
        node = self.nodes.names[row]
        if op is Op.EVICT:
            self.evictions.append(task.key)
        elif op is Op.ALLOCATE and not reserved:
            self.binds[task.key] = node
        else:
            self.pipelined[task.key] = node

    # -- conditions ---------------------------------------------------------------------
    def set_condition(self, job: JobInfo, condition_type: str, status: Status) -> None:
        self.conditions.setdefault(job.key, {})[condition_type] = status
