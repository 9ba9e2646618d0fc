"""kube-scheduler's InterPodAffinity score (``podaffinity.weight`` of nodeorder).

Every topology domain collects weights: the pod's preferred affinity terms add (anti-affinity
terms subtract) the term's weight for each existing pod they select in that domain, and every
existing pod's preferred (anti-)affinity terms that select the pod add (subtract) their weight
in the existing pod's domain. A candidate node sums its domains; NormalizeScore maps
``[min, max]`` of the candidates onto 0-100. Volcano builds the plugin with empty
``InterPodAffinityArgs``, so required terms of existing pods weigh nothing
(``hardPodAffinityWeight`` 0). A ``namespaceSelector`` reads as "any namespace" (Shoal does
not watch Namespaces), as the predicates plugin reads it.
"""

from __future__ import annotations

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import FloatVec
from services.scheduler.framework.extension import Rows
from services.scheduler.plugins.kubescores.podcounts import PodCounts, PodMatcher, Topology
from services.scheduler.plugins.predicates import _selects
from shared.models import Pod
from shared.models.core import WeightedPodAffinityTerm

MAX_SCORE = 100


def preferred(pod: Pod) -> list[tuple[int, WeightedPodAffinityTerm]]:
    """The pod's preferred terms with their sign: +1 affinity, -1 anti-affinity."""
    affinity = pod.spec.affinity
    if affinity is None:
        return []
    terms: list[tuple[int, WeightedPodAffinityTerm]] = []
    for sign, group in ((1, affinity.podAffinity), (-1, affinity.podAntiAffinity)):
        if group is not None:
            terms.extend((sign, t) for t in group.preferredDuringSchedulingIgnoredDuringExecution)
    return terms


def _matcher(term: WeightedPodAffinityTerm, owner: TaskInfo) -> PodMatcher:
    aff = term.podAffinityTerm
    namespaces = (
        None
        if aff.namespaceSelector is not None
        else frozenset(aff.namespaces or [owner.namespace])
    )
    return PodMatcher(aff.labelSelector, namespaces)


class InterPodAffinity:
    """Preferred pod (anti-)affinity scores; ``holders`` are placed pods with preferred terms."""

    def __init__(self, nodes: NodeTable, counts: PodCounts, topology: Topology) -> None:
        self.nodes = nodes
        self.counts = counts
        self.topology = topology
        self.holders: dict[str, TaskInfo] = {}
        for tasks in nodes.tasks:
            for task in tasks.values():
                self.track(task)

    def track(self, task: TaskInfo) -> None:
        placed = task.node >= 0 and task.key in self.nodes.tasks[task.node]
        if placed and preferred(task.pod):
            self.holders[task.key] = task
        else:
            self.holders.pop(task.key, None)

    def _selected_by_holder(self, task: TaskInfo) -> list[tuple[int, int, str, int]]:
        """(weight, sign, topology key, holder row) of holders' terms selecting ``task``."""
        hits = []
        for holder in self.holders.values():
            if holder.key == task.key:
                continue
            for sign, term in preferred(holder.pod):
                if _selects(term.podAffinityTerm, holder, task):
                    hits.append((term.weight, sign, term.podAffinityTerm.topologyKey, holder.node))
        return hits

    def applies(self, task: TaskInfo) -> bool:
        return bool(preferred(task.pod)) or bool(self._selected_by_holder(task))

    def score(self, task: TaskInfo, rows: Rows) -> FloatVec:
        candidates = np.arange(len(self.nodes))[rows]
        domains: dict[str, np.ndarray] = {}
        for sign, term in preferred(task.pod):
            codes, values = self.topology.codes(term.podAffinityTerm.topologyKey)
            pods = self.counts.of(_matcher(term, task))
            hit = (codes >= 0) & (pods > 0)
            if hit.any():
                per_value = np.bincount(codes[hit], weights=pods[hit], minlength=values)
                scores = domains.setdefault(
                    term.podAffinityTerm.topologyKey, np.zeros(values, dtype=np.int64)
                )
                scores += per_value.astype(np.int64) * (term.weight * sign)
        for weight, sign, key, row in self._selected_by_holder(task):
            codes, values = self.topology.codes(key)
            if codes[row] >= 0:
                domains.setdefault(key, np.zeros(values, dtype=np.int64))[codes[row]] += (
                    weight * sign
                )
        out = np.zeros(len(candidates), dtype=np.float64)
        if not domains or not len(candidates):
            return out
        raw = np.zeros(len(candidates), dtype=np.int64)
        for key, scores in domains.items():
            codes = self.topology.codes(key)[0][candidates]
            raw += np.where(codes >= 0, scores[np.maximum(codes, 0)], 0)
        low, high = int(raw.min()), int(raw.max())
        if high > low:
            out = np.trunc(MAX_SCORE * ((raw - low) / (high - low)))
        return out
