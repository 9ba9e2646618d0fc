"""Matching pods counted per node row, kept current while the session places and evicts.

PodTopologySpread and InterPodAffinity count, on every node, the pods a label selector picks.
Each distinct (selector, namespaces) is counted once, when a task first asks for it, and then
updated on every allocate/deallocate event, so scoring a task is array arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec
import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import IntVec
from shared.models.base import LabelSelector


@dataclass(frozen=True, slots=True)
class PodMatcher:
    """Which pods count: ``selector`` None matches nothing (a nil selector in Kubernetes);
    ``namespaces`` None means any namespace; terminating pods are left out on request."""

    selector: LabelSelector | None
    namespaces: frozenset[str] | None
    skip_deleting: bool = False
    key: bytes = field(init=False, compare=False)

    def __post_init__(self) -> None:
        spaces = sorted(self.namespaces) if self.namespaces is not None else None
        key = msgspec.json.encode((self.selector, spaces, self.skip_deleting))
        object.__setattr__(self, "key", key)

    def matches(self, task: TaskInfo) -> bool:
        if self.selector is None:
            return False
        if self.namespaces is not None and task.namespace not in self.namespaces:
            return False
        meta = task.pod.metadata
        if self.skip_deleting and meta.deletionTimestamp is not None:
            return False
        return self.selector.matches(meta.labels)


class _Counted:
    __slots__ = ("counts", "matcher", "rows")

    def __init__(self, matcher: PodMatcher, size: int) -> None:
        self.matcher = matcher
        self.counts: IntVec = np.zeros(size, dtype=np.int64)
        self.rows: dict[str, int] = {}


class PodCounts:
    """Per-row counts of matching pods, one array per matcher, updated by placement events."""

    def __init__(self, nodes: NodeTable) -> None:
        self.nodes = nodes
        self._entries: dict[bytes, _Counted] = {}

    def of(self, matcher: PodMatcher) -> IntVec:
        entry = self._entries.get(matcher.key)
        if entry is None:
            entry = _Counted(matcher, len(self.nodes))
            for row, tasks in enumerate(self.nodes.tasks):
                for task in tasks.values():
                    if matcher.matches(task):
                        entry.rows[task.key] = row
                        entry.counts[row] += 1
            self._entries[matcher.key] = entry
        return entry.counts

    def update(self, task: TaskInfo) -> None:
        """Re-count ``task`` wherever it is now (an evicted pod stays on its node)."""
        row = task.node
        placed = row >= 0 and task.key in self.nodes.tasks[row]
        for entry in self._entries.values():
            was = entry.rows.pop(task.key, -1)
            if was >= 0:
                entry.counts[was] -= 1
            if placed and entry.matcher.matches(task):
                entry.rows[task.key] = row
                entry.counts[row] += 1


class Topology:
    """Node label values as integer codes per topology key (-1: the node lacks the key)."""

    def __init__(self, nodes: NodeTable) -> None:
        self.nodes = nodes
        self._codes: dict[str, tuple[IntVec, int]] = {}

    def codes(self, key: str) -> tuple[IntVec, int]:
        """The code of every row and the number of distinct values."""
        found = self._codes.get(key)
        if found is None:
            values: dict[str, int] = {}
            codes = np.array(
                [
                    values.setdefault(labels[key], len(values)) if key in labels else -1
                    for labels in self.nodes.labels
                ],
                dtype=np.int64,
            )
            found = (codes, len(values))
            self._codes[key] = found
        return found
