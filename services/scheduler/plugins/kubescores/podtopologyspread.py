"""kube-scheduler's PodTopologySpread score (``podtopologyspread.weight`` of nodeorder).

For each ``ScheduleAnyway`` constraint of the pod, a candidate node scores the matching pods
in its topology domain (on the node itself for ``kubernetes.io/hostname``) times
``log(domains + 2)``, plus ``maxSkew - 1``; NormalizeScore then turns fewer pods into more
points (``100 * (max + min - s) / max``), and candidates lacking a topology key get 0.
Counting honours the constraint's ``nodeAffinityPolicy`` (default Honor: the pod's
nodeSelector and required node affinity) and ``nodeTaintsPolicy`` (default Ignore), and
``matchLabelKeys`` (both feature gates on, as in current Kubernetes). Kubernetes' system
default constraints come from the Services, ReplicaSets and StatefulSets selecting a pod;
Shoal's scheduler does not watch those, so a pod without constraints is not scored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import BoolVec, FloatVec, IntVec
from services.scheduler.framework.extension import Rows
from services.scheduler.plugins.kubescores.podcounts import PodCounts, PodMatcher, Topology
from services.scheduler.plugins.predicates import node_affinity, taint_toleration
from shared.models import Pod, TopologySpreadConstraint
from shared.models.base import LabelSelector, LabelSelectorRequirement

HOSTNAME = "kubernetes.io/hostname"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
MAX_SCORE = 100


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A soft constraint with its selector resolved (``topologySpreadConstraint``)."""

    max_skew: int
    key: str
    matcher: PodMatcher
    honor_affinity: bool
    honor_taints: bool


def _selector(constraint: TopologySpreadConstraint, labels: dict[str, str]) -> LabelSelector | None:
    """The constraint's selector with ``matchLabelKeys`` added; an empty one selects no pod
    (kube-scheduler's ``countPodsMatchSelector`` counts 0 for ``Everything``)."""
    selector = constraint.labelSelector
    if selector is None:
        return None
    extra = [
        LabelSelectorRequirement(key=key, operator="In", values=[labels[key]])
        for key in constraint.matchLabelKeys
        if key in labels
    ]
    if extra:
        selector = LabelSelector(
            matchLabels=selector.matchLabels,
            matchExpressions=[*selector.matchExpressions, *extra],
        )
    if not selector.matchLabels and not selector.matchExpressions:
        return None
    return selector


def soft_constraints(pod: Pod) -> list[SpreadConstraint]:
    namespace = pod.metadata.namespace or "default"
    return [
        SpreadConstraint(
            max_skew=c.maxSkew,
            key=c.topologyKey,
            matcher=PodMatcher(
                _selector(c, pod.metadata.labels), frozenset({namespace}), skip_deleting=True
            ),
            honor_affinity=(c.nodeAffinityPolicy or HONOR) == HONOR,
            honor_taints=c.nodeTaintsPolicy == HONOR,
        )
        for c in pod.spec.topologySpreadConstraints
        if c.whenUnsatisfiable == SCHEDULE_ANYWAY
    ]


def has_soft_constraints(task: TaskInfo) -> bool:
    constraints = task.pod.spec.topologySpreadConstraints
    return bool(constraints) and any(c.whenUnsatisfiable == SCHEDULE_ANYWAY for c in constraints)


class PodTopologySpread:
    """Scores candidate rows for tasks with soft spread constraints (0-100, normalised)."""

    def __init__(self, nodes: NodeTable, counts: PodCounts, topology: Topology) -> None:
        self.nodes = nodes
        self.counts = counts
        self.topology = topology
        self._inclusion: dict[tuple[bytes, bool, bool], BoolVec] = {}

    def _included(self, task: TaskInfo, constraint: SpreadConstraint) -> BoolVec:
        """Rows whose pods count for the constraint (its node inclusion policies); per pod
        shape, which holds everything those policies read."""
        spec = task.pod.spec
        node_affinity_set = bool(spec.nodeSelector) or (
            spec.affinity is not None
            and spec.affinity.nodeAffinity is not None
            and spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
            is not None
        )
        honor_affinity = constraint.honor_affinity and node_affinity_set
        key = (task.shape, honor_affinity, constraint.honor_taints)
        found = self._inclusion.get(key)
        if found is not None:
            return found
        classes = self.nodes.classes
        keep = np.ones(len(classes), dtype=bool)
        if honor_affinity or constraint.honor_taints:
            for c, node_class in enumerate(classes):
                outside = honor_affinity and node_affinity(task, node_class) is not None
                tainted = constraint.honor_taints and taint_toleration(task, node_class) is not None
                keep[c] = not (outside or tainted)
        result: BoolVec = keep[self.nodes.class_of]
        self._inclusion[key] = result
        return result

    def score(self, task: TaskInfo, rows: Rows) -> FloatVec:
        constraints = soft_constraints(task.pod)
        candidates = np.arange(len(self.nodes))[rows]
        if not constraints or not len(candidates):
            return np.zeros(len(candidates), dtype=np.float64)
        codes = [self.topology.codes(c.key) for c in constraints]
        labelled = np.ones(len(self.nodes), dtype=bool)
        for row_codes, _ in codes:
            labelled &= row_codes >= 0
        scored = labelled[candidates]
        if not scored.any():
            return np.zeros(len(candidates), dtype=np.float64)
        total = np.zeros(len(candidates), dtype=np.float64)
        for constraint, (row_codes, values) in zip(constraints, codes, strict=True):
            pods = self.counts.of(constraint.matcher)
            if constraint.key == HOSTNAME:
                size = int(np.count_nonzero(scored))
                count: IntVec = pods[candidates]
            else:
                present = np.zeros(values, dtype=bool)
                present[row_codes[candidates[scored]]] = True
                size = int(np.count_nonzero(present))
                counted = labelled & self._included(task, constraint)
                counted &= present[np.where(row_codes >= 0, row_codes, 0)]
                per_value = np.bincount(
                    row_codes[counted], weights=pods[counted], minlength=values
                ).astype(np.int64)
                count = per_value[np.where(scored, row_codes[candidates], 0)]
            weight = math.log(size + 2)
            total += count * weight + float(constraint.max_skew - 1)
        raw = np.floor(total + 0.5).astype(np.int64)  # Go's math.Round on non-negatives
        return _normalize(raw, scored)


def _normalize(raw: IntVec, scored: BoolVec) -> FloatVec:
    """PodTopologySpread's NormalizeScore: fewer matching pods, more points."""
    out = np.zeros(len(raw), dtype=np.float64)
    if not scored.any():
        return out
    low, high = int(raw[scored].min()), int(raw[scored].max())
    if high == 0:
        out[scored] = MAX_SCORE
    else:
        out[scored] = (MAX_SCORE * (high + low - raw[scored])) // high
    return out
