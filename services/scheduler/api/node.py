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
        """``add`` for many tasks at once (a session's snapshot): the same sums, one array
        operation per matrix instead of three per task."""
        if not placed:
            return
        width = self.used.shape[1]
        rows = np.fromiter((row for row, _ in placed), dtype=np.intp, count=len(placed))
        reqs = np.array([task.request for _, task in placed], dtype=np.int64).reshape(-1, width)
        status = [task.status for _, task in placed]
        pipelined = np.fromiter(
            (s is TaskStatus.PIPELINED for s in status), dtype=bool, count=len(status)
        )
        releasing = np.fromiter(
            (s is TaskStatus.RELEASING for s in status), dtype=bool, count=len(status)
        )
        held = ~pipelined  # counted in used and idle: RELEASING and every other status
        settled = held & ~releasing  # counted in future
        for matrix, mask, sign in (
            (self.pipelined, pipelined, 1),
            (self.future, pipelined, -1),
            (self.used, held, 1),
            (self.idle, held, -1),
            (self.releasing, releasing, 1),
            (self.future, settled, -1),
        ):
            if mask.any():
                np.add.at(matrix, rows[mask], sign * reqs[mask])
        for row, task in placed:
            self.tasks[row][task.key] = task
            task.node = row
        self.changes.extend(rows.tolist())

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
