"""network-topology-aware (Volcano ``pkg/scheduler/plugins/network-topology-aware``).

With HyperNodes in the cluster it registers, as upstream:

- HyperNode gradients for a job with a hard (or, converted, soft) network topology: the
  HyperNodes of tier ≤ ``highestTierAllowed`` under the search root, breadth first, grouped by
  tier, lowest first; the root is the cluster's top, or for a job with tasks placed the highest
  allowed ancestor of its allocated HyperNode; before any task is placed a HyperNode whose idle
  (or future idle) does not cover the PodGroup's ``minResources`` is left out;
- HyperNode scores: binpacking of the whole job's request into the HyperNode (weighted by
  ``hypernode.binpack.cpu``/``memory``/``resources``; 0 if it overflows), ties at the top
  broken by the share of the job's tasks already there, times 100 * ``weight``;
- node scores: for a task of a topology job, how close the node's lowest HyperNode is to the
  HyperNode the job spans so far (``(maxTier - tier of their LCA) / (maxTier - minTier)``, ties
  at the top broken by the job's task share); for other pods (``hypernode.binpack.normal-pod
  .enable``) the HyperNode binpacking score of each tier holding the node, weighted by
  ``hypernode.binpack.normal-pod.fading`` ^ (tier - 1); both times 100 * ``weight``.

A job with a ``subGroupPolicy`` is scored per sub-job, as upstream scores every job: HyperNode
scores and the task share over the sub-job's tasks, node scores by LCA closeness for tasks of a
sub-job with a network topology (to the HyperNode that sub-job spans) and as other pods'
otherwise; a hard sub-job gets gradients under its job's HyperNode from its own tier,
allocated HyperNode and pending request.

Without HyperNodes it registers nothing: upstream's scores are then one value for every node.
``hypernode.gradient.evict.max-hypernodes`` is read; Shoal's gang eviction actions search no
HyperNode gradients, so it has no effect.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from services.scheduler.api import JobInfo, NodeTable, TaskInfo
from services.scheduler.api.hypernodes import HyperNodeTree
from services.scheduler.api.resources import FloatVec, less_equal
from services.scheduler.api.sub_job import GroupedJobInfo, SubJobInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import Rows, TaskGroup
from services.scheduler.framework.topology import Topology
from services.scheduler.plugins.base import BasePlugin
from shared.resources import CPU, MEMORY

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "network-topology-aware"
WEIGHT = "weight"
BINPACK_CPU = "hypernode.binpack.cpu"
BINPACK_MEMORY = "hypernode.binpack.memory"
BINPACK_RESOURCES = "hypernode.binpack.resources"
BINPACK_NORMAL_POD_ENABLE = "hypernode.binpack.normal-pod.enable"
BINPACK_NORMAL_POD_FADING = "hypernode.binpack.normal-pod.fading"
EVICT_MAX_HYPERNODES = "hypernode.gradient.evict.max-hypernodes"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    WEIGHT,
    BINPACK_CPU,
    BINPACK_MEMORY,
    BINPACK_RESOURCES,
    BINPACK_NORMAL_POD_ENABLE,
    BINPACK_NORMAL_POD_FADING,
    EVICT_MAX_HYPERNODES,
)
DEFAULT_WEIGHT = 1
DEFAULT_NORMAL_POD_FADING = 0.8
DEFAULT_EVICT_MAX_HYPERNODES = 8
MAX_NODE_SCORE = 100.0


def _weight(args: Arguments, key: str) -> int:
    value = args.integer(key, DEFAULT_WEIGHT)
    return DEFAULT_WEIGHT if value < 0 else value


class NetworkTopologyAware(BasePlugin):
    name = NAME

    def __init__(self, args: Arguments) -> None:
        self.weight = _weight(args, WEIGHT)
        self.binpack: dict[str, int] = {CPU: _weight(args, BINPACK_CPU)}
        self.binpack[MEMORY] = _weight(args, BINPACK_MEMORY)
        for name in (n.strip() for n in args.text(BINPACK_RESOURCES, "").split(",")):
            # cpu and memory keep their own keys' weights even when listed (upstream's
            # getBinPackWeight reads those first).
            if name and name not in (CPU, MEMORY):
                self.binpack[name] = _weight(args, f"{BINPACK_RESOURCES}.{name}")
        self.normal_pods = args.flag(BINPACK_NORMAL_POD_ENABLE, True)
        fading = args.number(BINPACK_NORMAL_POD_FADING, DEFAULT_NORMAL_POD_FADING)
        self.fading = DEFAULT_NORMAL_POD_FADING if fading < 0 else fading
        evict = args.integer(EVICT_MAX_HYPERNODES, DEFAULT_EVICT_MAX_HYPERNODES)
        self.evict_max_hyper_nodes = DEFAULT_EVICT_MAX_HYPERNODES if evict <= 0 else evict

    def on_session_open(self, ssn: Session) -> None:
        topology = ssn.topology
        if topology is None:
            return
        self.ssn = ssn
        self.topology: Topology = topology
        self.tree: HyperNodeTree = topology.tree
        self.min_tier, self.max_tier = self.tree.tiers[0], self.tree.tiers[-1]
        self._cache(ssn.nodes)
        ssn.points.hyper_node_gradient.add(NAME, self.gradients)
        ssn.points.hyper_node_gradient_for_sub_job.add(NAME, self.sub_job_gradients)
        self.grouped = {k: j for k, j in ssn.jobs.items() if isinstance(j, GroupedJobInfo)}
        ssn.points.hyper_node_order.add(NAME, self.hyper_node_scores)
        ssn.points.node_order.add(NAME, self)
        ssn.points.on_allocate.add(NAME, self._allocated)
        ssn.points.on_deallocate.add(NAME, self._deallocated)

    def _cache(self, nodes: NodeTable) -> None:
        """Upstream's ``hyperNodeResourceCache``: per HyperNode, sums over its nodes; ``used``
        then follows the session's allocations."""
        self.names = list(self.tree.infos)
        self.index = {name: i for i, name in enumerate(self.names)}
        width = len(nodes.space)
        sums = {k: np.zeros((len(self.names), width)) for k in ("alloc", "used", "idle", "fut")}
        self.containing: list[list[int]] = [[] for _ in range(len(nodes))]
        for i, name in enumerate(self.names):
            rows = sorted(self.tree.infos[name].rows)
            for row in rows:
                self.containing[row].append(i)
            for key, matrix in (
                ("alloc", nodes.allocatable),
                ("used", nodes.used),
                ("idle", nodes.idle),
                ("fut", nodes.future),
            ):
                sums[key][i] = matrix[rows].sum(axis=0) if rows else 0.0
        self.allocatable, self.used = sums["alloc"], sums["used"]
        self.idle, self.future = sums["idle"], sums["fut"]
        index = nodes.space.index
        self.columns = [(index[n], w) for n, w in self.binpack.items() if n in index]
        self.binpack_cols = np.array([c for c, _ in self.columns], dtype=np.intp)
        self.binpack_weights = np.array([float(w) for _, w in self.columns])
        # Per row, the index of its lowest-tier HyperNode (len(names): none).
        self.leaf_index = np.array(
            [self.index.get(leaf, len(self.names)) for leaf in self.tree.leaf_of_row],
            dtype=np.intp,
        )
        self._placed: dict[str, int] = {}
        # Per tier from min to max, each row's HyperNode of that tier (-1: none).
        self.tier_rows: list[tuple[float, npt.NDArray[np.intp]]] = []
        for tier in range(self.min_tier, self.max_tier + 1):
            of = np.full(len(nodes), -1, dtype=np.intp)
            for name in reversed(sorted(self.tree.by_tier.get(tier, []))):
                rows = sorted(self.tree.infos[name].rows)
                of[rows] = self.index[name]
            self.tier_rows.append((_power(self.fading, tier - 1), of))

    # -- events --------------------------------------------------------------------------
    def _allocated(self, task: TaskInfo) -> None:
        row = task.node
        self._placed[task.key] = row
        for i in self.containing[row]:
            self.used[i] += task.request

    def _deallocated(self, task: TaskInfo) -> None:
        row = self._placed.pop(task.key, task.node)
        if row < 0:
            return
        for i in self.containing[row]:
            self.used[i] -= task.request

    # -- HyperNode gradients -----------------------------------------------------------
    def gradients(self, job: JobInfo, hyper_node: str) -> list[list[str]]:
        constraint = self.topology.jobs.get(job.key)
        if constraint is None or constraint.highest_tier is None:
            return [[hyper_node]]
        return self._gradients(
            hyper_node, constraint.highest_tier, constraint.allocated, job.min_resources
        )

    def sub_job_gradients(self, sub: SubJobInfo, hyper_node: str) -> list[list[str]]:
        if sub.highest_tier is None:
            return [[hyper_node]]
        minimum = sub.min_resources(self.allocatable.shape[1])
        return self._gradients(hyper_node, sub.highest_tier, sub.allocated, minimum)

    def _gradients(
        self, hyper_node: str, highest: int, allocated: str, minimum: FloatVec | None
    ) -> list[list[str]]:
        root = self._search_root(hyper_node, highest, allocated)
        if not root:
            return []
        eligible: dict[int, list[str]] = {}
        queue, seen = deque([root]), {root}
        while queue:
            name = queue.popleft()
            info = self.tree.infos[name]
            if info.tier <= highest and (allocated or self._fits(name, minimum)):
                eligible.setdefault(info.tier, []).append(name)
            for child in info.children:
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
        return [eligible[tier] for tier in sorted(eligible)]

    def _search_root(self, available: str, highest: int, allocated: str) -> str:
        """Upstream ``getSearchRoot``: the intersection of ``available``'s subtree and the
        highest allowed ancestor of ``allocated``'s ("" if none)."""
        if not allocated:
            return available
        allowed = ""
        for ancestor in self.tree.ancestors(allocated):
            if self.tree.tier(ancestor) > highest:
                break
            allowed = ancestor
        if not allowed:
            return ""
        lca = self.tree.lca(available, allowed)
        if lca == allowed:
            return available
        return allowed if lca == available else ""

    def _fits(self, name: str, minimum: FloatVec | None) -> bool:
        if minimum is None:
            return True
        i = self.index[name]
        return less_equal(minimum, self.idle[i]) or less_equal(minimum, self.future[i])

    # -- HyperNode scores ----------------------------------------------------------------
    def hyper_node_scores(self, group: TaskGroup, candidates: Sequence[str]) -> dict[str, float]:
        request = np.zeros(self.allocatable.shape[1])
        for task in group.tasks.values():
            request += task.request
        scores = {name: self._binpack(self.index[name], request) for name in candidates}
        best = max(scores.values(), default=0.0)
        tied = [name for name, score in scores.items() if score == best]
        if len(tied) > 1:
            for name in tied:
                scores[name] += self._task_share(group, name)
        return {name: MAX_NODE_SCORE * self.weight * s for name, s in scores.items()}

    def _binpack(self, i: int, request: FloatVec) -> float:
        """(used + request) / allocatable averaged by weight over the requested resources
        that have one; 0 if any overflows."""
        total = weight_sum = 0.0
        for col, weight in self.columns:
            need = float(request[col])
            if need <= 0:
                continue
            used, alloc = float(self.used[i, col]), float(self.allocatable[i, col])
            if used + need > alloc:
                return 0.0
            total += weight * (used + need) / alloc
            weight_sum += weight
        return total / weight_sum if weight_sum > 0 else 0.0

    def _task_share(self, group: TaskGroup, name: str) -> float:
        tasks = group.tasks
        if not tasks:
            return 0.0
        rows = self.tree.infos[name].rows
        return sum(1 for t in tasks.values() if t.node in rows) / len(tasks)

    # -- node scores ---------------------------------------------------------------------
    def row_local(self, task: TaskInfo) -> bool:
        return False

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        return float(self.score(task, nodes, np.array([row], dtype=np.intp))[0])

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        picked = np.arange(len(nodes))[rows]
        grouped = self.grouped.get(task.job) if self.grouped else None
        if grouped is not None:
            sub = grouped.sub_job_of[task.key]
            if sub.network_topology is not None:
                allocated = self.topology.placing.get(sub.uid, "")
                raw = self._topology_scores(picked, allocated, sub.tasks)
            elif self.normal_pods:
                raw = self._normal_scores(task, picked)
            else:
                raw = np.zeros(len(picked))
        elif task.job in self.topology.jobs:
            allocated = self.topology.placing.get(task.job, "")
            raw = self._topology_scores(picked, allocated, self.ssn.jobs[task.job].tasks)
        elif self.normal_pods:
            raw = self._normal_scores(task, picked)
        else:
            raw = np.zeros(len(picked))
        return MAX_NODE_SCORE * self.weight * raw

    def _topology_scores(
        self, rows: npt.NDArray[np.intp], allocated: str, tasks: dict[str, TaskInfo]
    ) -> FloatVec:
        if not allocated:
            return np.zeros(len(rows))
        leaf = self.leaf_index[rows]
        none = len(self.names)
        close = np.zeros(none + 1)  # the last slot: nodes in no HyperNode
        for i in np.unique(leaf[leaf < none]).tolist():
            close[i] = self._closeness(self.names[i], allocated)
        out: FloatVec = close[leaf]
        if len(rows) > 1:
            tied = out == out.max()
            if np.count_nonzero(tied) > 1:
                share = np.zeros(none + 1)
                for other in tasks.values():
                    if other.node >= 0:
                        share[self.containing[other.node]] += 1.0
                out = out + np.where(tied, share[leaf] / len(tasks), 0.0)
        return out

    def _closeness(self, leaf: str, allocated: str) -> float:
        if not leaf:
            return 0.0
        if leaf == allocated:
            return 1.0
        lca = self.tree.lca(leaf, allocated)
        if lca not in self.tree.infos:
            return 0.0
        if self.min_tier == self.max_tier:
            return 1.0
        tier = self.tree.tier(lca)
        if self.min_tier <= tier <= self.max_tier:
            return (self.max_tier - tier) / (self.max_tier - self.min_tier)
        return 0.0

    def _normal_scores(self, task: TaskInfo, rows: npt.NDArray[np.intp]) -> FloatVec:
        per_hn = self._pod_binpack(task.request.astype(np.float64))
        total = np.zeros(len(rows))
        weight_sum = 0.0
        for weight, of in self.tier_rows:
            member = of[rows]
            tier_score = np.where(member >= 0, per_hn[np.maximum(member, 0)], 1.0)
            total += weight * tier_score
            weight_sum += weight
        if weight_sum <= 0:
            return np.zeros(len(rows))
        result: FloatVec = total / weight_sum
        return result

    def _pod_binpack(self, request: FloatVec) -> FloatVec:
        """``_binpack`` of one pod's request for every HyperNode at once (upstream
        ``getPodHyperNodeBinPackingScore``)."""
        cols, weights = self.binpack_cols, self.binpack_weights
        need = request[cols]
        on = need > 0
        if not on.any() or weights[on].sum() <= 0:
            return np.zeros(len(self.names))
        cols, weights, need = cols[on], weights[on], need[on]
        after = self.used[:, cols] + need
        alloc = self.allocatable[:, cols]
        over = np.any(after > alloc, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(alloc > 0, after / np.where(alloc > 0, alloc, 1.0), 0.0)
        score: FloatVec = (ratio * weights).sum(axis=1) / weights.sum()
        score[over] = 0.0
        return score


def _power(base: float, exponent: int) -> float:
    """Go's ``math.Pow`` for a tier weight (``0^0 = 1``; ``0`` to a negative power is +Inf)."""
    if base == 0 and exponent < 0:
        return math.inf
    return float(base**exponent)


def new(arguments: dict[str, Any]) -> NetworkTopologyAware:
    args = Arguments(arguments, known=ARGUMENTS, prefixes=(BINPACK_RESOURCES + ".",))
    return NetworkTopologyAware(args)
