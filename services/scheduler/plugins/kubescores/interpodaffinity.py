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

import msgspec
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


class _HeldTerm:
    """One distinct preferred term of placed pods (same owner namespace), with how many
    holders carry it on each row."""

    __slots__ = ("owner", "rows", "sign", "term")

    def __init__(self, sign: int, term: WeightedPodAffinityTerm, owner: TaskInfo) -> None:
        self.sign = sign
        self.term = term
        self.owner = owner
        self.rows: dict[int, int] = {}


class InterPodAffinity:
    """Preferred pod (anti-)affinity scores. Placed pods' preferred terms are kept grouped by
    term, so a task checks each distinct term once, however many pods carry it."""

    def __init__(self, nodes: NodeTable, counts: PodCounts, topology: Topology) -> None:
        self.nodes = nodes
        self.counts = counts
        self.topology = topology
        self._terms: dict[bytes, _HeldTerm] = {}
        self._held: dict[str, tuple[int, list[bytes]]] = {}
        for tasks in nodes.tasks:
            for task in tasks.values():
                self.track(task)

    def track(self, task: TaskInfo) -> None:
        """Follow ``task``'s preferred terms to wherever it is now placed (or nowhere)."""
        was = self._held.pop(task.key, None)
        if was is not None:
            row, keys = was
            for key in keys:
                held = self._terms[key]
                held.rows[row] -= 1
                if not held.rows[row]:
                    del held.rows[row]
        row = task.node
        if row < 0 or task.key not in self.nodes.tasks[row]:
            return
        terms = preferred(task.pod)
        if not terms:
            return
        keys = []
        for sign, term in terms:
            key = msgspec.json.encode((sign, term, task.namespace))
            entry = self._terms.get(key)
            if entry is None:
                entry = self._terms[key] = _HeldTerm(sign, term, task)
            entry.rows[row] = entry.rows.get(row, 0) + 1
            keys.append(key)
        self._held[task.key] = (row, keys)

    def _selected_by_holder(self, task: TaskInfo) -> list[tuple[_HeldTerm, int]]:
        """Held terms selecting ``task``, with the task's own holding taken out."""
        own = self._held.get(task.key)
        hits = []
        for key, held in self._terms.items():
            if not held.rows or not _selects(held.term.podAffinityTerm, held.owner, task):
                continue
            hits.append((held, own[0] if own is not None and key in own[1] else -1))
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
        for held, own_row in self._selected_by_holder(task):
            key = held.term.podAffinityTerm.topologyKey
            codes, values = self.topology.codes(key)
            delta = held.term.weight * held.sign
            for row, count in held.rows.items():
                count -= row == own_row
                if count and codes[row] >= 0:
                    domains.setdefault(key, np.zeros(values, dtype=np.int64))[codes[row]] += (
                        delta * count
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
