"""allocate for a job with a ``networkTopology`` (Volcano ``allocateForJob``).

The network-topology-aware plugin groups the HyperNodes a job may use into gradients, lowest
tier first. For each gradient the job's pending tasks are dry-run inside each HyperNode's
nodes; among the HyperNodes where the job gets ready (or pipelined), the one the plugins
score highest, each scored alone, wins (ties: the first in gradient order, where upstream
takes Go's map order), its placements are replayed, and later gradients are not tried. A job
placed in a HyperNode keeps the lowest common ancestor of where it went as its allocated
HyperNode, which bounds where its remaining tasks may go. While tasks are placed, the
HyperNode they span so far is published on the session's topology for the plugin's node
scores.

Upstream searches a job's sub-jobs the same way inside the job's HyperNode; a job without a
``subGroupPolicy`` is its one default sub-job, so here the two searches are one (a job with
one goes through ``sub_job_allocate``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from services.scheduler.api import JobInfo, QueueInfo, TaskInfo
from services.scheduler.api.hypernodes import TOP, HyperNodeTree
from services.scheduler.api.resources import BoolVec
from services.scheduler.api.status import Status
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.session import Op
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

PlaceFn = Callable[
    ["Session", Placer, QueueInfo, JobInfo, list[TaskInfo], Statement, BoolVec | None], bool
]
_Solution = tuple[list[tuple[Op, TaskInfo, int]], list[TaskInfo]]


def spanned(tree: HyperNodeTree, allocated: str, row: int) -> str:
    """The HyperNode a job spans once a task is on ``row`` (upstream
    ``getNewAllocatedHyperNode``): the LCA of what it spanned and the node's lowest HyperNode."""
    leaf = tree.leaf_of_row[row]
    if not leaf:
        return allocated
    return tree.lca(leaf, allocated) if allocated else leaf


def not_ready(tree: HyperNodeTree) -> Status:
    """Why a job with a network topology waits while the HyperNode tree is unusable."""
    return Status(
        reason="HyperNodesNotReady",
        message=f"hyperNodes are not ready for scheduling: {tree.error}",
        plugin="allocate",
    )


def allocate_in_hyper_nodes(
    ssn: Session,
    placer: Placer,
    queue: QueueInfo,
    job: JobInfo,
    tasks: list[TaskInfo],
    place: PlaceFn,
) -> bool:
    """Place ``job`` within one HyperNode; True if it is ready with tasks left."""
    topology = ssn.topology
    assert topology is not None
    if not topology.tree.ready:
        job.record(not_ready(topology.tree))
        return False
    constraint = topology.jobs[job.key]
    gradients = ssn.hyper_node_gradient(job, TOP) if constraint.hard else [[TOP]]
    for gradient in gradients:
        solutions: dict[str, _Solution] = {}
        for name in gradient:
            job.fit_errors.clear()
            trial = list(tasks)
            stmt = Statement(ssn)
            topology.placing[job.key] = constraint.allocated
            place(ssn, placer, queue, job, trial, stmt, topology.tree.mask(name))
            if name != TOP:  # upstream's "In hyperNode <name>: ..." fit errors
                for key, fit in job.fit_errors.items():
                    job.fit_errors[key] = msgspec.structs.replace(fit, hyper_node=name)
            if stmt.ops and (ssn.job_ready(job) or ssn.job_pipelined(job)):
                solutions[name] = (list(stmt.ops), trial)
            stmt.discard()
        topology.placing.pop(job.key, None)
        if not solutions:
            continue
        # Upstream scores each HyperNode in its own sub-job search, as the only candidate
        # there: the plugins' tie-breaks between candidates never apply at this level.
        scores = {name: ssn.hyper_node_scores(job, [name])[name] for name in solutions}
        best = max(solutions, key=lambda n: scores[n])
        ops, left = solutions[best]
        stmt = Statement(ssn)
        stmt.redo(ops)
        tasks[:] = left
        if ssn.job_ready(job):
            stmt.commit()
            constraint.allocated = topology.tree.lca(constraint.allocated, best)
            return bool(tasks)
        stmt.keep()
        return False
    return False
