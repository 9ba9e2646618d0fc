"""A session's network topology: the HyperNode tree and each job's ``networkTopology``.

Built only when the cluster has HyperNodes (a cluster without them schedules every job as
before). As upstream's ``openSession``: a ``highestTierName`` is translated to its tier, a soft
job becomes hard up to the virtual top tier (so both modes take one path, the soft one without
a bound), and a job's allocated HyperNode is the lowest-tier HyperNode holding all of its
placed tasks (upstream's ``recoverAllocatedHyperNode``: Shoal keeps no state between sessions,
so it always recovers it, as upstream does after a restart).

The sub-jobs of a job with a ``subGroupPolicy`` get theirs the same way: a soft sub-job is
hard up to its job's tier (the top tier when the job has none), and a grouped job's allocated
HyperNode is the LCA of its sub-jobs' (upstream ``convertSoftToHardTopology`` and
``recoverAllocatedHyperNode``).
"""

from __future__ import annotations

from collections.abc import Iterable

from services.scheduler.api import JobInfo, NodeTable, TaskInfo
from services.scheduler.api.hypernodes import TOP, HyperNodeTree
from services.scheduler.api.sub_job import GroupedJobInfo
from services.scheduler.api.task import ALLOCATED_STATUSES
from shared.models import HyperNode
from shared.models.volcano import (
    HARD_NETWORK_TOPOLOGY_MODE,
    SOFT_NETWORK_TOPOLOGY_MODE,
    NetworkTopologySpec,
)


class JobTopology:
    """A job's network topology constraint as the session applies it."""

    __slots__ = ("allocated", "highest_tier")

    def __init__(self, highest_tier: int | None, allocated: str) -> None:
        # None: hard mode without a tier (upstream's ``IsHardTopologyMode`` is false).
        self.highest_tier = highest_tier
        self.allocated = allocated

    @property
    def hard(self) -> bool:
        return self.highest_tier is not None


class Topology:
    """The tree, the jobs with a ``networkTopology``, and while a job's tasks are being placed
    the HyperNode they span so far (upstream's ``task.JobAllocatedHyperNode``)."""

    def __init__(self, tree: HyperNodeTree, jobs: dict[str, JobTopology]) -> None:
        self.tree = tree
        self.jobs = jobs
        self.placing: dict[str, str] = {}


def open_topology(
    hyper_nodes: list[HyperNode], nodes: NodeTable, jobs: Iterable[JobInfo]
) -> Topology:
    tree = HyperNodeTree.build(hyper_nodes, nodes)
    top_tier = tree.tier(TOP)
    out: dict[str, JobTopology] = {}
    for job in jobs:
        spec = job.pod_group.spec.networkTopology
        if isinstance(job, GroupedJobInfo):
            _open_sub_jobs(tree, job, spec, top_tier)
        if spec is None:
            continue
        highest = _highest_tier(tree, spec, top_tier)
        allocated = ""
        if isinstance(job, GroupedJobInfo):
            for sub in job.sub_jobs.values():
                allocated = tree.lca(allocated, sub.allocated) if sub.allocated else allocated
        elif tree.ready:
            allocated = _recover(tree, _placed_rows(job.tasks.values()))
        out[job.key] = JobTopology(highest, allocated)
    return Topology(tree, out)


def _highest_tier(tree: HyperNodeTree, spec: NetworkTopologySpec, soft_tier: int) -> int | None:
    """The tier a topology may span: a soft one ``soft_tier``; None when not hard."""
    if spec.mode == SOFT_NETWORK_TOPOLOGY_MODE:
        return soft_tier
    if spec.mode != HARD_NETWORK_TOPOLOGY_MODE:
        return None
    highest = spec.highestTierAllowed
    if highest is None and spec.highestTierName:
        highest = tree.tier_names.get(spec.highestTierName)
    return highest


def _open_sub_jobs(
    tree: HyperNodeTree, job: GroupedJobInfo, spec: NetworkTopologySpec | None, top_tier: int
) -> None:
    """Each sub-job's tier (a soft one bounded by its job's tier) and allocated HyperNode."""
    bound = top_tier
    if spec is not None:
        job_tier = spec.highestTierAllowed
        if job_tier is None and spec.highestTierName:
            job_tier = tree.tier_names.get(spec.highestTierName)
        if spec.mode == SOFT_NETWORK_TOPOLOGY_MODE:
            job_tier = top_tier
        bound = top_tier if job_tier is None else job_tier
    for sub in job.sub_jobs.values():
        if sub.network_topology is None:
            continue
        sub.highest_tier = _highest_tier(tree, sub.network_topology, bound)
        if tree.ready:
            sub.allocated = _recover(tree, _placed_rows(sub.tasks.values()))


def _placed_rows(tasks: Iterable[TaskInfo]) -> list[int]:
    return [t.node for t in tasks if t.status in ALLOCATED_STATUSES and t.node >= 0]


def _recover(tree: HyperNodeTree, rows: list[int]) -> str:
    """The lowest-tier HyperNode holding every row (upstream ``recoverAllocatedHyperNode``;
    ties, which upstream leaves to map order, go to the first name)."""
    if not rows:
        return ""
    holding = [i for i in tree.infos.values() if all(r in i.rows for r in rows)]
    if not holding:
        return ""
    return min(holding, key=lambda i: (i.tier, i.name)).name
