"""task-topology (Volcano ``pkg/scheduler/plugins/task-topology``): affinity and anti-affinity
between the tasks of one job, from its PodGroup's ``volcano.sh/task-topology-affinity``,
``-anti-affinity`` and ``-task-order`` annotations (``ps,worker;ps,chief``: groups of task
names, ``;`` between groups).

Task order: tasks in a bucket before the others, the bigger bucket first, then the older,
and within a bucket the user's order, then the topology priority (self anti-affinity,
inter-affinity, self affinity, inter anti-affinity). Node order (``task-topology.weight``,
default 1): a node scores the bucket's tasks already bound there, minus the task's
anti-affine tasks placed there this session, plus the bucket's pending tasks less those that
would not fit the node's idle and releasing resources, times the weight, scaled to 100 by the
largest bucket; 0 on a node the task itself cannot fit. Differences: which pending tasks are
taken out of a bucket that does not fit follows the order they were dealt (upstream: Go map
order), and a task counts as bound once per session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import FloatVec
from services.scheduler.api.task import TaskStatus
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import Rows
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.task_topology_buckets import (
    JobManager,
    TopologyError,
    read_topology,
    task_name,
)
from shared.resources import CPU, MEMORY

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "task-topology"
WEIGHT = "task-topology.weight"
ARGUMENTS: tuple[str, ...] = (WEIGHT,)
MAX_SCORE = 100
_OUT_OF_BUCKET = (1, 0, 0, 0, 0)


class TaskTopologyPlugin(BasePlugin):
    name = NAME

    def __init__(self, args: Arguments) -> None:
        self.weight = args.integer(WEIGHT, 1)
        self.managers: dict[str, JobManager] = {}

    def on_session_open(self, ssn: Session) -> None:
        space = ssn.space
        self.nodes = ssn.nodes
        self.dims = np.array(space.quota_dims, dtype=np.intp)
        for job in ssn.jobs.values():
            if not job.counts[TaskStatus.PENDING]:
                continue
            try:
                topology = read_topology(job)
            except TopologyError:
                continue  # upstream logs it and leaves the job without a topology
            if topology is None:
                continue
            manager = JobManager(
                topology, width=len(space), cpu=space.index[CPU], memory=space.index[MEMORY]
            )
            manager.construct(job)
            self.managers[job.key] = manager
        # Without a job using it the plugin orders nothing and scores 0 everywhere, as upstream.
        if self.managers:
            ssn.points.task_order.add(NAME, self.task_order)
            ssn.points.node_order.add(NAME, self)
            ssn.points.on_allocate.add(NAME, self._allocated)

    def on_session_close(self, ssn: Session) -> None:
        self.managers = {}

    def _allocated(self, task: TaskInfo) -> None:
        manager = self.managers.get(task.job)
        if manager is not None and task.node >= 0:
            manager.task_bound(task, self.nodes.names[task.node])

    def task_order(self, task: TaskInfo) -> tuple[int, int, int, int, int]:
        """Upstream's TaskOrderFn as a key (smaller first)."""
        manager = self.managers.get(task.job)
        bucket = manager.bucket_of(task) if manager is not None else None
        if manager is None or bucket is None:
            return _OUT_OF_BUCKET
        order, priority = manager.rank(task_name(task))
        return (0, -len(bucket.tasks), bucket.index, -order, -priority)

    # -- node order -------------------------------------------------------------------------
    def row_local(self, task: TaskInfo) -> bool:
        manager = self.managers.get(task.job)
        return manager is None or manager.bucket_of(task) is None

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        return float(self.score(task, nodes, np.array([row], dtype=np.intp))[0])

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        candidates = np.arange(len(nodes))[rows]
        out = np.zeros(len(candidates), dtype=np.float64)
        manager = self.managers.get(task.job)
        bucket = manager.bucket_of(task) if manager is not None else None
        if manager is None or bucket is None or not len(candidates):
            return out
        dims = self.dims
        room = (nodes.idle[candidates] + nodes.releasing[candidates])[:, dims].astype(np.float64)
        never = np.any(room < task.qreq[dims], axis=1)
        index = nodes.index
        score = np.zeros(len(candidates), dtype=np.int64)
        for node, count in bucket.nodes.items():
            row = index.get(node)
            if row is not None:
                score[candidates == row] += count
        name = task_name(task)
        for row, names in manager.node_tasks.items():
            repelled = manager.affinity(name, names, only_anti=True)
            if repelled < 0:
                score[candidates == row] += repelled
        score += len(bucket.tasks)
        score -= self._taken_out(task, bucket.tasks, bucket.request[dims], room)
        result = score.astype(np.float64) * float(self.weight)
        if manager.max_size:
            result = result * float(MAX_SCORE) / float(manager.max_size)
        out = np.where(never, 0.0, result)
        return out

    def _taken_out(
        self, task: TaskInfo, pending: dict[str, TaskInfo], request: FloatVec, room: FloatVec
    ) -> np.ndarray[Any, np.dtype[np.int64]]:
        """How many other pending tasks of the bucket come out, in the order dealt, before
        what remains fits each node (all of them if it never does)."""
        short = ~np.all(request <= room, axis=1)
        taken = np.zeros(len(room), dtype=np.int64)
        if not short.any():
            return taken
        others = [t.qreq[self.dims] for key, t in pending.items() if key != task.key]
        if not others:
            return taken
        remains = request - np.cumsum(np.array(others), axis=0)  # after 1, 2, ... taken out
        fits = np.all(remains[None, :, :] <= room[short][:, None, :], axis=2)
        first = np.where(fits.any(axis=1), fits.argmax(axis=1) + 1, len(others))
        taken[short] = first
        return taken


def new(arguments: dict[str, Any]) -> TaskTopologyPlugin:
    return TaskTopologyPlugin(Arguments(arguments, known=ARGUMENTS))
