"""A Statement records allocate/pipeline/evict operations so a gang lands as a whole.

Operations take effect in the session at once (later tasks see the resources as taken);
``commit`` turns them into decisions, ``discard`` undoes them in reverse order and ``keep``
leaves them reserved for the rest of the session without binding (a pipelined gang).
"""

from __future__ import annotations

from services.scheduler.api import TaskInfo
from services.scheduler.framework.session import Op, Session

_ALLOCATE = Op.ALLOCATE  # looked up once: the enum attribute costs a lookup per task


class Statement:
    __slots__ = ("ops", "ssn")

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.ops: list[tuple[Op, TaskInfo, int]] = []

    def allocate(self, task: TaskInfo, row: int) -> None:
        self.ssn.apply_allocate(task, row)
        self.ops.append((_ALLOCATE, task, row))

    def pipeline(self, task: TaskInfo, row: int) -> None:
        self.ssn.apply_pipeline(task, row)
        self.ops.append((Op.PIPELINE, task, row))

    def evict(self, task: TaskInfo) -> None:
        row = task.node
        self.ssn.apply_evict(task)
        self.ops.append((Op.EVICT, task, row))

    def redo(self, ops: list[tuple[Op, TaskInfo, int]]) -> None:
        """Apply again the allocations and pipelines a discarded trial recorded (the
        HyperNode searches try every candidate, then redo the best one's operations)."""
        for op, task, row in ops:
            if op is _ALLOCATE:
                self.allocate(task, row)
            else:
                self.pipeline(task, row)

    def merge(self, other: Statement) -> None:
        """Take over ``other``'s operations (already applied), as Volcano's ``Merge``."""
        self.ops.extend(other.ops)
        other.ops.clear()

    def commit(self) -> None:
        for op, task, row in self.ops:
            self.ssn.record(op, task, row, reserved=False)
        self.ops.clear()

    def keep(self) -> None:
        for op, task, row in self.ops:
            self.ssn.record(op, task, row, reserved=True)
        self.ops.clear()

    def discard(self) -> None:
        placed: dict[str, int] = {}
        for op, task, _row in self.ops:
            if op is not Op.EVICT:
                placed[task.job] = placed.get(task.job, 0) + 1
        for job_key, count in placed.items():
            job = self.ssn.jobs[job_key]
            job.placeable = max(job.placeable, count)
        for op, task, _row in reversed(self.ops):
            self.ssn.undo(op, task)
        self.ops.clear()
