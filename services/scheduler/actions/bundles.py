"""Victim bundles of the gang actions (Volcano ``actions/utils/bundle.go``).

The running tasks a gang action may evict are grouped per victim job into at most two
bundles: a *safe* one, whose tasks can go without the job dropping below ``minMember`` (or a
role below its ``minTaskMember``), and a *whole* one, whose eviction breaks the job's gang and
so costs the job all it holds. Bundles are tried safe ones first, then in the action's victim
order, then by how much of the evicting job's need they free per resource they cost.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from services.scheduler.api import JobInfo, TaskInfo
from services.scheduler.api.resources import FloatVec
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskStatus

_READY = frozenset(ALLOCATED_STATUSES | {TaskStatus.SUCCEEDED})


class BundleType(enum.IntEnum):
    SAFE = 0
    WHOLE = 1


@dataclass(frozen=True)
class Bundle:
    type: BundleType
    job: JobInfo
    tasks: tuple[TaskInfo, ...]
    local: FloatVec  # what its tasks free here
    globally: FloatVec  # what evicting it costs: the whole job for a whole bundle


def task_uid(task: TaskInfo) -> str:
    return task.pod.metadata.uid or task.key


def _sum(tasks: Sequence[TaskInfo], width: int) -> FloatVec:
    total: FloatVec = np.zeros(width)
    for task in tasks:
        total += task.qreq
    return total


def create_job_bundles(job: JobInfo, local: Sequence[TaskInfo]) -> list[Bundle]:
    """``CreateJobBundles``: lowest-priority tasks first, each safe while the job (and its
    role) keeps more ready tasks than its minimum, the rest in the whole bundle."""
    if not local:
        return []
    width = len(local[0].qreq)
    tasks = sorted(local, key=lambda t: (t.priority, task_uid(t)))
    surplus = job.ready_task_num() - job.min_available
    if surplus < 0:  # not gang-ready already: evicting more breaks nothing further
        return [Bundle(BundleType.SAFE, job, tuple(tasks), _sum(tasks, width), np.zeros(width))]
    roles: dict[str, int] = {}
    if job.min_available >= sum(job.min_task_member.values()):
        ready: dict[str, int] = {}
        for task in job.tasks.values():
            if task.status in _READY or (task.status is TaskStatus.PENDING and task.best_effort):
                ready[task.role] = ready.get(task.role, 0) + 1
        roles = {role: ready.get(role, 0) - need for role, need in job.min_task_member.items()}
    safe: list[TaskInfo] = []
    whole: list[TaskInfo] = []
    for task in tasks:
        role_safe = task.role not in roles or roles[task.role] > 0
        if surplus > 0 and role_safe:
            safe.append(task)
            surplus -= 1
            if task.role in roles:
                roles[task.role] -= 1
        else:
            whole.append(task)
    bundles = []
    if safe:
        free = np.zeros(width)
        bundles.append(Bundle(BundleType.SAFE, job, tuple(safe), _sum(safe, width), free))
    if whole:
        cost = _sum(list(job.tasks.values()), width)
        bundles.append(Bundle(BundleType.WHOLE, job, tuple(whole), _sum(whole, width), cost))
    return bundles


def flatten(bundles: Sequence[Bundle]) -> list[TaskInfo]:
    return [task for bundle in bundles for task in bundle.tasks]


def apply_allowed(bundles: Sequence[Bundle], allowed: set[str]) -> list[Bundle]:
    """``ApplyAllowedTasks``: a whole bundle survives only if every task is allowed; a safe
    one keeps its allowed tasks."""
    valid = []
    for bundle in bundles:
        approved = [t for t in bundle.tasks if t.key in allowed]
        if bundle.type is BundleType.WHOLE:
            if len(approved) == len(bundle.tasks):
                valid.append(bundle)
        elif approved:
            local = _sum(approved, len(bundle.local))
            valid.append(replace(bundle, tasks=tuple(approved), local=local))
    return valid


def _score(res: FloatVec, need: FloatVec, *, cap: bool) -> float:
    dims = need > 0
    got = np.minimum(res[dims], need[dims]) if cap else res[dims]
    return float(np.sum(got / need[dims]))


def roi(bundle: Bundle, need: FloatVec) -> float:
    """What the bundle frees of the need (capped) per what it costs; a safe bundle costs
    nothing."""
    cost = _score(bundle.globally, need, cap=False)
    if cost == 0:
        return math.inf
    return _score(bundle.local, need, cap=True) / cost


def _stable(left: Bundle, right: Bundle) -> int:
    lk = (left.job.key, task_uid(left.tasks[0]) if left.tasks else "", len(left.tasks))
    rk = (right.job.key, task_uid(right.tasks[0]) if right.tasks else "", len(right.tasks))
    return (lk > rk) - (lk < rk)


def sort_bundles(
    bundles: Sequence[Bundle],
    need: FloatVec,
    victim_first: Callable[[Bundle, Bundle], int],
) -> list[Bundle]:
    """``SortBundlesFor{Preempt,Reclaim}``: safe first, then ``victim_first`` (negative:
    the left goes first, 0: no opinion), then the higher return, then a stable order."""

    def compare(left: Bundle, right: Bundle) -> int:
        if left.type != right.type:
            return -1 if left.type < right.type else 1
        decided = victim_first(left, right)
        if decided:
            return decided
        lr, rr = roi(left, need), roi(right, need)
        if lr != rr:
            return -1 if lr > rr else 1
        return _stable(left, right)

    return sorted(bundles, key=functools.cmp_to_key(compare))
