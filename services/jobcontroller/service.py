"""The job-controller service: rebuild the cache from the state topics, then sync jobs live.

Start-up reads the jobs, pods, podgroups, services, commands and queues topics from the
beginning to their high watermarks (``Bus.rebuild``), applies the records of its shard, makes
sure the ``default`` Queue exists, marks itself ready, and then follows the same partitions live
(``Bus.follow``). It never commits offsets: its state lives in the API server, so a restarted
instance simply re-reads. Every change enqueues the job it concerns; workers sync different
jobs concurrently, one job never on two workers (see ``queue``, ``syncing``, ``executor``).

Scale-out is static sharding by partition (``SHOAL_JOBCONTROLLER_SHARD``/``_SHARDS``): instance
*s* of *n* owns partitions ``p % n == s``. Not a consumer group, because every instance needs
its partitions' *whole* history to rebuild its cache, not just the records after a committed
offset, and a group rebalance would move partitions to an instance whose cache lacks them.
Known limit: changing the number of instances needs a restart of all of them with new settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Annotated, TypeVar

import msgspec
import structlog
from msgspec import Meta
from prometheus_client import Counter, Gauge, Histogram

from services.jobcontroller.cache import ControllerCache, Sharding
from services.jobcontroller.executor import ActionExecutor, KubeApi
from services.jobcontroller.queue import QueueShutDown, WorkQueue
from services.jobcontroller.syncing import Syncer
from services.jobcontroller.workkeys import QUEUE, WorkKey
from shared.bus import Bus, Record, TopicPartition
from shared.config import Duration
from shared.errors import UserError
from shared.events import ListSynced, StateEvent, state_decoder
from shared.expectations import Expectations
from shared.hops import JOBCONTROLLER_SYNC, POD_CREATION, HopMetrics
from shared.kube import ApiError, resource_for
from shared.kube.errors import CALL_ERRORS
from shared.kube.keys import object_key
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.service import ServiceShell
from shared.topics import Topics

_log = structlog.get_logger()
# Co-partitioned by job key: a shard owns the same partition numbers of each.
SHARDED_KINDS = ("Job", "Pod", "PodGroup", "Service")
QUEUE_RT = resource_for("scheduling.volcano.sh/v1beta1", "Queue")
QUEUE_RETRY_S = 1.0  # a Queue whose opening failed is tried again after this
DEFAULT_QUEUE: dict[str, object] = {
    "apiVersion": "scheduling.volcano.sh/v1beta1",
    "kind": "Queue",
    "metadata": {"name": "default"},
    "spec": {"weight": 1, "reclaimable": True},
}


class JobControllerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How the job controller shards, syncs and retries (``SHOAL_JOBCONTROLLER_*``)."""

    shard: Annotated[int, Meta(ge=0, description="this instance's shard, 0 <= shard < shards")] = 0
    shards: Annotated[int, Meta(ge=1, description="instances sharing the partitions")] = 1
    workers: Annotated[int, Meta(ge=1, description="jobs synced concurrently")] = 48
    scheduler_names: Annotated[
        tuple[str, ...], Meta(description="schedulerName values whose pods need a PodGroup")
    ] = SHOAL_SCHEDULER_NAMES
    gang_scheduler_names: Annotated[
        tuple[str, ...],
        Meta(
            description="schedulerName values for which a PyTorchJob gets one PodGroup for all "
            "its pods (the training operator's --gang-scheduler-name); empty: only with "
            "runPolicy.schedulingPolicy"
        ),
    ] = SHOAL_SCHEDULER_NAMES
    batch_managed_by: Annotated[
        str,
        Meta(
            description="the batch/v1 Job spec.managedBy this controller answers to; the default "
            "(Kubernetes' own Job controller, also what an unset managedBy means) is for a "
            "cluster where Shoal replaces that controller (kubesim, or kube-controller-manager "
            "run with --controllers=*,-job); beside a running built-in Job controller, a name "
            "of Shoal's own (shoal.io/job-controller) so each Job has one controller"
        ),
    ] = "kubernetes.io/job-controller"
    backoff_base: Annotated[Duration, Meta(description="first retry delay after a failed sync")] = (
        0.05
    )
    backoff_max: Annotated[Duration, Meta(description="cap of the retry delay")] = 60.0
    create_default_queue: Annotated[
        bool, Meta(description="create the Queue `default` if it does not exist")
    ] = True
    post_events: Annotated[bool, Meta(description="post Events on jobs (best effort)")] = True


def check_settings(settings: JobControllerSettings) -> None:
    if settings.shard >= settings.shards:
        raise UserError(
            f"SHOAL_JOBCONTROLLER_SHARD={settings.shard} must be below "
            f"SHOAL_JOBCONTROLLER_SHARDS={settings.shards}"
        )


_M = TypeVar("_M", Counter, Histogram)


class Metrics:
    def __init__(self, shell: ServiceShell, queue: WorkQueue[WorkKey]) -> None:
        registry = shell.registry
        self.syncs = Counter(
            "shoal_jobcontroller_syncs", "syncs", ["kind", "result"], registry=registry
        )
        self.sync_seconds = Histogram(
            "shoal_jobcontroller_sync_seconds", "time per sync", ["kind"], registry=registry
        )
        self.created = Counter(
            "shoal_jobcontroller_created", "objects created", ["kind"], registry=registry
        )
        self.deleted = Counter(
            "shoal_jobcontroller_deleted", "objects deleted", ["kind"], registry=registry
        )
        self.errors = Counter(
            "shoal_jobcontroller_errors", "failed syncs", ["reason"], registry=registry
        )
        depth = Gauge("shoal_jobcontroller_queue_depth", "keys waiting", registry=registry)
        depth.set_function(lambda: float(len(queue)))
        delayed = Gauge("shoal_jobcontroller_queue_delayed", "keys requeued", registry=registry)
        delayed.set_function(lambda: float(queue.delayed))
        self._children: dict[tuple[object, ...], object] = {}

    def child(self, metric: _M, *values: str) -> _M:
        """``metric.labels(*values)``, looked up once: ``labels`` validates its values and takes
        a lock on every call (~2 % of the controller's CPU in a burst, a few calls per sync)."""
        key = (id(metric), *values)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*values)
        return found  # type: ignore[return-value]


class JobController:
    """The cache, the queue and the workers of one shard."""

    def __init__(
        self,
        *,
        shell: ServiceShell,
        bus: Bus,
        kube: KubeApi,
        settings: JobControllerSettings,
    ) -> None:
        check_settings(settings)
        self.shell = shell
        self.bus = bus
        self.kube = kube
        self.settings = settings
        self.sharding = Sharding(settings.shard, settings.shards)
        self.queue: WorkQueue[WorkKey] = WorkQueue(
            backoff_base=settings.backoff_base, backoff_max=settings.backoff_max
        )
        # Per queued key, when the watcher observed the first change it has not synced yet
        # (live records only: a rebuild's records are history, not waits).
        self._waiting_since: dict[WorkKey, float] = {}
        self._observed_at = 0.0
        self._queues_changed = asyncio.Event()  # a Queue record arrived: open_new_queues looks
        self.cache = ControllerCache(
            expectations=Expectations(),
            on_work=self._on_work,
            scheduler_names=frozenset(settings.scheduler_names),
            batch_managed_by=settings.batch_managed_by,
        )
        executor = ActionExecutor(
            kube, self.cache, component="shoal-jobcontroller", post_events=settings.post_events
        )
        self.syncer = Syncer(
            cache=self.cache,
            executor=executor,
            gang_scheduler_names=frozenset(settings.gang_scheduler_names),
        )
        self.metrics = Metrics(shell, self.queue)
        self.hops = HopMetrics(shell.registry)
        for hop in (JOBCONTROLLER_SYNC, POD_CREATION):
            self.hops.depth(hop, lambda: float(len(self.queue)))
        self.log = shell.log.bind(shard=settings.shard, shards=settings.shards)
        self._topics = _topics(shell.topics)
        self._sharded_topics = frozenset(shell.topics.state(kind) for kind in SHARDED_KINDS)
        self._queue_topic = shell.topics.state("Queue")
        self._jobs_partitions = 1

    async def run(self, stopping: asyncio.Event) -> None:
        await self.bus.create_topics(self._topics)
        positions = await self.rebuild()
        self.shell.readiness.mark_ready()
        workers = [
            asyncio.create_task(self._work(), name=f"sync worker {i}")
            for i in range(self.settings.workers)
        ]
        if self.settings.create_default_queue:
            # In the background: an API server that refuses it must not stall every job.
            workers.append(asyncio.create_task(self.ensure_default_queue(stopping)))
        if self.settings.shard == 0:
            workers.append(asyncio.create_task(self.open_new_queues(stopping)))
        try:
            await self.bus.follow(
                positions=positions,
                decode=state_decoder.decode,
                handler=self.handle,
                stopping=stopping,
                # Commands, Services and Queues may wait ~1.5 s at rest.
                wake_topics=_topics(self.shell.topics, ("Job", "Pod", "PodGroup", "Workload")),
            )
        finally:
            self.queue.shutdown()  # in-flight syncs finish; waiting keys are dropped
            await asyncio.gather(*workers, return_exceptions=True)

    async def rebuild(self) -> dict[TopicPartition, int]:
        """Read our partitions from the beginning into the cache; where to follow from."""
        started = time.perf_counter()
        snapshot = await self.bus.rebuild(topics=self._topics, decode=state_decoder.decode)
        jobs_topic = self.shell.topics.state("Job")
        self._jobs_partitions = sum(1 for tp in snapshot.positions if tp.topic == jobs_topic) or 1
        await self.handle(snapshot.records, live=False)
        owned = {tp: o for tp, o in snapshot.positions.items() if self._owns_partition(tp)}
        self.log.info(
            "cache rebuilt",
            records=len(snapshot.records),
            objects=self.cache.objects.applied,
            jobs=sum(1 for _ in self.cache.jobs()),
            queued=len(self.queue),
            seconds=round(time.perf_counter() - started, 3),
        )
        return owned

    async def handle(self, records: Sequence[Record[StateEvent]], *, live: bool = True) -> None:
        """Apply records of our shard; a record that cannot be applied is logged and skipped."""
        for record in records:
            self._observed_at = record.value.occurred_at if live else 0.0
            try:
                if self._keeps(record):
                    self.cache.apply(record.value)
                    if record.topic == self._queue_topic:
                        self._queues_changed.set()
            except Exception:
                self.log.exception(
                    "state record skipped",
                    topic=record.topic,
                    partition=record.partition,
                    offset=record.offset,
                )
        self._observed_at = 0.0

    def _on_work(self, key: WorkKey) -> None:
        if self._observed_at and key not in self._waiting_since:
            self._waiting_since[key] = self._observed_at
        self.queue.add(key)

    def _owns_partition(self, tp: TopicPartition) -> bool:
        return tp.topic not in self._sharded_topics or self.sharding.owns(tp.partition)

    def _keeps(self, record: Record[StateEvent]) -> bool:
        topics = self.shell.topics
        if record.topic == topics.state("Command"):
            return self._keeps_command(record.value)
        return self._owns_partition(TopicPartition(record.topic, record.partition))

    def _keeps_command(self, event: StateEvent) -> bool:
        """Commands are keyed by their own name: keep those whose target job is ours."""
        if isinstance(event, ListSynced) or self.sharding.shards == 1:
            return True
        head = msgspec.json.decode(event.object, type=_CommandHead)
        if head.target is None:
            return False
        target = object_key(head.metadata.namespace, head.target.name)
        return self.sharding.owns_key(target, self._jobs_partitions)

    async def ensure_default_queue(self, stopping: asyncio.Event) -> None:
        """architecture §4: the ``default`` Queue exists from the start. Retries until it does."""
        delay = self.settings.backoff_base
        while self.cache.objects.get(QUEUE, "default") is None and not stopping.is_set():
            try:
                await self.kube.create(QUEUE_RT, dict(DEFAULT_QUEUE))
                self.log.info("created the default Queue")
                return
            except CALL_ERRORS as exc:
                if isinstance(exc, ApiError) and exc.status == 409:
                    return
                self.log.warning("cannot create the default Queue yet", error=str(exc))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), delay)
            delay = min(delay * 2, self.settings.backoff_max)

    async def open_new_queues(self, stopping: asyncio.Event) -> None:
        """Volcano's queue controller: a Queue with no ``status.state`` yet is opened
        (``Open``), so users and tools see the state Volcano shows. Queues are few: the cache
        is scanned when a Queue record arrives (and every ``QUEUE_RETRY_S`` while a patch that
        failed waits for its retry), one status patch per new Queue."""
        opened: set[str] = set()
        while not stopping.is_set():
            self._queues_changed.clear()
            failed = False
            for name, queue in list(self.cache.objects.items(QUEUE)):
                if queue.status.state or name in opened:
                    continue
                try:
                    await self.kube.patch(
                        QUEUE_RT, name, {"status": {"state": "Open"}}, subresource="status"
                    )
                    opened.add(name)
                except CALL_ERRORS as exc:
                    failed = True
                    self.log.warning("cannot open the Queue", queue=name, error=str(exc))
            changed = asyncio.ensure_future(self._queues_changed.wait())
            stop = asyncio.ensure_future(stopping.wait())
            try:
                await asyncio.wait(
                    {changed, stop},
                    timeout=QUEUE_RETRY_S if failed else None,
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                changed.cancel()
                stop.cancel()

    async def _work(self) -> None:
        while True:
            try:
                key = await self.queue.get()
            except QueueShutDown:
                return
            try:
                await self.sync(key)
            finally:
                self.queue.done(key)

    async def sync(self, key: WorkKey) -> None:
        """Sync one key and requeue it as its outcome says; never raises."""
        with structlog.contextvars.bound_contextvars(job=key.key, kind=key.type_key):
            await self._sync(key)

    async def _sync(self, key: WorkKey) -> None:
        started = time.perf_counter()
        m = self.metrics
        waiting_since = self._waiting_since.pop(key, 0.0)
        try:
            result = await self.syncer.sync(key)
        except Exception:
            self.log.exception("sync crashed")
            m.child(m.errors, "exception").inc()
            m.child(m.syncs, key.type_key, "error").inc()
            self.queue.add_rate_limited(key)
            return
        finally:
            m.child(m.sync_seconds, key.type_key).observe(time.perf_counter() - started)
        outcome = result.outcome
        hop = POD_CREATION if outcome.created.get("Pod") else JOBCONTROLLER_SYNC
        self.hops.observe(hop, waiting_since, time.time())
        for kind, count in outcome.created.items():
            m.child(m.created, kind).inc(count)
        for kind, count in outcome.deleted.items():
            m.child(m.deleted, kind).inc(count)
        if outcome.failed:
            reason = "transient" if outcome.transient_only else "api"
            m.child(m.errors, reason).inc()
            m.child(m.syncs, key.type_key, "error").inc()
            delay = self.queue.add_rate_limited(key)
            errors = [str(e) for e in outcome.errors]
            self.log.warning("sync failed; requeued", retry_in=delay, errors=errors)
            return
        m.child(m.syncs, key.type_key, "ok").inc()
        self.queue.forget(key)
        if result.requeue_after is not None:
            self.queue.add_after(key, result.requeue_after)


class _Target(msgspec.Struct):
    name: str = ""


class _Meta(msgspec.Struct):
    namespace: str = ""


class _CommandHead(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)
    target: _Target | None = None


def _topics(
    topics: Topics,
    kinds: Sequence[str] = (*SHARDED_KINDS, "Command", "Queue", "Workload", "PriorityClass"),
) -> list[str]:
    return sorted({topics.state(kind) for kind in kinds})


async def run_jobcontroller(
    *,
    shell: ServiceShell,
    bus: Bus,
    kube: KubeApi,
    settings: JobControllerSettings,
    stopping: asyncio.Event,
) -> None:
    """Run one shard of the job controller until ``stopping`` is set."""
    await JobController(shell=shell, bus=bus, kube=kube, settings=settings).run(stopping)
