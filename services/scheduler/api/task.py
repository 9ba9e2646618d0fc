"""A task is one pod of a job, as the session sees it (Volcano ``TaskInfo``)."""

from __future__ import annotations

import enum

import msgspec
import numpy as np

from services.scheduler.api.resources import FloatVec, IntVec
from shared.models import Pod
from shared.models.volcano import TASK_SPEC_KEY

PREEMPTABLE_KEY = "volcano.sh/preemptable"
REVOCABLE_ZONE_KEY = "volcano.sh/revocable-zone"
CRITICAL_PRIORITY_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})


class TaskStatus(enum.IntEnum):
    PENDING = 0
    ALLOCATED = 1
    PIPELINED = 2
    BINDING = 3
    BOUND = 4
    RUNNING = 5
    RELEASING = 6
    SUCCEEDED = 7
    FAILED = 8
    UNKNOWN = 9


# Statuses holding node resources that count as "allocated" (Volcano ``AllocatedStatus``).
ALLOCATED_STATUSES = frozenset(
    {TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING}
)
TERMINATED_STATUSES = frozenset({TaskStatus.SUCCEEDED, TaskStatus.FAILED})


def pod_status(pod: Pod) -> TaskStatus:
    """Volcano's ``getTaskStatus``: the pod phase, with deletion meaning "releasing"."""
    phase = pod.status.phase or "Pending"
    deleting = pod.metadata.deletionTimestamp is not None
    if phase == "Running":
        return _RELEASING if deleting else _RUNNING
    if phase == "Pending":
        if deleting:
            return _RELEASING
        return _BOUND if pod.spec.nodeName else _PENDING
    return _OTHER_PHASES.get(phase, _UNKNOWN)


# Enum members looked up once (an attribute of an enum class costs a lookup per use).
_PENDING, _BOUND, _RUNNING = TaskStatus.PENDING, TaskStatus.BOUND, TaskStatus.RUNNING
_RELEASING, _UNKNOWN = TaskStatus.RELEASING, TaskStatus.UNKNOWN
_OTHER_PHASES = {"Succeeded": TaskStatus.SUCCEEDED, "Failed": TaskStatus.FAILED}


def _flag(pod: Pod, key: str, default: bool) -> bool:
    """``GetPodPreemptable``: the annotation, else the label, read with ``strconv.ParseBool``
    (a value it refuses, such as ``yes``, reads as false)."""
    meta = pod.metadata
    value = meta.annotations.get(key) if meta.annotations else None
    if value is None:
        value = meta.labels.get(key) if meta.labels else None
    if value is None:
        return default
    return _go_bool(value)


def revocable_zone(pod: Pod) -> str:
    """Volcano's ``GetPodRevocableZone``: ``*`` (any revocable zone) or ``""`` (none); a pod
    annotated preemptable may use any zone unless its revocable-zone annotation says no."""
    annotations = pod.metadata.annotations
    if not annotations:
        return ""
    value = annotations.get(REVOCABLE_ZONE_KEY)
    if value is not None:
        return "*" if value == "*" else ""
    preemptable = annotations.get(PREEMPTABLE_KEY)
    return "*" if preemptable is not None and _go_bool(preemptable) else ""


def _go_bool(value: str) -> bool:
    """``strconv.ParseBool`` true values (false for anything else, errors included)."""
    return value in ("1", "t", "T", "TRUE", "true", "True")


def shape_of(pod: Pod, zone: str | None = None) -> bytes:
    """The placement signature: pods with equal shapes pass the same static predicates.
    ``zone`` is the pod's ``revocable_zone`` when the caller has it already."""
    spec = pod.spec
    if zone is None:
        zone = revocable_zone(pod)
    if not spec.nodeSelector and spec.affinity is None and not spec.tolerations and not zone:
        return (pod.metadata.namespace or "default").encode()
    return msgspec.json.encode(
        (
            sorted(spec.nodeSelector.items()),
            spec.affinity,
            spec.tolerations,
            pod.metadata.namespace,
            zone,
        )
    )


def pod_index(name: str) -> int:
    """Volcano's ``GetPodIndexUnderTask``: the last ``-`` part of ``job-task-N`` names (-1 if
    the name has fewer parts or the part is not a number)."""
    if name.count("-") < 2:
        return -1
    last = name.rpartition("-")[2]
    return int(last) if last.isdigit() else -1


_new_task = object.__new__


class TaskInfo:
    """One pod: its request vector, priority, status and (when placed) node row."""

    __slots__ = (
        "_critical",
        "_preemptable",
        "best_effort",
        "created",
        "index",
        "job",
        "key",
        "name",
        "namespace",
        "node",
        "order",
        "pod",
        "priority",
        "qreq",
        "request",
        "revocable_zone",
        "role",
        "shape",
        "status",
    )

    def __init__(
        self,
        *,
        pod: Pod,
        job: str,
        request: IntVec,
        pods_column: int,
        priority: int,
        qreq: FloatVec | None = None,
        best_effort: bool | None = None,
        status: TaskStatus | None = None,
        key: str | None = None,
    ) -> None:
        meta = pod.metadata
        self.pod = pod
        self.name = meta.name
        self.namespace = meta.namespace or "default"
        # ``namespace/name``; the snapshot passes the key it has already built.
        self.key = f"{self.namespace}/{meta.name}" if key is None else key
        self.job = job
        # Volcano's getTaskRole: the task-spec annotation, else the label the controller sets.
        self.role = meta.annotations.get(TASK_SPEC_KEY) or meta.labels.get(TASK_SPEC_KEY, "")
        self.request = request
        # The request as a float quota vector without the pod count (queue and share maths).
        if qreq is None:
            qreq = request.astype(np.float64)
            qreq[pods_column] = 0.0
        # Shared between tasks of equal requests: never mutated in place.
        self.qreq = qreq
        # Given by a caller that shares ``qreq`` between tasks (and knows it), else computed.
        self.best_effort = not qreq.any() if best_effort is None else best_effort
        self.priority = priority
        self.status = pod_status(pod) if status is None else status
        self.node = -1
        self.created = meta.creationTimestamp or ""
        # Read by the eviction actions only: worked out on first use.
        self._preemptable: bool | None = None
        self._critical: bool | None = None
        self.revocable_zone = revocable_zone(pod)
        self.shape = shape_of(pod, self.revocable_zone)
        self.index = pod_index(meta.name)
        # Position in the job's pending order, assigned once per session.
        self.order = 0

    def renewed(self, status: TaskStatus, shape: bytes) -> TaskInfo:
        """This pod's task as a new session first sees it: unplaced, with the ``status`` and
        placement ``shape`` it was made with (a session changes a task's status, node, order
        and shape, and nothing else of it). What a snapshot memo hands the next session, so
        no session sees another's changes and none pays for reading the pod again."""
        new = _new_task(TaskInfo)
        new.pod, new.name, new.namespace, new.key = self.pod, self.name, self.namespace, self.key
        new.job, new.role, new.request, new.qreq = self.job, self.role, self.request, self.qreq
        new.best_effort, new.priority, new.status = self.best_effort, self.priority, status
        new.node, new.created, new.order = -1, self.created, 0
        new._preemptable, new._critical = self._preemptable, self._critical
        new.revocable_zone, new.shape, new.index = self.revocable_zone, shape, self.index
        return new

    @property
    def preemptable(self) -> bool:
        """The ``volcano.sh/preemptable`` annotation or label (default true)."""
        if self._preemptable is None:
            self._preemptable = _flag(self.pod, PREEMPTABLE_KEY, True)
        return self._preemptable

    @property
    def critical(self) -> bool:
        """A kube-system pod or one of the system-critical priority classes (never evicted)."""
        if self._critical is None:
            self._critical = (
                self.namespace == "kube-system"
                or (self.pod.spec.priorityClassName or "") in CRITICAL_PRIORITY_CLASSES
            )
        return self._critical

    def __repr__(self) -> str:
        return f"TaskInfo({self.key}, {self.status.name}, node={self.node})"

    def refine_shape(self, part: str, value: str) -> None:
        """Set ``part`` of the placement signature: what a plugin's static predicate or
        row-local score reads beyond the pod (nodegroup: the queue's node-group policy), so
        placement caches keyed by shape keep such tasks apart. Setting a part again replaces
        it; an empty value removes it. (``shape_of`` never holds a NUL byte.)"""
        if not value and b"\x00" not in self.shape:
            return
        base, *parts = self.shape.split(b"\x00")
        prefix = f"{part}=".encode()
        kept = [p for p in parts if not p.startswith(prefix)]
        if value:
            kept = sorted([*kept, prefix + value.encode()])
        self.shape = b"\x00".join([base, *kept])
