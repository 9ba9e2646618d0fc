"""The watcher: LIST then WATCH each resource and publish what it sees to the state topics.

Per resource: LIST (paginated) → publish changes, DELETED for vanished objects and a sync marker
→ WATCH from the list's resourceVersion with bookmarks. A silent stream (no event or bookmark
within the inactivity timeout) is dropped and re-watched from the last resourceVersion; 410 Gone
means "go re-list", not an error; other failures back off and retry. Records go through one
publisher per resource that batches whatever queued up, so a burst of watch events costs one
produce round trip, and per-key order is kept. Several watchers may run: consumers dedupe.
No object can crash the watcher: one too large for a Kafka record is skipped with a log line, a
metric and a Warning Event (``SkipNotice``), and a watch line the client cannot read (over
aiohttp's line limit, or not JSON) makes it re-list, as a 410 does.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import msgspec
import structlog
from msgspec import Meta
from prometheus_client import Counter, Gauge

from services.watcher.mirror import ResourceMirror
from services.watcher.publishing import Publisher
from shared.bus import Bus
from shared.events import Envelope, ObjectDeleted, ObjectEvent, state_decoder
from shared.hops import WATCHER_PUBLISH, HopMetrics
from shared.kube import ApiError, KubeClient, ResourceType, WatchExpired, resource_for
from shared.kube.errors import CALL_ERRORS
from shared.kube.events import event_manifest
from shared.kube.resources import EVENT
from shared.service import ServiceShell
from shared.topics import Topics

TOO_LARGE_REASON = "ObjectTooLarge"
_log = structlog.get_logger()

DEFAULT_KINDS = (
    "v1/Pod",
    "v1/Node",
    "v1/ConfigMap",
    "v1/Service",
    "scheduling.k8s.io/v1/PriorityClass",
    "policy/v1/PodDisruptionBudget",
    "topology.volcano.sh/v1alpha1/HyperNode",
    "batch/v1/Job",
    "batch/v1/CronJob",
    "scheduling.volcano.sh/v1beta1/PodGroup",
    "scheduling.volcano.sh/v1beta1/Queue",
    "batch.volcano.sh/v1alpha1/Job",
    "bus.volcano.sh/v1alpha1/Command",
    "kubeflow.org/v1/PyTorchJob",
    "kueue.x-k8s.io/v1beta2/ResourceFlavor",
    "kueue.x-k8s.io/v1beta2/ClusterQueue",
    "kueue.x-k8s.io/v1beta2/LocalQueue",
    "kueue.x-k8s.io/v1beta2/Workload",
    "kueue.x-k8s.io/v1beta2/Cohort",
)


class WatcherSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What the watcher mirrors and how it treats its streams."""

    resources: Annotated[
        tuple[str, ...], Meta(description="apiVersion/Kind of every resource to mirror")
    ] = DEFAULT_KINDS
    watch_timeout: Annotated[float, Meta(gt=0, description="server-side watch timeout (s)")] = 300
    inactivity_timeout: Annotated[
        float, Meta(gt=0, description="drop a watch silent for this long (s); bookmarks count")
    ] = 60
    list_page_size: Annotated[int, Meta(ge=1, description="objects per LIST page")] = 500
    retry_backoff_max: Annotated[float, Meta(gt=0, description="cap of retry back-off (s)")] = 10


def parse_resource(spec: str) -> ResourceType:
    api_version, _, kind = spec.rpartition("/")
    return resource_for(api_version, kind)


class Metrics:
    def __init__(self, shell: ServiceShell) -> None:
        self.published = Counter(
            "shoal_watcher_records_published",
            "state records published",
            ["kind"],
            registry=shell.registry,
        )
        self.relists = Counter(
            "shoal_watcher_relists",
            "LISTs (first and after 410/errors)",
            ["kind"],
            registry=shell.registry,
        )
        self.errors = Counter(
            "shoal_watcher_errors",
            "watch/list failures",
            ["kind", "reason"],
            registry=shell.registry,
        )
        self.objects = Gauge(
            "shoal_watcher_objects", "objects known per kind", ["kind"], registry=shell.registry
        )
        self.skipped = Counter(
            "shoal_watcher_objects_skipped",
            "objects not published (too large for a Kafka record)",
            ["kind"],
            registry=shell.registry,
        )


Identity = tuple[str, str, str]
"""An object of a state record: apiVersion, namespace, name (a record's key is its job's)."""
Held = Callable[[str], Awaitable[dict[Identity, int]]]
"""Per object, the newest resourceVersion the state topics hold for one kind."""
VERIFY_ATTEMPTS = 5
VERIFY_READ_TIMEOUT_S = 30.0
"""How long one read-back may take. The read-back is a check on the broker: when the broker
cannot answer it (it is restarting again), the list stands as published and the watcher goes
on, as it did before it read anything back."""


class _IdentityMeta(msgspec.Struct):
    name: str = ""
    namespace: str = ""


class _IdentityHead(msgspec.Struct):
    apiVersion: str = ""
    metadata: _IdentityMeta = msgspec.field(default_factory=_IdentityMeta)


_identity_decoder = msgspec.json.Decoder(_IdentityHead)


def identity(event: ObjectEvent) -> Identity:
    head = _identity_decoder.decode(event.object)
    return (head.apiVersion, head.metadata.namespace, head.metadata.name)


def _rv(version: str) -> int:
    try:
        return int(version)
    except ValueError:
        return 0


class StateReader:
    """Reads the state topics back (``Held``): what the broker holds of each kind now."""

    def __init__(self, bus: Bus, topics: Topics) -> None:
        self._bus = bus
        self._topics = topics

    async def __call__(self, kind: str) -> dict[Identity, int]:
        snapshot = await self._bus.rebuild(
            topics=[self._topics.state(kind)], decode=state_decoder.decode
        )
        held: dict[Identity, int] = {}
        for record in snapshot.records:
            event = record.value
            if not isinstance(event, ObjectEvent) or event.kind != kind:
                continue
            who = identity(event)
            if isinstance(event, ObjectDeleted):
                held.pop(who, None)
            else:
                held[who] = max(held.get(who, -1), _rv(event.resourceVersion))
        return held


class ResourceWatch:
    """LIST+WATCH of one resource, forever, publishing into a Publisher."""

    def __init__(
        self,
        *,
        rt: ResourceType,
        kube: KubeClient,
        publisher: Publisher,
        settings: WatcherSettings,
        metrics: Metrics,
        producer: str,
        held: Held | None = None,
    ) -> None:
        self.rt = rt
        self.kube = kube
        self.publisher = publisher
        self.settings = settings
        self.metrics = metrics
        self.mirror = ResourceMirror(kind=rt.kind, api_version=rt.api_version, producer=producer)
        self.synced = asyncio.Event()
        self.held = held

    async def relist(self) -> None:
        items, rv = await self.kube.list_all(self.rt, limit=self.settings.list_page_size)
        events = self.mirror.listed(items, rv)
        for event in events:
            self.publisher.put(event)
        self.metrics.relists.labels(self.rt.kind).inc()
        self.metrics.published.labels(self.rt.kind).inc(len(events))
        self.metrics.objects.labels(self.rt.kind).set(len(self.mirror))
        await self.publisher.flushed()
        if not self.synced.is_set() and self.held is not None:
            await self._verify(events)
        self.synced.set()

    async def _verify(self, events: list[Any]) -> None:
        """The first list of a log generation is what every other service rebuilds from: read
        it back, and publish again what the broker does not hold. The embedded broker, just
        restarted, has acknowledged records it then did not keep (its topics being re-created
        by the clients of the log it lost), and a job whose record is lost is never synced.
        An object too large to publish is not looked for: it was never sent."""
        assert self.held is not None
        listed = [e for e in events if isinstance(e, ObjectEvent) and e.resourceVersion]
        for attempt in range(1, VERIFY_ATTEMPTS + 1):
            held = await self._read_back(attempt)
            if held is None:
                continue
            missing = [e for e in listed if held.get(identity(e), -1) < _rv(e.resourceVersion)]
            missing = [e for e in missing if self.publisher.fits(e)]
            if not missing:
                return
            _log.warning(
                "the broker does not hold every listed object; publishing them again",
                kind=self.rt.kind,
                missing=len(missing),
                listed=len(listed),
                attempt=attempt,
            )
            self.metrics.errors.labels(self.rt.kind, "ListNotHeld").inc()
            for event in missing:
                self.publisher.put(event)
            await self.publisher.flushed()
        _log.error("the broker still does not hold every listed object", kind=self.rt.kind)

    async def _read_back(self, attempt: int) -> dict[Identity, int] | None:
        assert self.held is not None
        try:
            return await asyncio.wait_for(self.held(self.rt.kind), VERIFY_READ_TIMEOUT_S)
        except Exception as exc:  # a check that cannot run must not stop the list
            self.metrics.errors.labels(self.rt.kind, "ListNotReadBack").inc()
            _log.warning(
                "cannot read the list back from the broker",
                kind=self.rt.kind,
                attempt=attempt,
                error=repr(exc),
            )
            await asyncio.sleep(min(0.5 * attempt, 2.0))
            return None

    async def watch_once(self) -> None:
        stream = self.kube.watch_raw(
            self.rt,
            resource_version=self.mirror.resource_version,
            timeout_seconds=int(self.settings.watch_timeout),
            inactivity_timeout=self.settings.inactivity_timeout,
        )
        published = self.metrics.published.labels(self.rt.kind)
        async for event_type, raw in stream:
            event = self.mirror.watched_raw(event_type, raw)
            if event is not None:
                self.publisher.put(event)
                published.inc()

    async def run(self) -> None:
        backoff = 0.1
        need_list = True
        while True:
            try:
                if need_list:
                    await self.relist()
                    need_list = False
                await self.watch_once()
                backoff = 0.1
            except WatchExpired:
                self.metrics.errors.labels(self.rt.kind, "Expired").inc()
                need_list = True
            except ValueError as exc:
                # A watch line over the client's limit (aiohttp: "Chunk too big") or one that does
                # not parse: the stream is unusable, the LIST (no line limit) is not.
                self.metrics.errors.labels(self.rt.kind, "UnreadableWatchEvent").inc()
                _log.warning(
                    "watch event unreadable; re-listing", kind=self.rt.kind, error=repr(exc)
                )
                need_list = True
            except CALL_ERRORS as exc:
                if isinstance(exc, ApiError) and too_large_resource_version(exc):
                    # The server is behind our version (it restarted and lost its state, or a
                    # lagging replica answered): re-list from scratch, as client-go does.
                    self.metrics.errors.labels(self.rt.kind, "ResourceVersionTooLarge").inc()
                    need_list = True
                    continue
                reason = exc.reason if isinstance(exc, ApiError) else type(exc).__name__
                self.metrics.errors.labels(self.rt.kind, reason).inc()
                await asyncio.sleep(backoff * (0.5 + random.random()))
                backoff = min(backoff * 2, self.settings.retry_backoff_max)


class _Head(msgspec.Struct):
    apiVersion: str = ""
    kind: str = ""
    metadata: dict[str, Any] = {}


class SkipNotice:
    """What the watcher does with an object too large to publish: a log line, a metric and a
    Warning Event on the object (in the background; an Event is best effort)."""

    def __init__(self, *, kube: KubeClient, metrics: Metrics, limit: int, producer: str) -> None:
        self._kube = kube
        self._metrics = metrics
        self._limit = limit
        self._producer = producer
        self._posting: set[asyncio.Task[None]] = set()

    async def __call__(self, event: Envelope, size: int) -> None:
        kind = getattr(event, "kind", "")
        self._metrics.skipped.labels(kind).inc()
        _log.error(
            "object too large to publish; skipped",
            kind=kind,
            key=event.key,
            size=size,
            limit=self._limit,
        )
        if isinstance(event, ObjectEvent):
            task = asyncio.create_task(self._post(event, size))
            self._posting.add(task)
            task.add_done_callback(self._posting.discard)

    async def _post(self, event: ObjectEvent, size: int) -> None:
        head = msgspec.json.decode(event.object, type=_Head)
        meta = head.metadata
        involved = {
            "apiVersion": head.apiVersion,
            "kind": head.kind,
            "name": str(meta.get("name", "")),
            "namespace": str(meta.get("namespace") or "default"),
            "uid": str(meta.get("uid", "")),
        }
        manifest = event_manifest(
            involved,
            type_="Warning",
            reason=TOO_LARGE_REASON,
            message=f"Shoal did not publish this object: {size} bytes exceed the Kafka record "
            f"limit of {self._limit} bytes, so Shoal's scheduler and controllers do not see it",
            component=self._producer,
            now=time.time(),
        )
        with contextlib.suppress(*CALL_ERRORS):
            await self._kube.create(EVENT, manifest)


def too_large_resource_version(exc: ApiError) -> bool:
    """client-go's ``isTooLargeResourceVersionError``: a 504 whose message says so."""
    return exc.status == 504 and "Too large resource version" in exc.message


async def run_watcher(
    *,
    shell: ServiceShell,
    bus: Bus,
    kube: KubeClient,
    settings: WatcherSettings,
    stopping: asyncio.Event,
) -> None:
    """Mirror every configured resource until ``stopping`` is set."""
    topics: Topics = shell.topics
    metrics = Metrics(shell)
    resources = [parse_resource(spec) for spec in settings.resources]
    await bus.create_topics(sorted({topics.state(rt.kind) for rt in resources}))
    publishers: dict[str, Publisher] = {}
    watches = []
    limit = shell.kafka.max_request_size
    notice = SkipNotice(kube=kube, metrics=metrics, limit=limit, producer="shoal-watcher")
    hops = HopMetrics(shell.registry)
    hops.depth(WATCHER_PUBLISH, lambda: float(sum(map(len, publishers.values()))))
    held = StateReader(bus, topics)
    for rt in resources:
        topic = topics.state(rt.kind)
        publisher = publishers.setdefault(
            topic, Publisher(bus, topic, max_record_bytes=limit, on_too_large=notice, hops=hops)
        )
        watches.append(
            ResourceWatch(
                rt=rt,
                kube=kube,
                publisher=publisher,
                settings=settings,
                metrics=metrics,
                producer=shell.service,
                held=held,
            )
        )

    async def mark_ready_when_listed() -> None:
        await asyncio.gather(*(w.synced.wait() for w in watches))
        await shell.state_resynced()
        shell.readiness.mark_ready()
        shell.log.info("all resources listed", kinds=[w.rt.kind for w in watches])
        await stopping.wait()

    tasks = [asyncio.create_task(p.run(), name=f"publish {t}") for t, p in publishers.items()]
    tasks += [asyncio.create_task(w.run(), name=f"watch {w.rt.kind}") for w in watches]
    tasks.append(asyncio.create_task(mark_ready_when_listed(), name="readiness"))
    stop = asyncio.create_task(stopping.wait(), name="stopping")
    try:
        done, _ = await asyncio.wait([*tasks, stop], return_when=asyncio.FIRST_COMPLETED)
        for task in done - {stop}:
            task.result()  # a crashed publisher or watch ends the service (and is logged)
    finally:
        for task in [*tasks, stop]:
            task.cancel()
        # Bounded: on Python 3.11 a watch whose read completes as it is cancelled can swallow
        # the cancellation (asyncio.wait_for) and go on; it must not hold up the shutdown.
        _, stuck = await asyncio.wait([*tasks, stop], timeout=5)
        for task in stuck:
            _log.warning("task did not stop; left behind", task=task.get_name())
