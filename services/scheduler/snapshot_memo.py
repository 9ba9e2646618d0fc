"""What one snapshot build keeps for the next: each pod object's reading and task, and each
node object's reading.

The service's cache hands every cycle the same pod objects until a pod changes (a changed pod
is a new object), so most of a burst's pods are read again and again for nothing: their key,
their PodGroup's key, their requests, their status and every field of their ``TaskInfo``. The
memo keeps these per pod object (held, so an id is never reused while it is remembered) and
only for the pods of the last snapshot. The task the last session was given is kept with the
status and placement shape it was made with, and the next session gets it ``renewed`` from
those (a session changes nothing else of a task). Tasks depend on the session's resource
columns, priority classes and scheduler names too, so any change of those forgets them all.
Building with or without a memo gives the same cluster: a memo only skips work whose answer
it knows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from services.scheduler.api import ResourceSpace, TaskInfo
from services.scheduler.api.node import class_signature
from services.scheduler.api.resources import FloatVec, IntVec
from services.scheduler.api.task import TaskStatus, pod_status
from shared.errors import QuantityError
from shared.kube.keys import namespaced_key
from shared.models import Node, Pod
from shared.models.volcano import GROUP_NAME_ANNOTATION
from shared.resources import Resources

# A request as the session's vectors: int64 request, float quota twin, whether best effort.
Vectors = tuple[IntVec, FloatVec, bool]
# Distinct requests whose vectors are kept (a cluster has a few shapes; a bound, not a target).
VECTORS_KEPT = 10_000


class PodReading:
    """One pod object as a snapshot reads it; ``task``: the last session's task of it, made
    with ``status`` and ``shape``."""

    __slots__ = ("error", "group", "handled", "key", "pod", "requests", "shape", "status", "task")

    def __init__(
        self,
        pod: Pod,
        *,
        requests: Callable[[Pod], Resources],
        check: Callable[[Resources], None],
        scheduler_names: frozenset[str],
    ) -> None:
        meta, spec = pod.metadata, pod.spec
        self.pod = pod
        self.key = namespaced_key(meta.namespace, meta.name)
        group = meta.annotations.get(GROUP_NAME_ANNOTATION)
        # The key of the PodGroup the annotation names ("" without the annotation).
        self.group = namespaced_key(meta.namespace, group) if group else ""
        self.handled = (spec.schedulerName or "default-scheduler") in scheduler_names
        self.status: TaskStatus = pod_status(pod)
        self.error = ""
        self.requests: Resources | None = None
        try:
            res = requests(pod)
            check(res)
            self.requests = res
        except QuantityError as exc:
            self.error = str(exc)
        self.task: TaskInfo | None = None
        self.shape = b""


class NodeReading:
    """One node object as a snapshot reads it: its allocatable (None: unreadable, ``error``),
    its class signature, and its row in the last resource columns it was laid out in."""

    __slots__ = ("allocatable", "columns", "error", "node", "row", "signature")

    def __init__(self, node: Node, *, allocatable: Callable[[Node], Resources]) -> None:
        self.node = node
        self.error = ""
        self.allocatable: Resources | None = None
        try:
            self.allocatable = allocatable(node)
        except QuantityError as exc:
            self.error = str(exc)
        self.signature = class_signature(node)
        self.columns: tuple[str, ...] = ()
        self.row: IntVec | None = None

    def row_in(self, space: ResourceSpace) -> IntVec:
        """The allocatable as a row of ``space`` (shared: the node table copies it)."""
        if self.row is None or self.columns != space.names:
            assert self.allocatable is not None
            self.row, self.columns = space.vector(self.allocatable), space.names
        return self.row


class SnapshotMemo:
    """Pod readings by pod object, kept from one build to the next (see the module doc)."""

    def __init__(self) -> None:
        self._readings: dict[int, PodReading] = {}
        self._nodes: dict[int, NodeReading] = {}
        self._vectors: dict[object, Vectors] = {}
        self._vector_columns: tuple[str, ...] = ()
        self._context: object = None
        self._names: frozenset[str] | None = None

    def read(
        self,
        pods: Sequence[Pod],
        *,
        requests: Callable[[Pod], Resources],
        check: Callable[[Resources], None],
        scheduler_names: frozenset[str],
    ) -> list[PodReading]:
        """A reading of each pod, in order; remembers these pods' readings (only them)."""
        if scheduler_names != self._names:
            self._readings = {}  # which pods are handled depends on the names
        previous: dict[int, PodReading] = self._readings
        now: dict[int, PodReading] = {}
        out: list[PodReading] = []
        for pod in pods:
            reading = previous.get(id(pod))
            if reading is None or reading.pod is not pod:
                reading = PodReading(
                    pod, requests=requests, check=check, scheduler_names=scheduler_names
                )
            now[id(pod)] = reading
            out.append(reading)
        self._readings = now
        self._names = scheduler_names
        return out

    def read_nodes(
        self, nodes: Sequence[Node], *, allocatable: Callable[[Node], Resources]
    ) -> list[NodeReading]:
        """A reading of each node, in order; remembers these nodes' readings (only them)."""
        previous = self._nodes
        now: dict[int, NodeReading] = {}
        out: list[NodeReading] = []
        for node in nodes:
            reading = previous.get(id(node))
            if reading is None or reading.node is not node:
                reading = NodeReading(node, allocatable=allocatable)
            now[id(node)] = reading
            out.append(reading)
        self._nodes = now
        return out

    def vectors(self, columns: tuple[str, ...]) -> dict[object, Vectors]:
        """The request vectors kept for these resource columns, by request (see
        ``snapshot._VectorCache``); forgotten when the columns change."""
        if columns != self._vector_columns or len(self._vectors) > VECTORS_KEPT:
            self._vectors, self._vector_columns = {}, columns
        return self._vectors

    def fit(self, context: object) -> None:
        """Forget the tasks unless ``context`` (what else a task is made of: the
        resource columns and the priority classes) equals the previous build's."""
        if context != self._context:
            for reading in self._readings.values():
                reading.task = None
            self._context = context
