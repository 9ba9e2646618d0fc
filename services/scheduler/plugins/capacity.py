"""capacity: per-queue ``capability`` (hard limit), ``deserved`` (reclaim line) and
``guarantee`` (never reclaimed below). With ``enableHierarchy`` queues form a tree through
``spec.parent`` (root at the top): every limit is checked on the queue and its ancestors,
and only leaf queues take jobs.

Reclaim works per resource dimension, as Volcano's: a queue may reclaim while its future use
stays within ``deserved`` on at least one dimension the task asks for (and within its real
capability on all of them); a running task is a victim when it shares a dimension with the
reclaimer and either asks for nothing its queue is deserved (an "immediate victim") or its
queue holds more than deserved on a dimension the task uses and the deserved names.

With hierarchy, ``ancestorReclaimLevel`` (default 0: leaf queues only) extends both checks up
the tree: a queue that may not reclaim by its own deserved may by an ancestor's within that
many levels, and a victim must also exceed (or be an immediate victim of) the deserved of each
of its ancestors within the level that the reclaimer does not share; an immediate victim is
spared when the reclaimer shares an ancestor with it there and its own leaf deserves nothing it
asks for (no real contention). Victim queues sharing the deepest ancestor with the reclaimer's
go first. The gang actions' victim filter (``UnifiedEvictable``) keeps the leaf checks only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.resources import BoolVec, FloatVec, less_equal, less_equal_in, share
from services.scheduler.api.status import Status
from services.scheduler.framework.arguments import Arguments, warn_argument
from services.scheduler.framework.extension import (
    PERMIT,
    EvictionContext,
    EvictionKind,
    Verdict,
)
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.capacity_tree import ROOT, QueueTree
from services.scheduler.plugins.quota import (
    QueueAttr,
    account_job,
    describe,
    total_request,
    total_resource,
)

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "capacity"
OPEN = "Open"
# Volcano's ``minResource``: amounts below it count as zero.
MIN_RESOURCE = 0.1
ANCESTOR_RECLAIM_LEVEL = "ancestorReclaimLevel"


class CapacityPlugin(BasePlugin):
    name = NAME

    def __init__(self, ancestor_reclaim_level: int = 0) -> None:
        self.ancestor_level = ancestor_reclaim_level

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
        self.tree = QueueTree(self.parent if self.hierarchy else {})
        # Ancestor checks need the tree: without hierarchy the level is moot.
        self.level = self.ancestor_level if self.hierarchy else 0
        # Dimensions each queue's ``deserved`` names (Volcano keeps a scalar's key even at 0).
        self.deserved_dims = {name: self._named(q) for name, q in ssn.queues.items()}
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
            deserved = np.minimum(deserved, real)
            attr.deserved = np.maximum(deserved, attr.guarantee)
            attr.share = self._share(attr)
        ssn.points.queue_order.add(NAME, self.queue_key)
        ssn.points.allocatable.add(NAME, self.allocatable)
        ssn.points.preemptive.add(NAME, self.preemptive)
        ssn.points.reclaimable.add(NAME, self.reclaimable)
        ssn.points.unified_evictable.add(NAME, self.unified_evictable)
        if self.hierarchy:
            ssn.points.victim_queue_order.add(NAME, self.victim_queue_key)
        ssn.points.job_enqueueable.add(NAME, self.enqueueable)
        ssn.points.job_enqueued.add(NAME, self.enqueued)
        ssn.points.on_allocate.add(NAME, self.on_allocate)
        ssn.points.on_deallocate.add(NAME, self.on_deallocate)

    def _named(self, queue: QueueInfo) -> BoolVec:
        space = self.ssn.space
        named = queue.deserved > 0
        for name in queue.queue.spec.deserved or {}:
            if name in space.index and name not in ("cpu", "memory"):
                named[space.index[name]] = True
        named[space.pods] = False
        return named

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

    def _limit(self, queue: str, request: FloatVec, line: str) -> Status | None:
        dims = request > 0
        for attr in self._chain(queue):
            limit = attr.real_capability if line == "capability" else attr.deserved
            if not less_equal_in(attr.allocated + request, limit, dims):
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

    def _closed(self, queue: QueueInfo, what: str) -> Status | None:
        if queue.state == OPEN:
            return None
        return Status(
            reason="QueueNotOpen",
            message=f"queue {queue.name} is {queue.state}, not Open: {what}",
            plugin=NAME,
        )

    def _not_leaf(self, queue: str) -> Status | None:
        if not (self.hierarchy and queue in self.children):
            return None
        return Status(
            reason="QueueNotLeaf",
            message=f"queue {queue} has child queues; jobs go to leaf queues",
            plugin=NAME,
        )

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> Status | None:
        return (
            self._closed(queue, "no new tasks")
            or self._not_leaf(queue.name)
            or self._limit(queue.name, task.qreq, "capability")
        )

    def preemptive(self, queue: QueueInfo, tasks: Sequence[TaskInfo]) -> Status | None:
        """Volcano's PreemptiveFn: future use within the real capability on every dimension
        the tasks ask for, and within ``deserved`` on at least one of them (the queue's own,
        or an ancestor's within ``ancestorReclaimLevel``)."""
        closed = self._closed(queue, "cannot reclaim")
        if closed is not None or queue.name not in self.attrs:
            return closed
        attr = self.attrs[queue.name]
        req = total_request(self.ssn.space, tasks)
        asked = req > 0
        if not less_equal_in(attr.allocated + req, attr.real_capability, asked):
            return self._limit(queue.name, req, "capability")
        if _partly_within(attr.allocated + req, attr.deserved, asked):
            return None
        for depth in range(1, self.level + 1):
            ancestor = self.tree.at_depth(queue.name, depth)
            if ancestor is None or ancestor == ROOT or ancestor not in self.attrs:
                continue
            upper = self.attrs[ancestor]
            if _partly_within(upper.allocated + req, upper.deserved, asked):
                return None
        space = self.ssn.space
        return Status(
            reason="QueueDeserved",
            message=(
                f"queue {queue.name} deserved {describe(space, attr.deserved)} would be exceeded"
                f" on every dimension the task asks for (allocated"
                f" {describe(space, attr.allocated)})"
            ),
            plugin=NAME,
        )

    def _immediate(self, task: TaskInfo, queue: str) -> bool:
        """``isImmediateVictim``: the task asks for nothing the queue is deserved."""
        return not np.any((task.qreq > 0) & (self.attrs[queue].deserved > 0))

    def _exceeds(self, task: TaskInfo, queue: str, allocated: FloatVec) -> bool:
        """``GreaterPartlyWithRelevantDimensions``: the queue holds more than deserved on a
        dimension the task uses and the deserved names."""
        relevant = (task.qreq > 0) & self.deserved_dims[queue]
        return bool(np.any(relevant & (allocated > self.attrs[queue].deserved)))

    def reclaimable(
        self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """Volcano's ReclaimableFn, candidates taken in victim order."""
        jobs = self.ssn.jobs
        mine = jobs[reclaimer.job].queue
        victims = []
        allocations: dict[str, FloatVec] = {}
        for task in self.ssn.victim_order(candidates, self.ssn.queues.get(mine)):
            queue = jobs[task.job].queue
            attr = self.attrs.get(queue)
            if attr is None or not np.any((task.qreq > 0) & (reclaimer.qreq > 0)):
                continue
            allocated = allocations.setdefault(queue, attr.allocated.copy())
            if not less_equal(attr.guarantee, allocated - task.qreq):
                continue
            if self._immediate(task, queue):
                # No real contention: both sides under one ancestor, the reclaimer's own
                # leaf deserving nothing it asks for.
                if (
                    self.level > 0
                    and mine in self.attrs
                    and self.tree.shares_non_root_ancestor(mine, queue, self.level)
                    and self._immediate(reclaimer, mine)
                ):
                    continue
            elif not self._exceeds(task, queue, allocated):
                continue
            uppers = self._ancestors_exceeded(task, mine, queue, allocations)
            if uppers is None:
                continue
            for held in (allocated, *uppers):
                held -= task.qreq
            victims.append(task)
        return victims, PERMIT

    def _ancestors_exceeded(
        self, task: TaskInfo, mine: str, queue: str, allocations: dict[str, FloatVec]
    ) -> list[FloatVec] | None:
        """The allocations of the ancestors checked for ``task``, or None when one of them
        is within its deserved on every dimension the task uses."""
        checked: list[FloatVec] = []
        for depth in range(1, self.level + 1):
            ancestor = self.tree.ancestor_to_check(mine, queue, depth)
            if ancestor is None:
                continue
            if ancestor not in self.attrs:
                return None
            held = allocations.setdefault(ancestor, self.attrs[ancestor].allocated.copy())
            checked.append(held)  # one ancestor per depth: never twice
            if self._immediate(task, ancestor):
                continue
            if not self._exceeds(task, ancestor, held):
                return None
        return checked

    def unified_evictable(
        self, ctx: EvictionContext, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """gangpreempt: every candidate (capacity filters no preemption); gangreclaim: the
        guarantee and leaf deserved checks, without the shared-dimension skip."""
        if ctx.kind is not EvictionKind.GANG_RECLAIM:
            return list(candidates), PERMIT
        victims = []
        allocations: dict[str, FloatVec] = {}
        for task in candidates:
            queue = self.ssn.jobs[task.job].queue
            attr = self.attrs.get(queue)
            if attr is None:
                continue
            allocated = allocations.setdefault(queue, attr.allocated.copy())
            if not less_equal(attr.guarantee, allocated - task.qreq):
                continue
            if self._immediate(task, queue) or self._exceeds(task, queue, allocated):
                allocated -= task.qreq
                victims.append(task)
        return victims, PERMIT

    def victim_queue_key(self, queue: QueueInfo, preemptor: QueueInfo) -> float:
        """Capacity's VictimQueueOrderFn: the queue sharing the deeper ancestor first."""
        return -float(self.tree.level(queue.name, preemptor.name))

    def enqueueable(self, job: JobInfo) -> Verdict:
        refused = self._not_leaf(job.queue)
        queue = self.ssn.queues.get(job.queue)
        if refused is None and queue is not None:
            refused = self._closed(queue, "job not enqueued")
        if refused is not None:
            return refused
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
    args = Arguments(arguments, known=(ANCESTOR_RECLAIM_LEVEL,))
    level = args.integer(ANCESTOR_RECLAIM_LEVEL, 0)
    if level < 0:
        warn_argument(f"{ANCESTOR_RECLAIM_LEVEL} should be non-negative, got {level}; using 0")
        level = 0
    return CapacityPlugin(level)


def _partly_within(future: FloatVec, deserved: FloatVec, asked: BoolVec) -> bool:
    """``LessEqualPartlyWithDimensionZeroFiltered``: within deserved on at least one asked
    dimension, dimensions where both sides are (near) zero left out."""
    dims = asked & ~((future < MIN_RESOURCE) & (deserved < MIN_RESOURCE))
    within = (future <= deserved) | (np.abs(future - deserved) < MIN_RESOURCE)
    return bool(np.any(dims & within))
