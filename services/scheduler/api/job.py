"""A job is one PodGroup and its pods (Volcano ``JobInfo``), with status counters kept live."""

from __future__ import annotations

from collections.abc import Iterator

from services.scheduler.api.resources import FloatVec
from services.scheduler.api.status import FitErrors, Status
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskInfo, TaskStatus
from shared.models import PodGroup

_OCCUPYING = frozenset(ALLOCATED_STATUSES | {TaskStatus.SUCCEEDED})
# Enum members looked up once: an attribute of an enum class costs a lookup per use, and the
# counters are read for every task placed.
_PENDING, _ALLOCATED, _PIPELINED = TaskStatus.PENDING, TaskStatus.ALLOCATED, TaskStatus.PIPELINED
_BINDING, _BOUND, _RUNNING = TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING
_SUCCEEDED = TaskStatus.SUCCEEDED

PENDING = "Pending"
INQUEUE = "Inqueue"
RUNNING = "Running"
UNKNOWN = "Unknown"
COMPLETED = "Completed"


class JobInfo:
    """Tasks by key plus per-status counts, so readiness checks are O(1)."""

    __slots__ = (
        "allocated_sum",
        "counts",
        "created",
        "fit_errors",
        "key",
        "min_available",
        "min_resources",
        "min_task_member",
        "name",
        "namespace",
        "pending_best_effort",
        "phase",
        "placeable",
        "pod_group",
        "priority",
        "queue",
        "reasons",
        "role_status",
        "tasks",
    )

    def __init__(
        self, pod_group: PodGroup, *, priority: int, min_resources: FloatVec | None
    ) -> None:
        meta = pod_group.metadata
        self.pod_group = pod_group
        self.name = meta.name
        self.namespace = meta.namespace or "default"
        self.key = f"{self.namespace}/{self.name}"
        self.queue = pod_group.spec.queue or "default"
        self.priority = priority
        self.min_available = pod_group.spec.minMember
        self.min_task_member = dict(pod_group.spec.minTaskMember)
        self.min_resources = min_resources
        self.phase = pod_group.status.phase or PENDING
        self.created = meta.creationTimestamp or ""
        self.tasks: dict[str, TaskInfo] = {}
        self.counts = [0] * len(TaskStatus)
        # The quota plugins' sum of the allocated tasks' requests, until a task changes: three
        # plugins ask for it per job at session open (see ``quota.job_allocated``).
        self.allocated_sum: FloatVec | None = None
        # Per task role, its tasks per status: the gang checks ask per role at every step.
        self.role_status: dict[str, list[int]] = {}
        self.pending_best_effort = 0
        # Why this job is not (fully) placed: per-task node histograms and per-plugin verdicts.
        self.fit_errors: dict[str, FitErrors] = {}
        self.reasons: dict[str, list[Status]] = {}
        # Most tasks placed by a gang attempt that was then discarded (Volcano's last
        # transaction), so "k/n tasks in gang unschedulable" counts only the ones that failed.
        self.placeable = 0

    def add_task(self, task: TaskInfo) -> None:
        self.tasks[task.key] = task
        self.allocated_sum = None
        self.counts[task.status] += 1
        by_status = self.role_status.get(task.role)
        if by_status is None:
            by_status = self.role_status[task.role] = [0] * len(TaskStatus)
        by_status[task.status] += 1
        if task.best_effort and task.status is TaskStatus.PENDING:
            self.pending_best_effort += 1

    def set_status(self, task: TaskInfo, status: TaskStatus) -> None:
        self.allocated_sum = None
        self.counts[task.status] -= 1
        self.counts[status] += 1
        by_status = self.role_status[task.role]
        by_status[task.status] -= 1
        by_status[status] += 1
        if task.best_effort:
            was = task.status is _PENDING
            self.pending_best_effort += (status is _PENDING) - was
        task.status = status

    def record(self, status: Status) -> None:
        """Keep a verdict per plugin; identical verdicts are kept once, none is overwritten."""
        kept = self.reasons.setdefault(status.plugin, [])
        if status not in kept:
            kept.append(status)

    def is_pending(self) -> bool:
        return self.phase == PENDING

    def ready_task_num(self) -> int:
        c = self.counts
        return c[_ALLOCATED] + c[_BINDING] + c[_BOUND] + c[_RUNNING] + c[_SUCCEEDED]

    def waiting_task_num(self) -> int:
        return self.counts[_PIPELINED]

    def valid_task_num(self) -> int:
        return self.ready_task_num() + self.waiting_task_num() + self.counts[_PENDING]

    def is_ready(self) -> bool:
        ready = self.ready_task_num()
        if ready >= self.min_available:
            return True
        return ready + self.pending_best_effort >= self.min_available

    def pending_tasks(self) -> Iterator[TaskInfo]:
        return (t for t in self.tasks.values() if t.status is _PENDING)

    def role_counts(self, statuses: frozenset[TaskStatus]) -> dict[str, int]:
        """Tasks in ``statuses`` per role (roles with none are left out)."""
        counts: dict[str, int] = {}
        for role, by_status in self.role_status.items():
            n = sum(map(by_status.__getitem__, statuses))
            if n:
                counts[role] = n
        return counts

    def fit_failed_roles(self) -> set[str]:
        return {self.tasks[key].role for key in self.fit_errors if key in self.tasks}

    def need_continue_allocating(self) -> bool:
        """Volcano ``NeedContinueAllocating``: after a task fitted no node, may the job's other
        tasks still meet its gang (in total, or each role its ``minTaskMember``)?"""
        if self.min_available == len(self.tasks) or len(self.tasks) <= 1:
            return False
        failed = self.fit_failed_roles()
        if self.min_available < sum(self.min_task_member.values()):
            left = sum(1 for t in self.pending_tasks() if t.role not in failed)
            return self.ready_task_num() + left >= self.min_available
        placed: dict[str, int] = {}
        for task in self.tasks.values():
            if task.status in _OCCUPYING or (
                task.status is TaskStatus.PENDING and task.best_effort
            ):
                placed[task.role] = placed.get(task.role, 0) + 1
        return all(placed.get(role, 0) >= self.min_task_member.get(role, 0) for role in failed)

    def allocated_task_num(self) -> int:
        return sum(self.counts[s] for s in ALLOCATED_STATUSES)

    def __repr__(self) -> str:
        return f"JobInfo({self.key}, {self.phase}, min={self.min_available})"
