"""From typed Kubernetes objects to a session's ``Cluster``.

What the builder decides, as Volcano's cache does: pods bound to a node consume it whatever
their scheduler (terminated pods free it; pods being deleted are *releasing*). Pods for our
schedulers (``volcano``/``shoal`` by default) join the job of the PodGroup named by the
``scheduling.k8s.io/group-name`` annotation; pods without a PodGroup are skipped with a reason
(the job controller creates PodGroups). The ``default`` queue exists even if not listed.
Bad data is contained: a job whose pod has an unparsable or out-of-range quantity, or whose
queue does not exist, is reported with a reason and left out, and so is a node whose allocatable
cannot be read or exceeds ``MAX_MILLI``; the rest of the cluster is still scheduled.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import ClassVar

import msgspec
import numpy as np

from services.scheduler.api import JobInfo, NodeTable, QueueInfo, ResourceSpace, TaskInfo
from services.scheduler.api.cluster import Cluster
from services.scheduler.api.status import Code, Status
from services.scheduler.api.sub_job import GroupedJobInfo
from services.scheduler.api.task import TERMINATED_STATUSES, TaskStatus
from services.scheduler.conf import CONFIGMAP_KEY, CONFIGMAP_NAME
from services.scheduler.snapshot_memo import NodeReading, PodReading, SnapshotMemo, Vectors
from shared.errors import QuantityError
from shared.kube.keys import namespaced_key
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.models import (
    ConfigMap,
    Container,
    HyperNode,
    Model,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
    Queue,
)
from shared.models.volcano import GROUP_NAME_ANNOTATION
from shared.resources import PODS, Resources, pod_requests

DEFAULT_SCHEDULER_NAMES = frozenset(SHOAL_SCHEDULER_NAMES)
DEFAULT_QUEUE = "default"
# kubelet's default max-pods, for nodes that do not report a ``pods`` allocatable.
DEFAULT_MAX_PODS = 110
SNAPSHOT = "snapshot"
# Largest amount of one resource on a node or in a pod, in milli-units (4 Pi-units; memory
# 4 PiB): node rows are exact int64 and must not overflow when a pod's request is added.
MAX_MILLI = 2**62


class Snapshot(msgspec.Struct, kw_only=True):
    """Everything one session looks at, as the cache (or a manifest file) holds it: the objects,
    and the text of ``volcano-scheduler.conf`` (None: Volcano's default conf)."""

    nodes: list[Node] = []
    queues: list[Queue] = []
    pod_groups: list[PodGroup] = []
    pods: list[Pod] = []
    priority_classes: list[PriorityClass] = []
    disruption_budgets: list[PodDisruptionBudget] = []
    hyper_nodes: list[HyperNode] = []
    conf_text: str | None = None

    @classmethod
    def of(cls, objects: Iterable[Model]) -> Snapshot:
        snap = cls()
        for obj in objects:
            if isinstance(obj, Node):
                snap.nodes.append(obj)
            elif isinstance(obj, Queue):
                snap.queues.append(obj)
            elif isinstance(obj, PodGroup):
                snap.pod_groups.append(obj)
            elif isinstance(obj, Pod):
                snap.pods.append(obj)
            elif isinstance(obj, PriorityClass):
                snap.priority_classes.append(obj)
            elif isinstance(obj, PodDisruptionBudget):
                snap.disruption_budgets.append(obj)
            elif isinstance(obj, HyperNode):
                snap.hyper_nodes.append(obj)
            elif isinstance(obj, ConfigMap) and obj.metadata.name == CONFIGMAP_NAME:
                snap.conf_text = obj.data.get(CONFIGMAP_KEY)
        return snap


class _Priorities:
    def __init__(self, classes: list[PriorityClass]) -> None:
        self.values = {pc.metadata.name: pc.value for pc in classes}
        self.default = next((pc.value for pc in classes if pc.globalDefault), 0)

    def of(self, name: str | None, explicit: int | None = None) -> int:
        if explicit is not None:
            return explicit
        if name and name in self.values:
            return self.values[name]
        return self.default


def _quantities(resource_list: dict[str, str | int | float]) -> Resources:
    return Resources.from_list(resource_list)


class _RequestCache:
    """Pods of one template have equal resources: parse each distinct set of quantities once.

    A pod's requests are also remembered from the previous snapshot by the identity of its
    container lists (held, so an id is not reused): the cache keeps the same pod objects from
    cycle to cycle, and building the value key of every pod was most of this cost.
    """

    _previous: ClassVar[dict[int, tuple[object, object, object, Resources]]] = {}

    def __init__(self) -> None:
        self._seen: dict[tuple[object, ...], Resources] = {}
        self._single: dict[tuple[object, ...], Resources] = {}
        self._now: dict[int, tuple[object, object, object, Resources]] = {}

    def __call__(self, pod: Pod) -> Resources:
        spec = pod.spec
        containers, init, overhead = spec.containers, spec.initContainers, spec.overhead
        known = self._previous.get(id(containers))
        if (
            known is not None
            and known[0] is containers
            and known[1] is init
            and (known[2] is overhead)
        ):
            self._now[id(containers)] = known
            return known[3]
        if len(containers) == 1 and not init and not overhead:
            # The common pod: one container's quantities are the whole key.
            single = _resource_key(containers[0])
            found = self._single.get(single)
            if found is None:
                found = self._single[single] = pod_requests(pod)
        else:
            key = (
                tuple(_resource_key(c) for c in containers),
                tuple(_resource_key(c) for c in init),
                tuple(overhead.items()),
            )
            found = self._seen.get(key)
            if found is None:
                found = self._seen[key] = pod_requests(pod)
        self._now[id(containers)] = (containers, init, overhead, found)
        return found

    def keep(self) -> None:
        """Remember this snapshot's pods for the next one (and only them)."""
        _RequestCache._previous = self._now


class _VectorCache:
    """One int64 request vector (its float quota twin, and whether that is all zero: a
    best-effort pod) per distinct request: tasks of equal requests share their vectors, also
    with the tasks of earlier builds (``kept``, the memo's for these columns), which lets the
    node table sum them per distinct vector."""

    def __init__(self, space: ResourceSpace, kept: dict[object, Vectors]) -> None:
        self.space = space
        self._seen: dict[int, tuple[Resources, Vectors]] = {}
        self._kept = kept

    def __call__(self, res: Resources) -> Vectors:
        found = self._seen.get(id(res))
        if found is None:
            key = tuple(sorted(res.items()))
            vectors = self._kept.get(key)
            if vectors is None:
                vector = self.space.vector(res)
                qreq = vector.astype(np.float64)
                qreq[self.space.pods] = 0.0
                vectors = self._kept[key] = (vector, qreq, not qreq.any())
            found = self._seen[id(res)] = (res, vectors)
        return found[1]


def _resource_key(container: Container) -> tuple[object, ...]:
    res = container.resources
    if res is None:
        return ()
    return (tuple(res.requests.items()), tuple(res.limits.items()))


def build_cluster(
    snapshot: Snapshot,
    *,
    scheduler_names: frozenset[str] = DEFAULT_SCHEDULER_NAMES,
    memo: SnapshotMemo | None = None,
) -> Cluster:
    """The session's working copy; never raises on bad objects, reports them instead.
    ``memo``: what the previous build of the same caller read (the same cluster either way)."""
    build = _Build(snapshot, memo if memo is not None else SnapshotMemo())
    usable = build.usable_nodes()
    readings = build.read_pods(scheduler_names)
    queue_models, bad_queues = build.queue_models()
    group_mins = build.group_minimums()
    space = ResourceSpace(build.names)
    table = NodeTable(
        [r.node for r in usable],
        [r.row_in(space) for r in usable],
        space,
        signatures=[r.signature for r in usable],
    )
    queues = {
        name: QueueInfo(queue_models[name], space)
        for name in sorted(queue_models)
        if name not in bad_queues
    }
    priorities = _Priorities(snapshot.priority_classes)
    build.memo.fit((space.names, priorities.default, sorted(priorities.values.items())))
    jobs = build.jobs(space, priorities, group_mins, queues, bad_queues)
    build.add_tasks(readings, jobs, table, priorities)
    table.changes.clear()
    return Cluster(
        space=space,
        nodes=table,
        queues=queues,
        jobs=jobs,
        job_errors=build.job_errors,
        skipped=build.skipped,
        disruption_budgets=snapshot.disruption_budgets,
        hyper_nodes=snapshot.hyper_nodes,
    )


class _Build:
    """One ``build_cluster``, step by step: what each step reports (``skipped``,
    ``job_errors``) and the resource names the steps find, which make the session's space."""

    def __init__(self, snapshot: Snapshot, memo: SnapshotMemo) -> None:
        self.snapshot = snapshot
        self.memo = memo
        self.skipped: dict[str, str] = {}
        self.job_errors: dict[str, Status] = {}
        self.names: set[str] = set()

    def usable_nodes(self) -> list[NodeReading]:
        """The nodes by name; one whose capacity cannot be read runs nothing: left out."""
        usable: list[NodeReading] = []
        ordered = sorted(self.snapshot.nodes, key=lambda n: n.metadata.name)
        for reading in self.memo.read_nodes(ordered, allocatable=_node_allocatable):
            if reading.allocatable is None:
                name = reading.node.metadata.name
                self.skipped[f"node/{name}"] = f"invalid allocatable: {reading.error}"
                continue
            usable.append(reading)
            self.names.update(reading.allocatable)
        return usable

    def read_pods(self, scheduler_names: frozenset[str]) -> list[PodReading]:
        requests_of = _RequestCache()
        checked: set[int] = set()  # ids of the (shared) Resources already range-checked

        def check(res: Resources) -> None:
            if id(res) not in checked:
                _check_range(res)
                checked.add(id(res))

        readings = self.memo.read(
            self.snapshot.pods, requests=requests_of, check=check, scheduler_names=scheduler_names
        )
        requests_of.keep()
        seen: set[int] = set()  # ids of the (shared) Resources whose names are counted
        for reading in readings:
            requested = reading.requests
            if requested is not None and id(requested) not in seen:
                self.names.update(requested)
                seen.add(id(requested))
        return readings

    def queue_models(self) -> tuple[dict[str, Queue], dict[str, str]]:
        """The queues (``default``, and ``root`` under a hierarchy, even if not listed) and
        the reason each one with an unreadable quota is left out."""
        models = {q.metadata.name: q for q in self.snapshot.queues}
        if DEFAULT_QUEUE not in models:
            models[DEFAULT_QUEUE] = msgspec.convert(
                {"metadata": {"name": DEFAULT_QUEUE}, "spec": {"weight": 1}}, Queue
            )
        if any(q.spec.parent for q in models.values()) and "root" not in models:
            models["root"] = msgspec.convert({"metadata": {"name": "root"}}, Queue)
        bad: dict[str, str] = {}
        for name, queue in models.items():
            try:
                guarantee = queue.spec.guarantee.resource if queue.spec.guarantee else {}
                for quota in (queue.spec.capability, queue.spec.deserved, guarantee):
                    self.names.update(_quantities(quota))
            except QuantityError as exc:
                bad[name] = str(exc)
        return models, bad

    def group_minimums(self) -> dict[str, Resources | None]:
        """Each PodGroup's ``minResources``; an unreadable one is its job's error."""
        minimums: dict[str, Resources | None] = {}
        for pg in self.snapshot.pod_groups:
            key = namespaced_key(pg.metadata.namespace, pg.metadata.name)
            try:
                minimums[key] = _quantities(pg.spec.minResources) if pg.spec.minResources else None
                self.names.update(minimums[key] or ())
            except QuantityError as exc:
                self.job_errors[key] = _status("InvalidQuantity", f"spec.minResources: {exc}")
        return minimums

    def jobs(
        self,
        space: ResourceSpace,
        priorities: _Priorities,
        group_mins: dict[str, Resources | None],
        queues: dict[str, QueueInfo],
        bad_queues: dict[str, str],
    ) -> dict[str, JobInfo]:
        """A job per PodGroup, by key; one whose queue is missing or unreadable is an error."""
        jobs: dict[str, JobInfo] = {}
        for pg in sorted(self.snapshot.pod_groups, key=_group_key):
            key = _group_key(pg)
            minimum = group_mins.get(key)
            job = (GroupedJobInfo if pg.spec.subGroupPolicy else JobInfo)(
                pg,
                priority=priorities.of(pg.spec.priorityClassName),
                min_resources=space.quota(minimum) if minimum is not None else None,
            )
            jobs[key] = job
            if job.queue in bad_queues:
                self.job_errors.setdefault(
                    key, _status("InvalidQueue", f"queue {job.queue}: {bad_queues[job.queue]}")
                )
            elif job.queue not in queues:
                self.job_errors.setdefault(
                    key, _status("QueueNotFound", f"queue {job.queue!r} does not exist")
                )
        return jobs

    def add_tasks(
        self,
        readings: list[PodReading],
        jobs: dict[str, JobInfo],
        table: NodeTable,
        priorities: _Priorities,
    ) -> None:
        """Every pod as a task of its job (or of no job: a bound pod still takes room), and
        on its node when it is placed."""
        space = table.space
        placed: list[tuple[int, TaskInfo]] = []
        node_row = table.index.get
        vectors = _VectorCache(space, self.memo.vectors(space.names))
        # By key, equal keys in snapshot order (a stable sort of the positions).
        for reading in sorted(readings, key=_reading_key):
            owner = jobs.get(reading.group) if reading.group else None
            job_key = self._job_key(reading, owner)
            if job_key is None:
                continue
            task = _task(reading, job_key, space, vectors, priorities)
            if job_key and owner is not None:
                owner.add_task(task)
            status = reading.status
            if status is not _PENDING and status not in TERMINATED_STATUSES:
                row = node_row(reading.pod.spec.nodeName or "", -1)
                if row >= 0:
                    placed.append((row, task))
        table.add_all(placed)

    def _job_key(self, reading: PodReading, owner: JobInfo | None) -> str | None:
        """The pod's job ("" for a pod that only takes room on its node); None: left out.
        A pending pod with scheduling gates is left out until they are removed, as the API
        server refuses to bind it (kube-scheduler's ``SchedulingGates`` PreEnqueue)."""
        pod_key, handled = reading.key, reading.handled
        gates = reading.pod.spec.schedulingGates
        if gates and reading.status is _PENDING and not reading.pod.spec.nodeName:
            self.skipped[pod_key] = "scheduling gated: " + ", ".join(g.name for g in gates)
            return None
        if reading.requests is None:
            if handled and owner is not None:
                self.job_errors.setdefault(
                    owner.key, _status("InvalidQuantity", f"pod {pod_key}: {reading.error}")
                )
            self.skipped[pod_key] = f"invalid resources: {reading.error}"
            return None
        if handled and owner is not None:
            return owner.key
        if handled:
            group = reading.pod.metadata.annotations.get(GROUP_NAME_ANNOTATION)
            self.skipped[pod_key] = (
                f"PodGroup {group!r} not found" if group else "no PodGroup (group-name annotation)"
            )
        if reading.status in TERMINATED_STATUSES or not reading.pod.spec.nodeName:
            return None
        return ""


def _task(
    reading: PodReading,
    job_key: str,
    space: ResourceSpace,
    vectors: _VectorCache,
    priorities: _Priorities,
) -> TaskInfo:
    """The pod's task: the previous build's, renewed, when it belongs to the same job."""
    task = reading.task
    if task is not None and task.job == job_key:
        task = reading.task = task.renewed(reading.status, reading.shape)
        return task
    assert reading.requests is not None  # pods without readable requests have no task
    request, qreq, best_effort = vectors(reading.requests)
    spec = reading.pod.spec
    task = reading.task = TaskInfo(
        pod=reading.pod,
        job=job_key,
        request=request,
        pods_column=space.pods,
        priority=priorities.of(spec.priorityClassName, spec.priority) if job_key else 0,
        qreq=qreq,
        best_effort=best_effort,
        status=reading.status,
        key=reading.key,
    )
    reading.shape = task.shape
    return task


def _group_key(pg: PodGroup) -> str:
    return namespaced_key(pg.metadata.namespace, pg.metadata.name)


_PENDING = TaskStatus.PENDING


_reading_key = operator.attrgetter("key")


def _node_allocatable(node: Node) -> Resources:
    res = _quantities(node.status.allocatable or node.status.capacity)
    _check_range(res)
    if PODS not in res:
        res = res + {PODS: DEFAULT_MAX_PODS * 1000}
    return res


def _check_range(res: Resources) -> None:
    """Refuse amounts the int64 node arithmetic cannot hold (``cpu: 1e30``, ``memory: 16Ei``)."""
    for name, milli in res.items():
        if milli > MAX_MILLI:
            amount = ResourceSpace.format(name, milli)
            raise QuantityError(f"{name} {amount} exceeds the largest amount Shoal schedules")


def _status(reason: str, message: str) -> Status:
    return Status(code=Code.UNRESOLVABLE, reason=reason, message=message, plugin=SNAPSHOT)
