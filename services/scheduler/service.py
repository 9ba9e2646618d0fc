"""The scheduler service: rebuild the cache from the log, then decide every cycle while leading.

Start-up reads the state topics from the beginning to their high watermark (``/readyz`` turns
ready), then follows them live, together with the binder's results. Only the leader (see
``leadership``) runs cycles: a cycle opens a session on a view of the cache (assumed bindings
applied), publishes the decisions with the leader's epoch, and records the cycle's inputs on the
cycles topic for ``shoal replay``. A cycle runs every ``period`` and sooner after a change (no
more often than ``min_interval``). The scheduler never calls the API server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, get_args

import msgspec
from msgspec import Meta
from prometheus_client import Counter, Gauge, Histogram

from services.scheduler.admission import AdmissionState
from services.scheduler.cycle import Scheduling, conf_digest
from services.scheduler.heap import HeapFreezer
from services.scheduler.kueue import FairSharing
from services.scheduler.kueue.configuration import DEFAULT_STRATEGIES
from services.scheduler.kueue_writes import StatusPacing
from services.scheduler.leadership import (
    Leadership,
    run_group_leadership,
    run_static_leadership,
)
from services.scheduler.state import SchedulerState
from shared.bus import Bus, Outgoing, RawRecord, Record
from shared.bus.delivery import send_dead_letter
from shared.bus.generation import generation_group
from shared.events import (
    AnyEvent,
    CycleRecorded,
    Envelope,
    KueueStatusDecided,
    ObjectEvent,
    PodBindDecided,
    PodEvictDecided,
    PodGroupStatusDecided,
    PodUnschedulableDecided,
    Result,
    StateEvent,
    any_decoder,
    encode,
    result_decoder,
    state_decoder,
)
from shared.hops import (
    BIND_DECISION,
    BIND_OBSERVED,
    KUEUE_DECISION,
    PODGROUP_ENQUEUE_DECISION,
    SCHEDULING_CYCLE,
    HopMetrics,
)
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.runtime import CANCEL_WAIT_S, close_within, unless_stopping
from shared.service import ServiceShell

_STATE_TYPES = get_args(StateEvent)
_RESULT_TYPES = get_args(Result)
STATE_KINDS = (
    "Pod",
    "Node",
    "PodGroup",
    "Queue",
    "PriorityClass",
    "PodDisruptionBudget",
    "HyperNode",
    "ConfigMap",
    "Workload",
)


class SchedulerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How the scheduler cycles and who leads."""

    period: Annotated[float, Meta(gt=0, description="longest time between cycles (s)")] = 1.0
    min_interval: Annotated[
        float, Meta(ge=0, description="shortest time between cycles when changes arrive (s)")
    ] = 0.1
    busy_fraction: Annotated[
        float,
        Meta(
            gt=0,
            le=1,
            description="while changes keep arriving, the most of its time the scheduler spends "
            "in cycles: after a cycle of d seconds (its Kueue admission not counted) the next "
            "waits (d - min_interval) * (1/busy_fraction - 1), so a burst is decided in fewer, "
            "larger cycles and the followers and other processes get the rest; short cycles "
            "are not held back",
        ),
    ] = 0.5
    assume_ttl: Annotated[
        float,
        Meta(
            gt=0,
            description="forget an unconfirmed bind/evict decision after (s); a pod's next "
            "bind after one expired waits twice as long, up to 16 times",
        ),
    ] = 60.0
    status_resend: Annotated[
        float,
        Meta(
            gt=0,
            description="publish a PodGroup status again if the log still shows another one "
            "this long after (s); each further resend of it waits twice as long, up to 16 times",
        ),
    ] = 10.0
    scheduler_names: Annotated[
        tuple[str, ...], Meta(description="spec.schedulerName values this scheduler handles")
    ] = SHOAL_SCHEDULER_NAMES
    leader_group: Annotated[str, Meta(description="consumer group that elects the leader")] = (
        "shoal-scheduler"
    )
    standalone: Annotated[bool, Meta(description="lead without an election (one replica only)")] = (
        False
    )
    record_cycles: Annotated[bool, Meta(description="write each cycle to the cycles topic")] = True
    kueue: Annotated[
        bool, Meta(description="admit Kueue Workloads (ClusterQueues, LocalQueues, flavors)")
    ] = True
    kueue_counter_refresh: Annotated[
        float,
        Meta(
            ge=0,
            description="rewrite a ClusterQueue's or LocalQueue's workload counters at most "
            "this often (s); its Active condition is written at once",
        ),
    ] = 2.0
    kueue_max_waiting: Annotated[
        int,
        Meta(
            ge=1,
            description="waiting Workloads whose explanation is written per second at most "
            "(those never explained first): thousands waiting must not crowd the admissions "
            "out of the binder",
        ),
    ] = 200
    kueue_window: Annotated[
        int,
        Meta(
            ge=0,
            description="equivalent waiting Workloads (same namespace, priority and pod sets) "
            "of one ClusterQueue an admission run looks at, first in queue order (0: all); "
            "those further back keep their explanation until they come forward, as in "
            "Kueue, and a run that admits from a cut queue is followed by another",
        ),
    ] = 64
    kueue_fair_sharing: Annotated[
        bool,
        Meta(
            description="Kueue's Configuration fairSharing (enable): heads are admitted in "
            "the fair-sharing order and preempt by share, and ClusterQueues and Cohorts get "
            "status.fairSharing.weightedShare"
        ),
    ] = False
    kueue_fair_sharing_preemption_strategies: Annotated[
        tuple[str, ...],
        Meta(
            description="Kueue's fairSharing.preemptionStrategies, in order: "
            "LessThanOrEqualToFinalShare, LessThanInitialShare, or both in that order"
        ),
    ] = DEFAULT_STRATEGIES
    kueue_config: Annotated[
        str,
        Meta(
            description="a Kueue Configuration file (config.kueue.x-k8s.io v1beta1 or "
            "v1beta2, or the kueue-manager-config ConfigMap); its fairSharing replaces the "
            "two settings above, its other fields are not applied"
        ),
    ] = ""
    conf: Annotated[
        str,
        Meta(
            description="volcano-scheduler.conf path; empty: the volcano-scheduler-configmap "
            "ConfigMap from the state topics, else Volcano's default conf"
        ),
    ] = ""


class Metrics:
    def __init__(self, shell: ServiceShell) -> None:
        r = shell.registry
        self.cycles = Counter("shoal_scheduler_cycles", "cycles run", registry=r)
        self.session = Histogram("shoal_scheduler_session_seconds", "session time", registry=r)
        self.admission = Histogram(
            "shoal_scheduler_admission_seconds", "Kueue admission time per cycle", registry=r
        )
        self.decisions = Counter(
            "shoal_scheduler_decisions", "decisions published", ["type"], registry=r
        )
        self.assumed = Gauge("shoal_scheduler_assumed_pods", "unconfirmed binds", registry=r)
        self.epoch = Gauge("shoal_scheduler_epoch", "leadership epoch (0: standby)", registry=r)
        self.conf_rejected = Gauge(
            "shoal_scheduler_conf_rejected",
            "1 while the volcano-scheduler.conf shown is refused (the previous conf runs)",
            registry=r,
        )
        self.conf_warnings = Counter(
            "shoal_scheduler_conf_warnings",
            "volcano-scheduler.conf keys and plugin arguments ignored, counted per conf loaded",
            registry=r,
        )


class Scheduler:
    def __init__(
        self,
        *,
        shell: ServiceShell,
        bus: Bus,
        settings: SchedulerSettings,
        fair_sharing: FairSharing | None = None,
    ) -> None:
        """``fair_sharing``: Kueue's Configuration ``fairSharing`` (``cli.kueue_fair_sharing``
        reads it from the settings)."""
        self.shell = shell
        self.bus = bus
        self.settings = settings
        self.topics = shell.topics
        self.state = SchedulerState(
            assume_ttl=settings.assume_ttl, status_resend=settings.status_resend
        )
        self.metrics = Metrics(shell)
        self.scheduling = Scheduling(
            on_warnings=lambda warnings: self.metrics.conf_warnings.inc(len(warnings))
        )
        self.admission = AdmissionState(
            assume_ttl=settings.assume_ttl,
            pacing=StatusPacing(
                counter_refresh=settings.kueue_counter_refresh,
                max_waiting=settings.kueue_max_waiting,
            ),
            fair_sharing=fair_sharing,
            window=settings.kueue_window or None,
        )
        self.changed = asyncio.Event()
        self.leadership = Leadership(on_change=self.changed.set)
        self.hops = HopMetrics(shell.registry)
        self.workloads_seen: list[float] = []
        """When the watcher observed each Workload record applied since the last run."""
        waits = self.state.waits
        self.hops.depth(PODGROUP_ENQUEUE_DECISION, lambda: float(len(waits.podgroups)))
        self.hops.depth(SCHEDULING_CYCLE, lambda: float(len(waits.pods)))
        self.hops.depth(BIND_DECISION, lambda: float(len(waits.pods)))
        self.hops.depth(BIND_OBSERVED, lambda: float(len(self.state.assumed)))
        self.cycle = 0
        self.last_decided = 0.0  # wall time of the last cycle that published decisions
        self.admission_seconds = 0.0  # how long the last cycle spent in Kueue admission
        self.heap = HeapFreezer()
        self.identity = f"{socket.gethostname()}-{os.getpid()}"
        self.conf_text = Path(settings.conf).read_text() if settings.conf else None

    def state_topics(self) -> list[str]:
        return sorted({self.topics.state(kind) for kind in STATE_KINDS})

    def wake_topics(self) -> list[str]:
        """What starts work for an idle scheduler: a pod group (every workload gets one), a pod
        or a Kueue Workload; nodes, queues, confs and results may wait ~1.5 s at rest."""
        return sorted({self.topics.state(kind) for kind in ("PodGroup", "Pod", "Workload")})

    async def on_state(self, records: Sequence[Record[StateEvent]]) -> None:
        await self.dead_letter(self.state.apply_state(records, now=time.time()))
        if self.settings.kueue and self.leadership.leading:  # (a standby runs no admission)
            self.workloads_seen += [
                r.value.occurred_at
                for r in records
                if isinstance(r.value, ObjectEvent) and r.value.kind == "Workload"
            ]
        self.hops.durations(BIND_OBSERVED, self.state.waits.drain())
        self.changed.set()

    async def on_records(self, records: Sequence[Record[AnyEvent]]) -> None:
        """One consumer follows the state topics and the results topic (each consumer polls
        the broker while records flow): each record goes to its topic's handler; a record of
        the wrong family for its topic is dead-lettered, as a decoder of that topic's family
        would have refused it."""
        state: list[Record[StateEvent]] = []
        results: list[Record[Result]] = []
        misplaced: list[tuple[Record[Any], str]] = []
        results_topic = self.topics.results
        for record in records:
            value = record.value
            if record.topic == results_topic:
                if isinstance(value, _RESULT_TYPES):
                    results.append(record)  # type: ignore[arg-type]
                    continue
            elif isinstance(value, _STATE_TYPES):
                state.append(record)  # type: ignore[arg-type]
                continue
            misplaced.append((record, f"{type(value).__name__} on topic {record.topic}"))
        if misplaced:
            await self.dead_letter(misplaced, stage="decode")
        if state:
            await self.on_state(state)
        if results:
            await self.on_results(results)

    async def dead_letter(
        self, bad: Sequence[tuple[Record[Any], str]], *, stage: str = "handler"
    ) -> None:
        """Records whose object fits no model: to the dead-letter topic by the bus's own path
        (stage ``handler``), live and in the rebuild alike."""

        async def produce(copy: Outgoing) -> None:
            await self.bus.produce(
                self.bus.dead_letter_topic, copy.value, key=copy.key, headers=copy.headers
            )

        for record, error in bad:
            self.shell.log.error(
                "state record dead-lettered",
                topic=record.topic,
                partition=record.partition,
                offset=record.offset,
                error=error,
            )
            raw: RawRecord = Record(
                topic=record.topic,
                partition=record.partition,
                offset=record.offset,
                key=record.key,
                value=encode(record.value),
                timestamp_ms=record.timestamp_ms,
                headers=record.headers,
            )
            await send_dead_letter(produce, raw, stage, error)

    async def on_results(self, records: Sequence[Record[Result]]) -> None:
        self.state.apply_results(record.value for record in records)
        self.changed.set()

    async def start(self, stopping: asyncio.Event) -> list[asyncio.Task[None]]:
        """Rebuild, then start following; returns the follower tasks."""
        t = self.topics
        await self.bus.create_topics([*self.state_topics(), *t.decisions(), t.results, t.cycles])
        started = time.monotonic()
        snap = await self.bus.rebuild(topics=self.state_topics(), decode=state_decoder.decode)
        await self.dead_letter(self.state.apply_state(snap.records))
        results = await self.bus.rebuild(topics=[t.results], decode=result_decoder.decode)
        self.shell.log.info(
            "cache rebuilt", records=len(snap.records), seconds=round(time.monotonic() - started, 3)
        )
        self.changed.set()  # decide as soon as leading: the rebuilt cache is news
        self.heap.freeze()  # the rebuilt cache lives on: out of the collector's way
        return [
            asyncio.create_task(
                self.bus.follow(
                    positions={**snap.positions, **results.positions},
                    decode=any_decoder.decode,
                    handler=self.on_records,
                    stopping=stopping,
                    wake_topics=self.wake_topics(),
                ),
                name="follow state and results",
            )
        ]

    async def run_cycle(self) -> list[Envelope]:
        now = time.time()
        began = now
        self.cycle += 1
        self.state.expire(now)
        started = time.perf_counter()
        snapshot = self.state.view()
        configmap_conf = snapshot.conf_text
        if self.conf_text is not None:
            snapshot.conf_text = self.conf_text
        # The inputs as this session sees them: publishing below yields to the followers, which
        # move the positions, and ``decisions`` assumes this cycle's own binds.
        positions = dict(self.state.positions)
        assumed = {k: a.node for k, a in self.state.assumed.items()}
        evicting = sorted(self.state.evicting)
        result = self.scheduling.session(
            snapshot, now=now, scheduler_names=self.settings.scheduler_names
        )
        session_s = time.perf_counter() - started
        epoch = self.leadership.epoch
        envelopes: list[Envelope] = list(
            self.state.decisions(
                result, epoch=epoch, cycle=self.cycle, now=now, producer=self.identity
            )
        )
        self.admission_seconds = 0.0
        workloads_seen, self.workloads_seen = self.workloads_seen, []
        if self.settings.kueue and self.admission.has_work(self.state.cache):
            admitting = time.perf_counter()
            _, updates = self.admission.decide(self.state.cache, now)
            self.admission_seconds = time.perf_counter() - admitting
            self.metrics.admission.observe(self.admission_seconds)
            envelopes += self.admission.envelopes(
                updates, epoch=epoch, cycle=self.cycle, now=now, producer=self.identity
            )
            if self.admission.more:
                self.changed.set()  # admitted from a cut queue: those behind come forward
        await self.publish(envelopes)
        self.observe_hops(envelopes, began=began)
        self.hops.observe_many(KUEUE_DECISION, workloads_seen, time.time())
        self.metrics.cycles.inc()
        self.metrics.session.observe(session_s)
        self.metrics.assumed.set(len(self.state.assumed))
        self.metrics.conf_rejected.set(1 if result.conf_error else 0)
        if self.settings.record_cycles:
            record = CycleRecorded(
                key="cycle",
                cycle=self.cycle,
                now=now,
                epoch=epoch,
                producer=self.identity,
                positions=positions,
                assumed=assumed,
                evicting=evicting,
                binds=result.binds,
                evictions=result.evictions,
                pipelined=result.pipelined,
                podgroups=result.phases(),
                session_ms=round(session_s * 1000, 3),
                conf_sha256=conf_digest(result.conf_text),
                conf_text=None if result.conf_text == configmap_conf else result.conf_text,
                scheduler_names=list(self.settings.scheduler_names),
            )
            await self.bus.produce(self.topics.cycles, encode(record), key=b"cycle")
        return envelopes

    def observe_hops(self, envelopes: list[Envelope], *, began: float) -> None:
        now = time.time()
        self.hops.observe(SCHEDULING_CYCLE, began, now)
        for e in envelopes:
            if isinstance(e, PodBindDecided):
                self.hops.observe(BIND_DECISION, e.entered_at, now)
            elif isinstance(e, PodGroupStatusDecided):
                self.hops.observe(PODGROUP_ENQUEUE_DECISION, e.entered_at, now)

    async def publish(self, envelopes: list[Envelope]) -> None:
        """Send the cycle's decisions. Those of a topic the broker did not acknowledge (it is
        restarting) are decided again soon (``SchedulerState.unsent``) rather than after their
        assumptions' full time to live."""
        by_topic: dict[str, list[Envelope]] = {}
        kinds: dict[str, int] = {}
        for e in envelopes:
            if isinstance(e, PodBindDecided | PodUnschedulableDecided):
                topic = self.topics.binds  # keyed by pod: in order with the pod's bind
            elif isinstance(e, PodEvictDecided):
                topic = self.topics.evictions
            elif isinstance(e, KueueStatusDecided):
                topic = self.topics.kueue_status
            else:
                topic = self.topics.podgroup_status
            by_topic.setdefault(topic, []).append(e)
            kinds[type(e).__name__] = kinds.get(type(e).__name__, 0) + 1
        sent = await asyncio.gather(
            *(
                self.bus.produce_many(
                    t, [Outgoing(value=encode(e), key=e.key.encode()) for e in es]
                )
                for t, es in by_topic.items()
            ),
            return_exceptions=True,
        )
        errors = [outcome for outcome in sent if isinstance(outcome, BaseException)]
        unsent = [
            e
            for es, outcome in zip(by_topic.values(), sent, strict=True)
            if isinstance(outcome, BaseException)
            for e in es
        ]
        for kind, count in kinds.items():
            self.metrics.decisions.labels(kind).inc(count)
        if errors:
            self.state.unsent(unsent, now=time.time())
            raise errors[0]

    async def cycles(self, stopping: asyncio.Event) -> None:
        s = self.settings
        last, ended, rest = 0.0, 0.0, 0.0
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=s.period)
            now = time.monotonic()
            wait = max(s.min_interval - (now - last), rest - (now - ended))
            if wait > 0:
                await asyncio.sleep(wait)
            changed = self.changed.is_set()
            self.changed.clear()
            self.metrics.epoch.set(self.leadership.epoch)
            if not self.leadership.leading or stopping.is_set():
                continue
            if not changed and self.at_rest():
                continue  # the same inputs would decide nothing again: stay idle
            last = time.monotonic()
            try:
                # A cycle publishing to a broker that is gone waits for acknowledgements that
                # never come; on stopping it is given up (the next leader decides again).
                envelopes = await unless_stopping(self.run_cycle(), stopping)
                if envelopes:
                    self.last_decided = time.time()
            except Exception:  # a bad cycle must not end the scheduler; the next one retries
                self.shell.log.exception("cycle failed", cycle=self.cycle)
            ended = time.monotonic()
            # Only the part of a cycle beyond min_interval earns a rest: light-load cycles are
            # short and keep deciding at once; a burst's long ones leave room for the rest.
            # Kueue admission earns none: its decisions are a few paced status writes, not a
            # burst of binds for the followers, and each waiting workload waits on the loop
            # finished -> admitted -> started, which a rest would lengthen.
            busy = ended - last - self.admission_seconds
            rest = max(busy - s.min_interval, 0.0) * (1 / s.busy_fraction - 1)
            self.heap.after_cycle()

    def at_rest(self) -> bool:
        """Whether a periodic cycle can be skipped. Volcano runs one every period; with no
        change since the last cycle, nothing pending and no status awaiting its resend check,
        it would decide exactly nothing (and record that it did, forever, at rest)."""
        if time.time() - self.last_decided <= self.settings.status_resend + self.settings.period:
            return False
        if self.settings.kueue and self.admission.has_work(self.state.cache):
            return False
        return self.state.at_rest()

    async def ready_when_role_known(self, stopping: asyncio.Event) -> None:
        """Ready once the cache is rebuilt and the election says whether this replica leads:
        before that, a job would wait for the election (seconds on the embedded broker)."""
        known = asyncio.create_task(self.leadership.known.wait())
        stopped = asyncio.create_task(stopping.wait())
        try:
            await asyncio.wait({known, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            known.cancel()
            stopped.cancel()
        if self.leadership.known.is_set() and not stopping.is_set():
            self.shell.readiness.mark_ready()
            await stopping.wait()

    async def election(self, stopping: asyncio.Event) -> None:
        """Take part in the election until ``stopping`` (``self.leadership`` says the role)."""
        if self.settings.standalone:
            await run_static_leadership(
                self.leadership,
                stopping,
                bus=self.bus,
                topic=self.topics.leader,
                identity=self.identity,
            )
            return
        await run_group_leadership(
            bus=self.bus,
            kafka=self.shell.kafka,
            topic=self.topics.leader,
            group=generation_group(self.settings.leader_group, self.shell.generation),
            identity=self.identity,
            leadership=self.leadership,
            stopping=stopping,
        )

    async def run(self, stopping: asyncio.Event) -> None:
        self.heap.start()
        try:
            await self._run(stopping)
        finally:
            self.heap.stop()

    async def _run(self, stopping: asyncio.Event) -> None:
        followers = await self.start(stopping)
        tasks = [
            *followers,
            asyncio.create_task(self.election(stopping), name="leadership"),
            asyncio.create_task(self.cycles(stopping), name="cycles"),
            asyncio.create_task(self.ready_when_role_known(stopping), name="readiness"),
        ]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        finally:
            for task in tasks:
                task.cancel()
            await close_within(
                asyncio.gather(*tasks, return_exceptions=True),
                what="scheduler tasks",
                seconds=CANCEL_WAIT_S,
            )
