"""Sub-jobs: a PodGroup's ``subGroupPolicy`` splits its pods into sub-gangs (Volcano
``SubJobInfo``).

Each policy groups the pods matching its ``labelSelector`` by their values of
``matchLabelKeys``; pods with the same values form one sub-job of ``subGroupSize`` pods (the
sub-job's minAvailable), placed within its own ``networkTopology``. A policy's sub-jobs share a
group id, and the job needs ``minSubGroups`` of them ready. Pods no policy matches (a policy
without ``matchLabelKeys`` matches none, as upstream) go to the job's default sub-job, whose
minAvailable is 1 and whose network topology is the job's.

Only jobs whose PodGroup has a ``subGroupPolicy`` are split (``GroupedJobInfo``): every other
job is its own default sub-job, so it keeps the plain ``JobInfo`` and its costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from services.scheduler.api.job import JobInfo
from services.scheduler.api.resources import FloatVec
from services.scheduler.api.task import ALLOCATED_STATUSES, TaskInfo, TaskStatus
from shared.models import PodGroup
from shared.models.volcano import NetworkTopologySpec, SubGroupPolicySpec

# Upstream hashes a sub-job id longer than this (``getSubJobID``).
_MAX_ID = 128
# ``k8s.io/apimachinery/pkg/util/rand.SafeEncodeString``'s alphabet.
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_ATOI = re.compile(r"[+-]?[0-9]+")


class SubJobInfo:
    """One sub-gang of a job: its tasks with live status counts, its minAvailable, and its
    network topology as the session applies it (``highest_tier`` None: not hard; ``allocated``:
    the HyperNode its placed tasks span)."""

    __slots__ = (
        "allocated",
        "counts",
        "gid",
        "highest_tier",
        "job",
        "match_index",
        "min_available",
        "network_topology",
        "pending_best_effort",
        "priority",
        "tasks",
        "uid",
    )

    def __init__(
        self,
        gid: str,
        uid: str,
        job: str,
        *,
        min_available: int,
        network_topology: NetworkTopologySpec | None,
        match_values: list[str],
    ) -> None:
        self.gid = gid
        self.uid = uid
        self.job = job
        self.min_available = min_available
        self.network_topology = network_topology
        first = match_values[0] if match_values else ""
        # Go's strconv.Atoi of the first value; 0 when it is not a number.
        self.match_index = int(first) if _ATOI.fullmatch(first) else 0
        self.priority = 0  # the highest priority of its tasks
        self.tasks: dict[str, TaskInfo] = {}
        self.counts = [0] * len(TaskStatus)
        self.pending_best_effort = 0
        self.highest_tier: int | None = None
        self.allocated = ""

    def add(self, task: TaskInfo) -> None:
        self.tasks[task.key] = task
        self.counts[task.status] += 1
        if task.best_effort and task.status is TaskStatus.PENDING:
            self.pending_best_effort += 1
        self.priority = max(self.priority, task.priority)

    def moved(self, task: TaskInfo, status: TaskStatus) -> None:
        """Count ``task`` (still in its old status) as being in ``status``."""
        self.counts[task.status] -= 1
        self.counts[status] += 1
        if task.best_effort:
            was = task.status is TaskStatus.PENDING
            self.pending_best_effort += (status is TaskStatus.PENDING) - was

    @property
    def hard(self) -> bool:
        return self.highest_tier is not None

    def ready_task_num(self) -> int:
        c = self.counts
        return (
            c[TaskStatus.ALLOCATED]
            + c[TaskStatus.BINDING]
            + c[TaskStatus.BOUND]
            + c[TaskStatus.RUNNING]
            + c[TaskStatus.SUCCEEDED]
        )

    def is_ready(self) -> bool:
        return self.ready_task_num() + self.pending_best_effort >= self.min_available

    def is_pipelined(self) -> bool:
        waiting = self.counts[TaskStatus.PIPELINED]
        return waiting + self.ready_task_num() + self.pending_best_effort >= self.min_available

    def allocated_task_num(self) -> int:
        return sum(self.counts[s] for s in ALLOCATED_STATUSES)

    def min_resources(self, width: int) -> FloatVec:
        """Upstream ``GetMinResources``: the sum of its pending tasks' requests (a sub-job
        is placed whole)."""
        total: FloatVec | None = None
        for task in self.tasks.values():
            if task.status is TaskStatus.PENDING:
                total = task.qreq.copy() if total is None else total + task.qreq
        return np.zeros(width, dtype=np.float64) if total is None else total

    def __repr__(self) -> str:
        return f"SubJobInfo({self.uid}, min={self.min_available})"


class GroupedJobInfo(JobInfo):
    """A job whose PodGroup has a ``subGroupPolicy``: its tasks also counted per sub-job."""

    __slots__ = ("min_sub_jobs", "sub_job_of", "sub_jobs")

    def __init__(
        self, pod_group: PodGroup, *, priority: int, min_resources: FloatVec | None
    ) -> None:
        super().__init__(pod_group, priority=priority, min_resources=min_resources)
        self.sub_jobs: dict[str, SubJobInfo] = {}
        self.sub_job_of: dict[str, SubJobInfo] = {}
        # Per policy (group id), how many of its sub-jobs the job needs (``minSubGroups``).
        self.min_sub_jobs = {
            _gid(self.key, p.name): p.minSubGroups or 0 for p in pod_group.spec.subGroupPolicy
        }

    def add_task(self, task: TaskInfo) -> None:
        super().add_task(task)
        sub = self._sub_job_for(task)
        sub.add(task)
        self.sub_job_of[task.key] = sub

    def set_status(self, task: TaskInfo, status: TaskStatus) -> None:
        self.sub_job_of[task.key].moved(task, status)
        super().set_status(task, status)

    def _sub_job_for(self, task: TaskInfo) -> SubJobInfo:
        """Upstream ``getOrCreateSubJob``: the first policy whose label keys the pod has."""
        labels = task.pod.metadata.labels
        for policy in self.pod_group.spec.subGroupPolicy:
            values = match_values(policy, labels)
            if values:
                uid = sub_job_id(self.key, policy.name, values)
                sub = self.sub_jobs.get(uid)
                if sub is None:
                    sub = SubJobInfo(
                        _gid(self.key, policy.name),
                        uid,
                        self.key,
                        min_available=1 if policy.subGroupSize is None else policy.subGroupSize,
                        network_topology=policy.networkTopology,
                        match_values=values,
                    )
                    self.sub_jobs[uid] = sub
                return sub
        sub = self.sub_jobs.get(self.key)
        if sub is None:
            # The default sub-job of a job with policies: minAvailable 1, the job's topology.
            sub = SubJobInfo(
                self.key,
                self.key,
                self.key,
                min_available=1,
                network_topology=self.pod_group.spec.networkTopology,
                match_values=[],
            )
            self.sub_jobs[self.key] = sub
        return sub

    def sub_jobs_valid(self) -> bool:
        """Upstream ``CheckSubJobValid``: every policy has at least ``minSubGroups`` sub-jobs."""
        found: dict[str, int] = {}
        for sub in self.sub_jobs.values():
            found[sub.gid] = found.get(sub.gid, 0) + 1
        return all(found.get(gid, 0) >= need for gid, need in self.min_sub_jobs.items())

    def sub_jobs_ready(self) -> bool:
        """Upstream ``CheckSubJobReady``: ``minSubGroups`` ready sub-jobs per policy."""
        return self._enough(SubJobInfo.is_ready)

    def sub_jobs_pipelined(self) -> bool:
        return self._enough(SubJobInfo.is_pipelined)

    def _enough(self, condition: Callable[[SubJobInfo], bool]) -> bool:
        met: dict[str, int] = {}
        for sub in self.sub_jobs.values():
            if condition(sub):
                met[sub.gid] = met.get(sub.gid, 0) + 1
        return all(met.get(gid, 0) >= need for gid, need in self.min_sub_jobs.items() if need)

    def need_continue_allocating_in(self, sub: SubJobInfo) -> bool:
        """Upstream ``NeedContinueAllocating`` for a job with sub-jobs: go on after a task that
        fits nowhere unless the job or the sub-job needs all of its tasks."""
        if self.min_available == len(self.tasks):
            return False
        return sub.min_available < len(sub.tasks)


def _gid(job: str, policy: str) -> str:
    return f"{job}/{policy}"


def match_values(policy: SubGroupPolicySpec, labels: dict[str, str]) -> list[str]:
    """Upstream ``getSubJobMatchValues``: the pod's values of the policy's keys (none if the
    selector does not match or a key is missing or empty)."""
    if policy.labelSelector is not None and not policy.labelSelector.matches(labels):
        return []
    values = []
    for key in policy.matchLabelKeys:
        value = labels.get(key, "")
        if not value:
            return []
        values.append(value)
    return values


def sub_job_id(job: str, policy: str, values: list[str]) -> str:
    """Upstream ``getSubJobID``: the values joined by ``-``, hashed when too long."""
    joined = "-".join(values)
    if len(joined) > _MAX_ID:
        joined = _safe_encode(str(_fnv32a(joined.encode())))
    return f"{job}/{policy}-{joined}"


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def _safe_encode(text: str) -> str:
    return "".join(_SAFE_ALPHABET[b % len(_SAFE_ALPHABET)] for b in text.encode())
