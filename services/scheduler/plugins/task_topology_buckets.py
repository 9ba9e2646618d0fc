"""task-topology's per-job state (Volcano ``task-topology/manager.go`` and ``bucket.go``).

A job's PodGroup annotations name tasks (``volcano.sh/task-spec`` roles) that should share
nodes (affinity), avoid them (anti-affinity) and go first (task order). Its tasks are dealt
into *buckets*, each a set of tasks meant to land on one node: bound tasks seed a bucket per
node, then the others, highest topology priority first, join the bucket they have most
affinity with (the lightest on a tie), or open a new one when every bucket repels them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from services.scheduler.api import JobInfo, TaskInfo
from services.scheduler.api.resources import FloatVec
from shared.models.volcano import TASK_SPEC_KEY

AFFINITY = "volcano.sh/task-topology-affinity"
ANTI_AFFINITY = "volcano.sh/task-topology-anti-affinity"
TASK_ORDER = "volcano.sh/task-topology-task-order"
# Upstream's ``affinityPriority``: the larger, the earlier a task is dealt.
SELF_ANTI_AFFINITY, INTER_AFFINITY, SELF_AFFINITY, INTER_ANTI_AFFINITY = 4, 3, 2, 1
OUT_OF_BUCKET = -1
_MIB = 1024 * 1024 * 1000  # Shoal memory is in milli-bytes


class TopologyError(ValueError):
    """The annotations name a task the job does not have, or one task twice in a group."""


@dataclass(frozen=True, slots=True)
class TaskTopology:
    affinity: list[list[str]] | None
    anti_affinity: list[list[str]] | None
    task_order: list[str] | None


def task_name(task: TaskInfo) -> str:
    """Upstream's ``getTaskName``: the pod's ``volcano.sh/task-spec`` annotation."""
    return task.pod.metadata.annotations.get(TASK_SPEC_KEY, "")


def _check(job: JobInfo, groups: list[list[str]]) -> None:
    roles = {task.role for task in job.tasks.values()}
    for group in groups:
        seen: set[str] = set()
        for name in group:
            if not name:
                continue
            if name not in roles:
                raise TopologyError(f"task {name} do not exist in job <{job.namespace}/{job.name}>")
            if name in seen:
                raise TopologyError(f"task {name} is duplicate in job <{job.namespace}/{job.name}>")
            seen.add(name)


def _split(job: JobInfo, annotation: str) -> list[list[str]]:
    groups = [part.split(",") for part in annotation.split(";")]
    _check(job, groups)
    return groups


def read_topology(job: JobInfo) -> TaskTopology | None:
    """Upstream's ``readTopologyFromPgAnnotations``: None when the PodGroup has none of the
    three annotations; ``TopologyError`` when one names tasks wrongly."""
    annotations = job.pod_group.metadata.annotations
    affinity = annotations.get(AFFINITY)
    anti = annotations.get(ANTI_AFFINITY)
    order = annotations.get(TASK_ORDER)
    if affinity is None and anti is None and order is None:
        return None
    task_order = None
    if order is not None:
        task_order = order.split(",")
    topology = TaskTopology(
        affinity=_split(job, affinity) if affinity is not None else None,
        anti_affinity=_split(job, anti) if anti is not None else None,
        task_order=task_order,
    )
    if task_order is not None:
        _check(job, [task_order])
    return topology


def _req_score(qreq: FloatVec, cpu: int, memory: int) -> float:
    """Upstream's bucket ``reqScore``: 1 cpu millicore, 1 MiB and 1 milli-unit of any other
    resource weigh the same."""
    values: list[float] = qreq.tolist()
    score = values[cpu] + values[memory] / _MIB
    for i, value in enumerate(values):
        if i not in (cpu, memory):
            score += value
    return float(score)


class Bucket:
    """Tasks meant for one node: ``tasks`` pending (in the order dealt), ``nodes`` where its
    bound tasks are, and the pending tasks' summed ``request``."""

    def __init__(self, index: int, width: int) -> None:
        self.index = index
        self.tasks: dict[str, TaskInfo] = {}
        self.names: dict[str, int] = {}
        self.req_score = 0.0
        self.request: FloatVec = np.zeros(width, dtype=np.float64)
        self.bound = 0
        self.nodes: dict[str, int] = {}


class JobManager:
    """One job's affinity tables and buckets (upstream's ``JobManager``)."""

    def __init__(self, topology: TaskTopology, *, width: int, cpu: int, memory: int) -> None:
        self.width, self.cpu, self.memory = width, cpu, memory
        self.buckets: list[Bucket] = []
        self.in_bucket: dict[str, int] = {}
        self.priority: dict[str, int] = {}
        self.order: dict[str, int] = {}
        self.inter_affinity: dict[str, set[str]] = {}
        self.self_affinity: set[str] = set()
        self.inter_anti: dict[str, set[str]] = {}
        self.self_anti: set[str] = set()
        self.max_size = 0
        self.node_tasks: dict[int, dict[str, int]] = {}
        self.counted: set[str] = set()
        self._apply(topology)

    def _mark(self, name: str, priority: int) -> None:
        if priority > self.priority.get(name, 0):
            self.priority[name] = priority

    def _apply(self, topology: TaskTopology) -> None:
        for groups, pair, single, inter, alone in (
            (
                topology.affinity,
                self.inter_affinity,
                self.self_affinity,
                INTER_AFFINITY,
                SELF_AFFINITY,
            ),
            (
                topology.anti_affinity,
                self.inter_anti,
                self.self_anti,
                INTER_ANTI_AFFINITY,
                SELF_ANTI_AFFINITY,
            ),
        ):
            for group in groups or []:
                if len(group) == 1:
                    single.add(group[0])
                    self._mark(group[0], alone)
                    continue
                for i, src in enumerate(group):
                    for dst in group[:i]:
                        pair.setdefault(src, set()).add(dst)
                        pair.setdefault(dst, set()).add(src)
                    self._mark(src, inter)
        order = topology.task_order or []
        for i, name in enumerate(order):
            self.order[name] = len(order) - i

    def rank(self, name: str) -> tuple[int, int]:
        """Upstream's ``taskAffinityOrder`` as a key: user order, then topology priority."""
        return (self.order.get(name, 0), self.priority.get(name, 0))

    def affinity(self, name: str, names: dict[str, int], *, only_anti: bool) -> int:
        """Upstream's ``checkTaskSetAffinity``: +count per affine task, -count per repelling."""
        score = 0
        if not name:
            return score
        for other, count in names.items():
            same = other == name
            if not only_anti and (
                name in self.self_affinity if same else other in self.inter_affinity.get(name, ())
            ):
                score += count
            if name in self.self_anti if same else other in self.inter_anti.get(name, ()):
                score -= count
        return score

    def construct(self, job: JobInfo) -> None:
        """Upstream's ``ConstructBucket``: tasks with a topology, bound ones first (by node
        name), then the highest ranked; equal ones by pod name (upstream: sort order)."""
        dealt = []
        for task in job.tasks.values():
            name = task_name(task)
            if not name or name not in self.priority:
                self.in_bucket[task.key] = OUT_OF_BUCKET
                continue
            dealt.append(task)
        dealt.sort(key=self._deal_key)
        by_node: dict[str, Bucket] = {}
        for task in dealt:
            name, node = task_name(task), task.pod.spec.nodeName or ""
            chosen: Bucket | None = None
            best = -(2**31)
            if node:
                best, chosen = 0, by_node.get(node)
            else:
                for bucket in self.buckets:
                    score = self.affinity(name, bucket.names, only_anti=False)
                    if score > best:
                        best, chosen = score, bucket
                    elif (
                        score == best and chosen is not None and bucket.req_score < chosen.req_score
                    ):
                        chosen = bucket
            if best < 0 or chosen is None:
                chosen = Bucket(len(self.buckets), self.width)
                self.buckets.append(chosen)
                if node:
                    by_node[node] = chosen
            self._add(chosen, name, task, node)

    def _deal_key(self, task: TaskInfo) -> tuple[int, str, int, int, str]:
        node = task.pod.spec.nodeName or ""
        if node:
            return (0, node, 0, 0, task.name)
        order, priority = self.rank(task_name(task))
        return (1, "", -order, -priority, task.name)

    def _add(self, bucket: Bucket, name: str, task: TaskInfo, node: str) -> None:
        self.in_bucket[task.key] = bucket.index
        bucket.names[name] = bucket.names.get(name, 0) + 1
        if node:
            bucket.nodes[node] = bucket.nodes.get(node, 0) + 1
            bucket.bound += 1
            self.counted.add(task.key)
        else:
            bucket.tasks[task.key] = task
            bucket.req_score += _req_score(task.qreq, self.cpu, self.memory)
            bucket.request = bucket.request + task.qreq
        self.max_size = max(self.max_size, len(bucket.tasks) + bucket.bound)

    def bucket_of(self, task: TaskInfo) -> Bucket | None:
        index = self.in_bucket.get(task.key, OUT_OF_BUCKET)
        return None if index == OUT_OF_BUCKET else self.buckets[index]

    def task_bound(self, task: TaskInfo, node: str) -> None:
        """Upstream's ``TaskBound`` on an allocate event. A task counts once per session
        (Shoal's dry runs and undone statements fire the event again)."""
        if task.key in self.counted:
            return
        self.counted.add(task.key)
        name = task_name(task)
        if name:
            on_node = self.node_tasks.setdefault(task.node, {})
            on_node[name] = on_node.get(name, 0) + 1
        bucket = self.bucket_of(task)
        if bucket is not None:
            bucket.nodes[node] = bucket.nodes.get(node, 0) + 1
            bucket.bound += 1
            bucket.tasks.pop(task.key, None)
            bucket.req_score -= _req_score(task.qreq, self.cpu, self.memory)
            bucket.request = bucket.request - task.qreq
