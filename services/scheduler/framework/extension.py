"""Extension points: the callbacks plugins register (what a plugin is: ``interface``).

Order functions are *keys* (smaller sorts first): comparing the tuple of enabled plugins' keys
lexicographically is exactly Volcano's "first plugin with a non-zero comparison wins", and
keys let the actions use heaps without calling comparators. Node filters and scores are
vectorised: a static predicate judges a node *class* once per pod shape, a dynamic predicate
returns a mask over all nodes, and a scorer fills a float array for the rows asked for.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
import numpy as np

from services.scheduler.api import JobInfo, NodeTable, QueueInfo, TaskInfo
from services.scheduler.api.node import NodeClass
from services.scheduler.api.resources import BoolVec, FloatVec
from services.scheduler.api.status import Status
from services.scheduler.api.sub_job import SubJobInfo

PERMIT = 1
ABSTAIN = 0
# A vote: PERMIT, ABSTAIN, or a Status explaining the rejection.
Verdict = int | Status
Rows = slice | np.ndarray[Any, np.dtype[np.intp]]

JobOrderKey = Callable[[JobInfo], float | tuple[float, ...]]
TaskOrderKey = Callable[[TaskInfo], float | tuple[float, ...]]
QueueOrderKey = Callable[[QueueInfo], float | tuple[float, ...]]
# (victim queue, preemptor queue) -> key; victims of the smaller key go first.
VictimQueueKey = Callable[[QueueInfo, QueueInfo], float]
JobCheck = Callable[[JobInfo], bool]
JobValidFn = Callable[[JobInfo], Status | None]
JobVoteFn = Callable[[JobInfo], Verdict]
JobEvent = Callable[[JobInfo], None]
QueueCheck = Callable[[QueueInfo], Status | None]
QueueTaskCheck = Callable[[QueueInfo, TaskInfo], Status | None]
# Volcano's PreemptiveFn: may the queue reclaim for all these tasks together?
QueueTasksCheck = Callable[[QueueInfo, Sequence[TaskInfo]], Status | None]
# (preemptor, candidates) -> (victims, vote): vote ABSTAIN means "no opinion".
VictimFn = Callable[[TaskInfo, Sequence[TaskInfo]], tuple[list[TaskInfo], int]]
TaskEvent = Callable[[TaskInfo], None]
# Volcano's ``VictimTasksFn``: tasks to evict now, whoever wants their room (shuffle action).
VictimTasksFn = Callable[[Sequence[TaskInfo]], list[TaskInfo]]
# (job, HyperNode to search under) -> the eligible HyperNodes grouped by tier, lowest first
# (Volcano's ``HyperNodeGradientForJobFn``).
HyperNodeGradientFn = Callable[[JobInfo, str], list[list[str]]]
# (sub-job, HyperNode to search under) -> its eligible HyperNodes by tier, lowest first
# (Volcano's ``HyperNodeGradientForSubJobFn``).
SubJobGradientFn = Callable[[SubJobInfo, str], list[list[str]]]
SubJobCheck = Callable[[SubJobInfo], bool]
SubJobVoteFn = Callable[[SubJobInfo], "Verdict"]
SubJobOrderKey = Callable[[SubJobInfo], float | tuple[float, ...]]


class TaskGroup(Protocol):
    """What HyperNode scores read of a job or a sub-job (upstream scores a sub-job; a job
    without ``subGroupPolicy`` is its own one sub-job)."""

    @property
    def tasks(self) -> dict[str, TaskInfo]: ...


# (job or sub-job, candidate HyperNodes) -> score per HyperNode (Volcano's ``HyperNodeOrderFn``).
HyperNodeOrderFn = Callable[[TaskGroup, Sequence[str]], dict[str, float]]


class EvictionKind(enum.Enum):
    """Who evicts (Volcano ``api.EvictionKind``). Volcano also names the task-level preempt
    and reclaim, which do not call ``UnifiedEvictable`` yet; Shoal leaves them out."""

    GANG_PREEMPT = "gangpreempt"
    GANG_RECLAIM = "gangreclaim"


@dataclass(frozen=True, slots=True)
class EvictionContext:
    """The evicting job and the domain it evicts in."""

    kind: EvictionKind
    job: JobInfo
    hyper_node: str = ""


# (context, candidates) -> (victims, vote): Volcano's UnifiedEvictableFn.
UnifiedEvictableFn = Callable[[EvictionContext, Sequence[TaskInfo]], tuple[list[TaskInfo], int]]


class StaticPredicate(Protocol):
    """Depends only on the pod's shape and the node's class (labels, taints, flags)."""

    def __call__(self, task: TaskInfo, node: NodeClass) -> Status | None: ...


class Filter(msgspec.Struct, frozen=True):
    """A dynamic predicate's answer: which nodes pass, and why the others fail."""

    passed: BoolVec
    failures: tuple[tuple[Status, BoolVec], ...] = ()


class DynamicPredicate(Protocol):
    """Depends on what is placed where (pod affinity); ``None`` means "no constraint"."""

    def __call__(self, task: TaskInfo, nodes: NodeTable) -> Filter | None: ...


class NodeScorer(Protocol):
    """Scores nodes for a task; higher is better. Volcano's node-order and batch-node-order."""

    def row_local(self, task: TaskInfo) -> bool:
        """True if a node's score depends only on that node's row (so it can be cached)."""
        ...

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec: ...

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        """``score`` for one row in plain Python, bit-identical (the hot path after a placement)."""
        ...
