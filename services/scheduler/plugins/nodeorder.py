"""nodeorder: kube-scheduler's scoring, weighted as Volcano's ``<name>.weight`` arguments.

least/most requested and balanced allocation use kube-scheduler's integer maths on cpu and
memory (scores 0-100); preferred node affinity, PreferNoSchedule taints, pod topology spread
and preferred inter-pod affinity are normalised over the candidate nodes scored, and image
locality reads other nodes' images, which makes them depend on other rows (no per-row
caching then). Each costs nothing for a task it cannot score: no weight, no terms, no images.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import FloatVec, IntVec
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import Rows
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.kubescores.balancedallocation import (
    balanced_row,
    balanced_score,
    columns,
)
from services.scheduler.plugins.kubescores.imagelocality import ImageLocality
from services.scheduler.plugins.kubescores.interpodaffinity import InterPodAffinity, preferred
from services.scheduler.plugins.kubescores.podcounts import PodCounts, Topology
from services.scheduler.plugins.kubescores.podtopologyspread import (
    PodTopologySpread,
    has_soft_constraints,
)
from services.scheduler.plugins.predicates import _term_matches
from shared.resources import GPU

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "nodeorder"
MAX_SCORE = 100
# Volcano's ``calculateWeight`` defaults: mostrequested is off unless weighted.
WEIGHTS = {
    "nodeaffinity.weight": 2,
    "podaffinity.weight": 2,
    "leastrequested.weight": 1,
    "balancedresource.weight": 1,
    "mostrequested.weight": 0,
    "tainttoleration.weight": 3,
    "imagelocality.weight": 1,
    "podtopologyspread.weight": 2,
}


def _per_resource(alloc: IntVec, requested: IntVec, *, least: bool) -> IntVec:
    safe = np.where(alloc > 0, alloc, 1)
    raw = (alloc - requested if least else requested) * MAX_SCORE // safe
    result: IntVec = np.where((alloc <= 0) | (requested > alloc), 0, raw)
    return result


def requested_score(nodes: NodeTable, req: IntVec, rows: Rows, *, least: bool) -> FloatVec:
    """kube-scheduler LeastAllocated/MostAllocated over cpu and memory, weight 1 each."""
    alloc = nodes.allocatable[rows][:, :2]
    requested = nodes.used[rows][:, :2] + req[:2]
    scores = _per_resource(alloc, requested, least=least)
    counted = (alloc > 0).sum(axis=1)
    total = scores.sum(axis=1)
    out: FloatVec = np.where(counted > 0, total // np.maximum(counted, 1), 0).astype(np.float64)
    return out


def requested_row(alloc: list[int], used: list[int], req: list[int], *, least: bool) -> float:
    """``requested_score`` for one row in plain Python (same integer maths, same result)."""
    total = counted = 0
    for a, r in ((alloc[0], used[0] + req[0]), (alloc[1], used[1] + req[1])):
        if a > 0:
            counted += 1
            if r <= a:
                total += (a - r) * MAX_SCORE // a if least else r * MAX_SCORE // a
    return float(total // counted) if counted else 0.0


class NodeOrderPlugin(BasePlugin):
    name = NAME

    def __init__(self, args: Arguments) -> None:
        self.weights = {key: args.integer(key, default) for key, default in WEIGHTS.items()}

    def on_session_open(self, ssn: Session) -> None:
        nodes = ssn.nodes
        self.prefer_taints = any(
            t.effect == "PreferNoSchedule" for c in nodes.classes for t in c.taints
        )
        spread, interpod = _pod_constraints(ssn)
        counts, topology = PodCounts(nodes), Topology(nodes)
        self.spread = (
            PodTopologySpread(nodes, counts, topology)
            if spread and self.weights["podtopologyspread.weight"]
            else None
        )
        self.interpod = (
            InterPodAffinity(nodes, counts, topology)
            if interpod and self.weights["podaffinity.weight"]
            else None
        )
        self.images = (
            ImageLocality(nodes) if nodes.images and self.weights["imagelocality.weight"] else None
        )
        self.gpu = ssn.space.index.get(GPU)
        self._requests: dict[int, tuple[IntVec, list[int], list[int]]] = {}
        ssn.points.node_order.add(NAME, self)
        if self.spread is not None or self.interpod is not None:
            self.counts = counts
            ssn.points.on_allocate.add(NAME, self._placed)
            ssn.points.on_deallocate.add(NAME, self._placed)

    def _placed(self, task: TaskInfo) -> None:
        self.counts.update(task)
        if self.interpod is not None:
            self.interpod.track(task)

    def _preferred(self, task: TaskInfo) -> list[Any]:
        affinity = task.pod.spec.affinity
        node = affinity.nodeAffinity if affinity else None
        return list(node.preferredDuringSchedulingIgnoredDuringExecution) if node else []

    def row_local(self, task: TaskInfo) -> bool:
        if self.prefer_taints and self.weights["tainttoleration.weight"]:
            return False
        affinity = task.pod.spec.affinity
        if affinity is not None and self.weights["nodeaffinity.weight"] and self._preferred(task):
            return False
        if self.spread is not None and has_soft_constraints(task):
            return False
        if self.interpod is not None and self.interpod.applies(task):
            return False
        return self.images is None or not self.images.applies(task)

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        w = self.weights
        req = task.request
        total = np.zeros(len(nodes.class_of[rows]), dtype=np.float64)
        if w["leastrequested.weight"]:
            total += requested_score(nodes, req, rows, least=True) * w["leastrequested.weight"]
        if w["mostrequested.weight"]:
            total += requested_score(nodes, req, rows, least=False) * w["mostrequested.weight"]
        if w["balancedresource.weight"]:
            total += balanced_score(nodes, req, rows, self.gpu) * w["balancedresource.weight"]
        if w["nodeaffinity.weight"] and self._preferred(task):
            total += self._affinity(task, nodes, rows) * w["nodeaffinity.weight"]
        if w["tainttoleration.weight"] and self.prefer_taints:
            total += self._taints(task, nodes, rows) * w["tainttoleration.weight"]
        if self.spread is not None and has_soft_constraints(task):
            total += self.spread.score(task, rows) * w["podtopologyspread.weight"]
        if self.interpod is not None and self.interpod.applies(task):
            total += self.interpod.score(task, rows) * w["podaffinity.weight"]
        if self.images is not None and self.images.applies(task):
            total += self.images.score(task, rows) * w["imagelocality.weight"]
        return total

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        """One row's score for row-local tasks; bit-identical to ``score`` on that row."""
        request = task.request
        # The request as plain ints (numpy scalar compares cost more here) and its balanced
        # columns, kept per request vector: the tasks of one template share theirs.
        known = self._requests.get(id(request))
        if known is None or known[0] is not request:
            full = request.tolist()
            known = self._requests[id(request)] = (request, full, columns(full, self.gpu))
        _, req, cols = known
        alloc = nodes.allocatable_rows[row]
        used = nodes.used[row].tolist()
        w = self.weights
        a0, a1 = alloc[0], alloc[1]
        if len(cols) == 2 and a0 > 0 and a1 > 0:
            return self._cpu_memory_row(a0, a1, used[0] + req[0], used[1] + req[1])
        total = 0.0
        if w["leastrequested.weight"]:
            total += requested_row(alloc, used, req, least=True) * w["leastrequested.weight"]
        if w["mostrequested.weight"]:
            total += requested_row(alloc, used, req, least=False) * w["mostrequested.weight"]
        if w["balancedresource.weight"]:
            total += balanced_row(alloc, used, req, cols) * w["balancedresource.weight"]
        return total

    def _cpu_memory_row(self, a0: int, a1: int, r0: int, r1: int) -> float:
        """``score_row`` on a node with cpu and memory for a pod asking for either but no GPU:
        ``requested_row`` and ``balanced_row`` inline (the same integer and float maths)."""
        w = self.weights
        total = 0.0
        least, most = w["leastrequested.weight"], w["mostrequested.weight"]
        if least:
            free = (a0 - r0) * MAX_SCORE // a0 if r0 <= a0 else 0
            free += (a1 - r1) * MAX_SCORE // a1 if r1 <= a1 else 0
            total += float(free // 2) * least
        if most:
            taken = r0 * MAX_SCORE // a0 if r0 <= a0 else 0
            taken += r1 * MAX_SCORE // a1 if r1 <= a1 else 0
            total += float(taken // 2) * most
        balanced = w["balancedresource.weight"]
        if balanced:
            first, second = min(r0 / a0, 1.0), min(r1 / a1, 1.0)
            total += float(math.trunc((1 - abs((first - second) / 2)) * MAX_SCORE)) * balanced
        return total

    def _affinity(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        per_class = np.array(
            [
                sum(
                    p.weight for p in self._preferred(task) if _term_matches(p.preference, c.labels)
                )
                for c in nodes.classes
            ],
            dtype=np.float64,
        )
        raw = per_class[nodes.class_of[rows]]
        top = raw.max() if len(raw) else 0.0
        out: FloatVec = np.floor(raw * MAX_SCORE / top) if top > 0 else raw
        return out

    def _taints(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        tolerations = task.pod.spec.tolerations
        per_class = np.array(
            [
                sum(
                    1
                    for t in c.taints
                    if t.effect == "PreferNoSchedule"
                    and not any(tol.tolerates(t) for tol in tolerations)
                )
                for c in nodes.classes
            ],
            dtype=np.float64,
        )
        raw = per_class[nodes.class_of[rows]]
        top = raw.max() if len(raw) else 0.0
        # DefaultNormalizeScore reversed: the integer share first, then 100 minus it.
        out: FloatVec = (
            MAX_SCORE - np.floor(raw * MAX_SCORE / top) if top > 0 else np.full_like(raw, 100)
        )
        return out


def _pod_constraints(ssn: Session) -> tuple[bool, bool]:
    """Does any pending task carry soft spread constraints, and does any task (pending or
    placed) carry preferred pod (anti-)affinity? Without them those scores cost nothing."""
    spread = interpod = False
    placed = (t for row in ssn.nodes.tasks for t in row.values())
    pending = (t for job in ssn.jobs.values() for t in job.pending_tasks())
    for task in pending:
        spec = task.pod.spec
        spread = spread or has_soft_constraints(task)
        interpod = interpod or (spec.affinity is not None and bool(preferred(task.pod)))
        if spread and interpod:
            return True, True
    for task in placed:
        if task.pod.spec.affinity is not None and preferred(task.pod):
            return spread, True
    return spread, interpod


def new(arguments: dict[str, Any]) -> NodeOrderPlugin:
    return NodeOrderPlugin(Arguments(arguments, known=WEIGHTS))
