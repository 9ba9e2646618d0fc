"""What one snapshot build keeps for the next: each pod object's reading, and its task.

The service's cache hands every cycle the same pod objects until a pod changes (a changed pod
is a new object), so most of a burst's pods are read again and again for nothing: their key,
their PodGroup's key, their requests, their status and every field of their ``TaskInfo``. The
memo keeps these per pod object (held, so an id is never reused while it is remembered) and
only for the pods of the last snapshot. A task is kept as a prototype never shown to a session;
each session gets a ``TaskInfo.copy``. The prototypes depend on the session's resource columns,
priority classes and scheduler names too, so any change of those forgets them all. Building
with or without a memo gives the same cluster: a memo only skips work whose answer it knows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from services.scheduler.api import TaskInfo
from services.scheduler.api.task import TaskStatus, pod_status
from shared.errors import QuantityError
from shared.kube.keys import namespaced_key
from shared.models import Pod
from shared.models.volcano import GROUP_NAME_ANNOTATION
from shared.resources import Resources


class PodReading:
    """One pod object as a snapshot reads it; ``task`` is the prototype made for ``job``."""

    __slots__ = ("error", "group", "handled", "key", "pod", "requests", "status", "task")

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
        # The PodGroup's key ("" without the annotation), and the annotation's own value.
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


class SnapshotMemo:
    """Pod readings by pod object, kept from one build to the next (see the module doc)."""

    def __init__(self) -> None:
        self._readings: dict[int, PodReading] = {}
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

    def fit(self, context: object) -> None:
        """Forget the task prototypes unless ``context`` (what else a task is made of: the
        resource columns and the priority classes) equals the previous build's."""
        if context != self._context:
            for reading in self._readings.values():
                reading.task = None
            self._context = context
