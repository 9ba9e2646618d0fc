"""A session's network topology: the HyperNode tree and each job's ``networkTopology``.

Built only when the cluster has HyperNodes (a cluster without them schedules every job as
before). As upstream's ``openSession``: a ``highestTierName`` is translated to its tier, a soft
job becomes hard up to the virtual top tier (so both modes take one path, the soft one without
a bound), and a job's allocated HyperNode is the lowest-tier HyperNode holding all of its
placed tasks (upstream's ``recoverAllocatedHyperNode``: Shoal keeps no state between sessions,
so it always recovers it, as upstream does after a restart).
"""

from __future__ import annotations

from collections.abc import Iterable

from services.scheduler.api import JobInfo, NodeTable
from services.scheduler.api.hypernodes import TOP, HyperNodeTree
from services.scheduler.api.task import ALLOCATED_STATUSES
from shared.models import HyperNode
from shared.models.volcano import HARD_NETWORK_TOPOLOGY_MODE, SOFT_NETWORK_TOPOLOGY_MODE


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
        if spec is None:
            continue
        highest = spec.highestTierAllowed
        if highest is None and spec.highestTierName:
            highest = tree.tier_names.get(spec.highestTierName)
        if spec.mode == SOFT_NETWORK_TOPOLOGY_MODE:
            highest = top_tier
        elif spec.mode != HARD_NETWORK_TOPOLOGY_MODE:
            highest = None
        allocated = ""
        if tree.ready:
            placed = [t.node for t in job.tasks.values() if t.status in ALLOCATED_STATUSES]
            allocated = _recover(tree, [row for row in placed if row >= 0])
        out[job.key] = JobTopology(highest, allocated)
    return Topology(tree, out)


def _recover(tree: HyperNodeTree, rows: list[int]) -> str:
    """The lowest-tier HyperNode holding every row (upstream ``recoverAllocatedHyperNode``;
    ties, which upstream leaves to map order, go to the first name)."""
    if not rows:
        return ""
    holding = [i for i in tree.infos.values() if all(r in i.rows for r in rows)]
    if not holding:
        return ""
    return min(holding, key=lambda i: (i.tier, i.name)).name
