"""Hierarchical DRF (Volcano drf with ``enableHierarchy``): queues form a tree named by their
``volcano.sh/hierarchy`` annotation (``root/eng/dev``) with per-level weights from
``volcano.sh/hierarchy-weights`` (``100/50/50``); jobs are the leaves.

An inner node's allocation is its children's, each non-saturated child rescaled to the
smallest dominant share among them, so a child that asks only for memory does not make its
parent look rich in cpu. A node is saturated when its demand is met or it wants a resource
no longer free anywhere; saturated nodes sort last. Queues compare level by level along their
paths by (saturated, share / weight). This follows upstream's ``drf.go`` step by step,
including its quirks (a leaf's own share is not recomputed during the walk).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from services.scheduler.api import JobInfo, QueueInfo
from services.scheduler.api.resources import FloatVec, share


class Attr:
    """Volcano's ``drfAttr``: what a job (or subtree) holds and its dominant share."""

    __slots__ = ("allocated", "share")

    def __init__(self, allocated: FloatVec, share_: float = 0.0) -> None:
        self.allocated = allocated
        self.share = share_

    def copy(self) -> Attr:
        return Attr(self.allocated.copy(), self.share)


class Node:
    """One queue level or one job (a leaf: ``children is None``)."""

    __slots__ = ("attr", "children", "name", "request", "saturated", "weight")

    def __init__(
        self,
        name: str,
        attr: Attr,
        request: FloatVec,
        weight: float,
        children: dict[str, Node] | None,
    ) -> None:
        self.name = name
        self.attr = attr
        self.request = request
        self.weight = weight
        self.saturated = False
        self.children = children

    def clone(self) -> Node:
        children = (
            None if self.children is None else {k: c.clone() for k, c in self.children.items()}
        )
        node = Node(self.name, self.attr.copy(), self.request.copy(), self.weight, children)
        node.saturated = self.saturated
        return node


def _weight(weights: list[str], i: int) -> float:
    """``strconv.ParseFloat`` of the level's weight; unreadable or below 1 reads as 1."""
    try:
        value = float(weights[i])
    except (IndexError, ValueError):
        return 1.0
    return value if value >= 1 else 1.0


class Tree:
    """The hierarchy of one session, with the totals its shares are measured against."""

    def __init__(self, total: FloatVec, dims: tuple[int, ...]) -> None:
        self.total = total
        self.dims = dims
        self.allocated = np.zeros_like(total)  # Volcano's totalAllocated
        self.root = Node("root", Attr(np.zeros_like(total)), np.zeros_like(total), 1.0, {})

    def share(self, allocated: FloatVec) -> float:
        return share(allocated, self.total, self.dims)

    def clone(self) -> Tree:
        tree = Tree(self.total, self.dims)
        tree.allocated = self.allocated.copy()
        tree.root = self.root.clone()
        return tree

    def update(self, job: JobInfo, attr: Attr, queue: QueueInfo) -> None:
        """``UpdateHierarchicalShare``: (re)attach the job's leaf, then recompute the tree."""
        demanding = tuple(i for i in self.dims if self.allocated[i] < self.total[i])
        self._attach(job, attr, queue)
        self._refresh(self.root, demanding)

    def _attach(self, job: JobInfo, attr: Attr, queue: QueueInfo) -> None:
        node = self.root
        paths, weights = queue.hierarchy.split("/"), queue.hierarchy_weights.split("/")
        for i in range(1, len(paths)):
            assert node.children is not None
            child = node.children.get(paths[i])
            if child is None:
                zeros = np.zeros_like(self.total)
                child = Node(paths[i], Attr(zeros), zeros.copy(), _weight(weights, i), {})
                node.children[paths[i]] = child
            node = child
        assert node.children is not None
        node.children[job.key] = Node(job.key, attr, job_request(job, self.total), 1.0, None)

    def _refresh(self, node: Node, demanding: tuple[int, ...]) -> None:
        if node.children is None:
            node.saturated = self._saturated(node.attr.allocated, node.request, demanding)
            return
        smallest = 1.0
        for child in node.children.values():
            self._refresh(child, demanding)
            if child.attr.share != 0 and not child.saturated:
                smallest = min(smallest, self.share(child.attr.allocated))
        allocated = np.zeros_like(self.total)
        for child in node.children.values():
            if child.attr.share == 0:
                continue
            if child.saturated:
                allocated += child.attr.allocated
            else:
                allocated += child.attr.allocated * (smallest / child.attr.share)
        node.attr = Attr(allocated, self.share(allocated))
        node.saturated = all(c.saturated for c in node.children.values())

    def _saturated(
        self, allocated: FloatVec, request: FloatVec, demanding: tuple[int, ...]
    ) -> bool:
        """``resourceSaturated``: the job has what it asked for in some resource, or asks
        for a resource nobody can get more of."""
        for i in self.dims:
            if allocated[i] <= 0:
                continue
            if request[i] != 0 and allocated[i] >= request[i]:
                return True
            if i not in demanding and request[i] != 0:
                return True
        return False

    def path(self, queue: QueueInfo) -> Iterator[Node]:
        """The nodes along the queue's path, root first, as far as the tree has them."""
        node: Node | None = self.root
        names = queue.hierarchy.split("/")
        for i in range(len(names)):
            if node is None:
                return
            yield node
            if i + 1 < len(names) and node.children is not None:
                node = node.children.get(names[i + 1])
            else:
                node = None

    def queue_key(self, queue: QueueInfo) -> tuple[float, ...]:
        """``compareQueues`` as a key: per level, unsaturated first, then share / weight."""
        key: list[float] = []
        for node in self.path(queue):
            key += (float(node.saturated), node.attr.share / node.weight)
        return tuple(key)


def job_request(job: JobInfo, total: FloatVec) -> FloatVec:
    """``JobInfo.TotalRequest``: every task's request, whatever its status."""
    request = np.zeros_like(total)
    for task in job.tasks.values():
        request += task.qreq
    return request
