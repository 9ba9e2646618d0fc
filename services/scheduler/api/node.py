"""All nodes as one table: int64 arrays indexed [node row, resource column].

``idle`` = allocatable - used and ``future`` = idle + releasing - pipelined (Volcano's
``FutureIdle``) are kept up to date on every task change, so predicates are array compares.
Nodes with equal labels, taints and schedulability share a *class*; static predicates are
evaluated once per class and broadcast. ``changes`` logs every row touched, so placement
caches can refresh only those rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from services.scheduler.api.resources import IntVec, ResourceSpace
from services.scheduler.api.task import TaskInfo, TaskStatus
from shared.models import ContainerImage, Node, Taint

IntMatrix = npt.NDArray[np.int64]
_PIPELINED, _RELEASING = TaskStatus.PIPELINED, TaskStatus.RELEASING


class NodeClass(msgspec.Struct, frozen=True):
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    ready: bool


def _ready(node: Node) -> bool:
    for condition in node.status.conditions:
        if condition.type == "Ready":
            return condition.status == "True"
    return True


def class_signature(node: Node) -> bytes:
    """What decides a node's class: nodes of equal signatures share their static verdicts."""
    return msgspec.json.encode(
        (
            sorted(node.metadata.labels.items()),
            tuple(node.spec.taints),
            node.spec.unschedulable,
            _ready(node),
        )
    )


class NodeTable:
    """Resource rows, node classes and the tasks on each node."""

    def __init__(
        self,
        nodes: Sequence[Node],
        allocatable: Sequence[IntVec],
        space: ResourceSpace,
        *,
        signatures: Sequence[bytes] | None = None,
    ) -> None:
        """``signatures``: each node's ``class_signature``, when the caller kept them."""
        self.space = space
        self.names: list[str] = [n.metadata.name for n in nodes]
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        width = len(space)
        shape = (len(nodes), width)
        self.allocatable: IntMatrix = (
            np.array(allocatable, dtype=np.int64).reshape(shape)
            if nodes
            else np.zeros(shape, np.int64)
        )
        self.used: IntMatrix = np.zeros(shape, dtype=np.int64)
        # Allocatable never changes in a session: plain lists for the scalar scoring path.
        self.allocatable_rows: list[list[int]] = self.allocatable.tolist()
        self.releasing: IntMatrix = np.zeros(shape, dtype=np.int64)
        self.pipelined: IntMatrix = np.zeros(shape, dtype=np.int64)
        self.idle: IntMatrix = self.allocatable.copy()
        self.future: IntMatrix = self.allocatable.copy()
        self.tasks: list[dict[str, TaskInfo]] = [{} for _ in nodes]
        self.changes: list[int] = []
        classes: dict[bytes, int] = {}
        self.classes: list[NodeClass] = []
        members = []
        if signatures is None:
            signatures = [class_signature(node) for node in nodes]
        for node, signature in zip(nodes, signatures, strict=True):
            if signature not in classes:
                classes[signature] = len(self.classes)
                self.classes.append(
                    NodeClass(
                        labels=dict(node.metadata.labels),
                        taints=tuple(node.spec.taints),
                        unschedulable=node.spec.unschedulable,
                        ready=_ready(node),
                    )
                )
            members.append(classes[signature])
        self.class_of: npt.NDArray[np.int32] = np.array(members, dtype=np.int32)
        self.labels: list[dict[str, str]] = [self.classes[c].labels for c in members]
        # ``status.images`` by row, only for the nodes reporting any (image locality).
        self.images: dict[int, list[ContainerImage]] = {
            row: list(node.status.images) for row, node in enumerate(nodes) if node.status.images
        }

    def __len__(self) -> int:
        return len(self.names)

    def add(self, row: int, task: TaskInfo) -> None:
        """Account ``task`` on ``row`` according to its status (Volcano ``NodeInfo.AddTask``)."""
        req = task.request
        status = task.status
        if status is _PIPELINED:
            self.pipelined[row] += req
            self.future[row] -= req
        elif status is _RELEASING:
            self.used[row] += req
            self.idle[row] -= req
            self.releasing[row] += req
        else:
            self.used[row] += req
            self.idle[row] -= req
            self.future[row] -= req
        self.tasks[row][task.key] = task
        task.node = row
        self.changes.append(row)

    def add_all(self, placed: Sequence[tuple[int, TaskInfo]]) -> None:
        """``add`` for many tasks at once (a session's snapshot): the same sums, added per
        distinct request vector and status kind (tasks of equal requests share their vector)
        as that vector times its tasks per row, instead of three row updates per task."""
        if not placed:
            return
        groups: dict[tuple[int, int], tuple[IntVec, list[int]]] = {}
        tasks = self.tasks
        for row, task in placed:
            status = task.status
            kind = 0 if status is _PIPELINED else 1 if status is _RELEASING else 2
            found = groups.get((id(task.request), kind))
            if found is None:
                found = groups[id(task.request), kind] = (task.request, [])
            found[1].append(row)
            tasks[row][task.key] = task
            task.node = row
        rows_total = len(self.names)
        for (_, kind), (request, rows) in groups.items():
            per_row = np.bincount(rows, minlength=rows_total).astype(np.int64)
            delta = np.outer(per_row, request)
            if kind == 0:  # pipelined: future only
                self.pipelined += delta
                self.future -= delta
            else:  # held: used and idle; releasing also counts as releasing, not in future
                self.used += delta
                self.idle -= delta
                if kind == 1:
                    self.releasing += delta
                else:
                    self.future -= delta
        self.changes.extend(row for row, _ in placed)

    def remove(self, row: int, task: TaskInfo) -> None:
        req = task.request
        status = task.status
        if status is _PIPELINED:
            self.pipelined[row] -= req
            self.future[row] += req
        elif status is _RELEASING:
            self.used[row] -= req
            self.idle[row] += req
            self.releasing[row] -= req
        else:
            self.used[row] -= req
            self.idle[row] += req
            self.future[row] += req
        del self.tasks[row][task.key]
        task.node = -1
        self.changes.append(row)

    def describe_row(self, row: int) -> str:
        return f"{self.names[row]} idle {self.space.describe(self.idle[row])}"
