"""allocate for a job with a ``subGroupPolicy`` (Volcano ``allocateForJob`` and
``allocateForSubJob``).

The job's sub-jobs with pending tasks form a worksheet: those needed to reach each policy's
``minSubGroups`` first, then in the plugins' sub-job order (gang: not-yet-ready first;
priority: highest task priority first), then by match index and uid. For each HyperNode of the
job's gradients (only the whole cluster without a hard job topology) the sub-jobs are placed one
at a time, each within one HyperNode of its own gradients under the job's: every candidate is
dry-run, the best by the plugins' HyperNode scores (all candidates scored together) is kept. A
sub-job takes tasks until it is ready (``subGroupSize``), then goes back into the worksheet;
the job stops once it is ready. Among the job's HyperNodes where it gets ready (or pipelined),
the one whose sub-jobs scored highest in sum wins (ties: the first in gradient order, where
upstream takes Go's map order), and its placements are replayed.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from services.scheduler.actions.hypernode_allocate import not_ready
from services.scheduler.actions.task_placement import SubJobScope, place_tasks
from services.scheduler.api import QueueInfo, TaskInfo
from services.scheduler.api.hypernodes import TOP
from services.scheduler.api.sub_job import GroupedJobInfo, SubJobInfo
from services.scheduler.api.task import TaskStatus
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.session import Op
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

_Ops = list[tuple[Op, TaskInfo, int]]


class Worksheet:
    """Sub-jobs left to place, in order, each with its pending tasks (last placed first)."""

    __slots__ = ("heap", "required", "tasks")

    def __init__(self, required: set[str]) -> None:
        self.required = required
        self.heap: list[tuple[tuple[Any, ...], SubJobInfo]] = []
        self.tasks: dict[str, list[TaskInfo]] = {}

    def push(self, ssn: Session, sub: SubJobInfo) -> None:
        # Keys end with the unique uid: a total order, so the heap is deterministic.
        key = (sub.uid not in self.required, *ssn.sub_job_order_key(sub))
        heapq.heappush(self.heap, (key, sub))

    def pop(self) -> SubJobInfo:
        return heapq.heappop(self.heap)[1]

    def __bool__(self) -> bool:
        return bool(self.heap)

    def clone(self) -> Worksheet:
        out = Worksheet(self.required)
        out.heap = list(self.heap)
        out.tasks = {uid: list(tasks) for uid, tasks in self.tasks.items()}
        return out

    def take(self, other: Worksheet) -> None:
        self.heap, self.tasks = other.heap, other.tasks


def organize(ssn: Session, job: GroupedJobInfo) -> Worksheet:
    """Upstream ``organizeJobWorksheet``: the fewest sub-jobs that meet each policy's
    ``minSubGroups`` are required; every sub-job with pending tasks is on the sheet."""
    ready: dict[str, int] = {}
    waiting = []
    for sub in job.sub_jobs.values():
        if ssn.sub_job_ready(job, sub):
            ready[sub.gid] = ready.get(sub.gid, 0) + 1
        else:
            waiting.append(sub)
    waiting.sort(key=ssn.sub_job_order_key)
    required = set()
    for sub in waiting:
        if ready.get(sub.gid, 0) < job.min_sub_jobs.get(sub.gid, 0):
            required.add(sub.uid)
            ready[sub.gid] = ready.get(sub.gid, 0) + 1
    sheet = Worksheet(required)
    for sub in job.sub_jobs.values():
        tasks = [
            t for t in sub.tasks.values() if t.status is TaskStatus.PENDING and not t.best_effort
        ]
        if tasks:
            tasks.sort(key=ssn.task_order_key, reverse=True)
            sheet.tasks[sub.uid] = tasks
            sheet.push(ssn, sub)
    return sheet


def has_topology(job: GroupedJobInfo) -> bool:
    """Upstream ``ContainsNetworkTopology``: the job's or any sub-job's."""
    if job.pod_group.spec.networkTopology is not None:
        return True
    return any(sub.network_topology is not None for sub in job.sub_jobs.values())


def allocate_grouped(
    ssn: Session, placer: Placer, queue: QueueInfo, job: GroupedJobInfo, sheet: Worksheet
) -> bool:
    """Place ``job``'s sub-jobs; True if it is ready with sub-jobs left (back into its queue)."""
    topology = ssn.topology
    if topology is not None and not topology.tree.ready and has_topology(job):
        job.record(not_ready(topology.tree))
        return False
    if not sheet:
        return False
    gradients = ssn.hyper_node_gradient(job, TOP) if topology is not None else [[TOP]]
    before = {uid: sub.allocated for uid, sub in job.sub_jobs.items()}
    for gradient in gradients:
        solutions: dict[str, tuple[_Ops, Worksheet, float, dict[str, str]]] = {}
        for name in gradient:
            job.fit_errors.clear()
            trial = sheet.clone()
            stmts, score = _fill(ssn, placer, queue, job, trial, name)
            decisions = {uid: sub.allocated for uid, sub in job.sub_jobs.items()}
            for uid, allocated in before.items():
                job.sub_jobs[uid].allocated = allocated
            ops = [op for stmt in stmts for op in stmt.ops]
            if ops and (ssn.job_ready(job) or ssn.job_pipelined(job)):
                solutions[name] = (ops, trial, score, decisions)
            for stmt in reversed(stmts):
                stmt.discard()
        if not solutions:
            continue
        best = max(solutions, key=lambda n: solutions[n][2])
        ops, left, _, decisions = solutions[best]
        stmt = Statement(ssn)
        stmt.redo(ops)
        sheet.take(left)
        if not ssn.job_ready(job):
            stmt.keep()  # pipelined: reserved, not bound, not committed (upstream)
            return False
        stmt.commit()
        _record_decisions(ssn, job, best, decisions)
        return bool(sheet)
    return False


def _record_decisions(
    ssn: Session, job: GroupedJobInfo, best: str, decisions: dict[str, str]
) -> None:
    """Upstream ``UpdateDecisionToJob``: the job and its sub-jobs span their HyperNodes."""
    topology = ssn.topology
    if topology is None:
        return
    tree = topology.tree
    constraint = topology.jobs.get(job.key)
    if constraint is not None:
        constraint.allocated = tree.lca(constraint.allocated, best)
    for uid, allocated in decisions.items():
        sub = job.sub_jobs[uid]
        if allocated:
            sub.allocated = tree.lca(sub.allocated, allocated)


def _fill(
    ssn: Session,
    placer: Placer,
    queue: QueueInfo,
    job: GroupedJobInfo,
    sheet: Worksheet,
    hyper_node: str,
) -> tuple[list[Statement], float]:
    """Place sub-jobs from ``sheet`` within ``hyper_node`` until the job is ready."""
    stmts: list[Statement] = []
    score = 0.0
    while sheet:
        sub = sheet.pop()
        tasks = sheet.tasks[sub.uid]
        stmt, sub_score = _allocate_sub_job(ssn, placer, queue, job, sub, tasks, hyper_node)
        if stmt is None or not stmt.ops:
            continue
        stmts.append(stmt)
        score += sub_score
        if tasks:
            sheet.push(ssn, sub)
        if ssn.job_ready(job):
            break
    return stmts, score


def _allocate_sub_job(
    ssn: Session,
    placer: Placer,
    queue: QueueInfo,
    job: GroupedJobInfo,
    sub: SubJobInfo,
    tasks: list[TaskInfo],
    hyper_node: str,
) -> tuple[Statement | None, float]:
    """Upstream ``allocateForSubJob``: the best HyperNode of the sub-job's first gradient
    where it gets ready or pipelined; ``tasks`` keeps what is left."""
    topology = ssn.topology
    gradients = (
        ssn.hyper_node_gradient_for_sub_job(sub, hyper_node)
        if topology is not None
        else [[hyper_node]]
    )
    for gradient in gradients:
        found: dict[str, tuple[_Ops, list[TaskInfo]]] = {}
        for name in gradient:
            for key in [k for k in job.fit_errors if job.sub_job_of[k] is sub]:
                del job.fit_errors[key]
            trial = list(tasks)
            stmt = Statement(ssn)
            if place_sub_job(ssn, placer, queue, job, sub, trial, stmt, name) and stmt.ops:
                found[name] = (list(stmt.ops), trial)
                stmt.discard()
        if not found:
            continue
        scores = ssn.hyper_node_scores(sub, list(found))
        best = max(found, key=lambda n: scores[n])
        ops, left = found[best]
        stmt = Statement(ssn)
        stmt.redo(ops)
        if topology is not None:
            sub.allocated = topology.tree.lca(sub.allocated, best)
        tasks[:] = left
        return stmt, scores[best]
    return None, 0.0


def place_sub_job(
    ssn: Session,
    placer: Placer,
    queue: QueueInfo,
    job: GroupedJobInfo,
    sub: SubJobInfo,
    tasks: list[TaskInfo],
    stmt: Statement,
    hyper_node: str,
) -> bool:
    """Upstream ``allocateResourcesForTasks``: place the sub-job's tasks (popped from the end)
    on ``hyper_node``'s nodes until it is ready; True if it is ready or pipelined (else
    ``stmt`` is discarded)."""
    topology = ssn.topology
    within = topology.tree.mask(hyper_node) if topology is not None else None
    if within is not None and not within.any():
        return False
    scope = SubJobScope(ssn, job, sub, hyper_node)
    place_tasks(ssn, placer, queue, scope, tasks, stmt, within)
    scope.finish()
    if ssn.sub_job_ready(job, sub) or ssn.sub_job_pipelined(job, sub):
        return True
    stmt.discard()
    return False
