"""The `Bus` over Kafka (or the embedded Tansu broker) with aiokafka.

One producer per bus (acks and linger from `KafkaSettings`; idempotent on Kafka with acks=all,
not on Tansu, which cannot do it with stock aiokafka). Each `consume` call is one group member
with auto-commit off: poll a batch, hand it to `deliver`, commit `offset + 1`. A rebalance
listener makes revocation wait for the in-flight batch (and its commit) and asks a retrying
batch to give up, so partitions move only between batches. `rebuild` reads by manual assignment
from the beginning up to each partition's high watermark as the first fetch reports it
(`end_offsets()` is wrong on Tansu); `rebuild(keep_reader=True)` keeps that reader, paused, for
the next read of the same topics.

A topic deleted and created again is silent to a reader. On Tansu it stays parked past the new
log's end and never sees the new records; on Kafka its position is out of range and the client
moves it to the new beginning by itself, unsaid, or a group takes the topic's partitions away
while it is gone (and a member finds it again only at its next metadata refresh). `consume`
and `follow` therefore compare, once a second while idle, each partition's high watermark with
their position (below it, the reader moves to the new beginning), notice records that start
below what they had read, and a group notices a subscribed topic gone at a rebalance
(`_Truncations`). If the reader had read the old log, the partition is reported
(`take_truncated`) so the service declares the log lost and everyone rebuilds.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka import TopicPartition as KafkaTopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import CommitFailedError, KafkaError, for_code
from aiokafka.partitioner import murmur2
from aiokafka.structs import OffsetAndMetadata

from shared.bus.delivery import Rejected, commit_offsets, deliver, reject, screen, send_dead_letter
from shared.bus.pacing import Doorbell, Pacing
from shared.bus.protocol import DEFAULT_POLICY
from shared.bus.records import (
    Decode,
    DeliveryPolicy,
    Handler,
    Headers,
    Outgoing,
    Position,
    RawRecord,
    Record,
    Snapshot,
    TopicPartition,
    with_value,
)
from shared.bus.security import client_options
from shared.config import KafkaSettings
from shared.runtime import close_within

T = TypeVar("T")

_TOPIC_ALREADY_EXISTS = 36
# Under ACLs the topics are provisioned (deploy/kafka) and a service may not create them.
_NOT_OURS_TO_CREATE = (29, 31)  # TopicAuthorizationFailed, ClusterAuthorizationFailed
_log = structlog.get_logger()


class KafkaBus:
    """Use as `async with KafkaBus(settings=...) as bus:` (starts and stops the producer)."""

    def __init__(self, *, settings: KafkaSettings) -> None:
        if not settings.bootstrap:
            raise ValueError("KafkaSettings.bootstrap is empty; resolve the broker first")
        self._settings = settings
        self._producer: AIOKafkaProducer | None = None
        self._truncated: set[TopicPartition] = set()
        self._readers: dict[tuple[str, ...], _KeptReader] = {}
        self._doorbell = Doorbell(settings)
        self._wake_topic_made = False

    @property
    def wake_topic(self) -> str:
        """`<prefix>wake`: the doorbell's one partition of empty records (`Doorbell`)."""
        return self._doorbell.topic

    @property
    def dead_letter_topic(self) -> str:
        return f"{self._settings.topic_prefix}deadletter"

    async def start(self) -> None:
        s = self._settings
        producer = AIOKafkaProducer(
            bootstrap_servers=s.bootstrap,
            client_id=s.client_id,
            acks=s.acks if s.acks == "all" else int(s.acks),
            linger_ms=s.linger_ms,
            max_batch_size=s.max_batch_size,
            max_request_size=s.max_request_size,
            enable_idempotence=s.idempotent,
            partitioner=KeyPartitioner(),
            **client_options(s),
        )
        try:
            await producer.start()
        except BaseException:
            await producer.stop()  # an unreachable broker must not leave an unclosed client
            raise
        self._producer = producer

    async def close(self) -> None:
        """Stop every client at once, each within a close step (``shared.runtime``): with the
        broker gone, a producer flushing or a consumer leaving its group may never return."""
        readers, self._readers = list(self._readers.values()), {}
        producer, self._producer = self._producer, None
        stops = [close_within(r.consumer.stop(), what="kafka consumer stop") for r in readers]
        if producer is not None:
            stops.append(close_within(producer.stop(), what="kafka producer stop"))
        await asyncio.gather(*stops)

    async def __aenter__(self) -> KafkaBus:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def create_topics(self, names: Sequence[str], *, partitions: int | None = None) -> None:
        count = partitions or self._settings.topic_partitions
        admin = AIOKafkaAdminClient(
            bootstrap_servers=self._settings.bootstrap,
            client_id=self._settings.client_id,
            **client_options(self._settings),
        )
        await admin.start()
        try:
            response = await admin.create_topics(
                [NewTopic(name, count, self._settings.replication_factor) for name in names]
            )
        finally:
            await admin.close()
        for topic, code, *_ in response.topic_errors:
            if code in _NOT_OURS_TO_CREATE:
                _log.debug(
                    "not authorised to create a topic; expecting it provisioned", topic=topic
                )
            elif code not in (0, _TOPIC_ALREADY_EXISTS):
                raise for_code(code)(f"cannot create topic {topic}")

    async def produce(
        self, topic: str, value: bytes | None, *, key: bytes | None = None, headers: Headers = ()
    ) -> Position:
        await self._ring(topic)
        meta = await self._started().send_and_wait(topic, value, key=key, headers=list(headers))
        return Position(meta.topic, meta.partition, meta.offset)

    async def produce_many(self, topic: str, records: Iterable[Outgoing]) -> list[Position]:
        producer = self._started()
        await self._ring(topic)
        # send() only enqueues (waiting when the buffer is full); batching happens behind it.
        futures = [
            await producer.send(topic, r.value, key=r.key, headers=list(r.headers)) for r in records
        ]
        metas = await asyncio.gather(*futures)
        return [Position(m.topic, m.partition, m.offset) for m in metas]

    async def _ring(self, topic: str) -> None:
        """Ring the doorbell before publishing to ``topic`` if it is due (``Doorbell``). A ring
        that cannot be sent costs the idle consumers their short wake-up, never the record."""
        if not self._doorbell.due(topic):
            return
        try:
            await self._wake_topic()
            sent = await self._started().send(self._doorbell.topic, b"")
        except KafkaError as exc:
            _log.debug("cannot ring the doorbell", error=repr(exc))
            return
        sent.add_done_callback(_ignore_outcome)

    async def _wake_topic(self) -> list[KafkaTopicPartition]:
        """The doorbell's partitions, the topic made with one partition first (auto-creation
        would give it the broker's default)."""
        if not self._wake_topic_made:
            await self.create_topics([self._doorbell.topic], partitions=1)
            self._wake_topic_made = True
        return await self._partitions([self._doorbell.topic])

    async def consume(
        self,
        *,
        topics: Sequence[str],
        group: str,
        decode: Decode[T],
        handler: Handler[T],
        stopping: asyncio.Event,
        policy: DeliveryPolicy = DEFAULT_POLICY,
        on_assigned: Callable[[], None] | None = None,
        wake_topics: Collection[str] | None = None,
    ) -> None:
        await self.create_topics([self.dead_letter_topic])
        consumer = self._consumer(group_id=group)
        truncations = _Truncations(self._truncated)

        def reassigned() -> None:
            # Positions now come from the group's commits. A topic gone from the metadata was
            # deleted under us: Kafka takes its partitions away (Tansu re-creates any topic
            # asked about), and what we had read of it is lost.
            truncations.forget(gone={t for t in topics if consumer.partitions_for_topic(t) is None})
            if on_assigned is not None:
                on_assigned()

        guard = _InFlight(group, reassigned)
        # The doorbell's one partition goes to one member of the group; the others wake on
        # their own records, as without it.
        rung = self._doorbell.enabled and wake_topics is not None
        if rung:
            await self._wake_topic()
            wake_topics = [*(wake_topics or ()), self._doorbell.topic]
        await consumer.start()
        pacing = Pacing(consumer, self._settings, wake_topics=wake_topics)
        try:
            subscribed = [*topics, self._doorbell.topic] if rung else list(topics)
            consumer.subscribe(topics=subscribed, listener=guard)
            while not stopping.is_set():
                fetched = await consumer.getmany(
                    timeout_ms=pacing.poll_timeout_ms(policy), max_records=policy.max_records
                )
                pacing.polled(bool(fetched))
                fetched = self._doorbell.strip(consumer, fetched)
                if not fetched:
                    await truncations.check(consumer)
                    continue
                truncations.saw(fetched)
                async with guard.lock:
                    assigned = consumer.assignment()
                    batch = [
                        _raw(r) for tp, recs in fetched.items() if tp in assigned for r in recs
                    ]
                    if not batch:
                        continue
                    done = await deliver(
                        batch,
                        decode=decode,
                        handler=handler,
                        dead_letter=self._dead_letter,
                        policy=policy,
                        abort=lambda: stopping.is_set() or guard.revoking,
                        max_bytes=self._settings.max_request_size,
                    )
                    if not done:
                        truncations.forget()  # the batch is read again from its start
                    await _settle(consumer, batch, done=done)
        finally:
            await close_within(consumer.stop(), what="kafka consumer stop")

    async def rebuild(
        self, *, topics: Sequence[str], decode: Decode[T], keep_reader: bool = False
    ) -> Snapshot[T]:
        attempt = 0
        while True:
            attempt += 1
            try:
                raw, positions = await self._read_all(topics, keep_reader=keep_reader)
                break
            except RebuildStalled as stalled:
                # A broker just back from a restart has left a partition unanswered to this
                # consumer; a fresh consumer asks for fresh metadata.
                _log.warning(
                    "rebuild read stalled; reading again with a fresh consumer",
                    waiting=stalled.waiting,
                    attempt=attempt,
                )
        records: list[Record[T]] = []
        for record in raw:
            if record.value is None:
                continue
            value = screen(record, decode, self._settings.max_request_size)
            if isinstance(value, Rejected):  # a poison record must not stop a rebuild
                await reject(record, value, self._dead_letter)
                continue
            records.append(with_value(record, value))
        return Snapshot(records=records, positions=positions)

    async def _read_all(
        self, topics: Sequence[str], *, keep_reader: bool
    ) -> tuple[list[RawRecord], dict[TopicPartition, int]]:
        if keep_reader:
            return await self._reread(tuple(topics))
        consumer = self._consumer(group_id=None)
        await consumer.start()
        try:
            tps = await self._partitions(topics)
            consumer.assign(tps)
            await consumer.seek_to_beginning(*tps)
            return await _read_to_highwater(consumer, tps)
        finally:
            await close_within(consumer.stop(), what="kafka consumer stop")

    async def follow(
        self,
        *,
        positions: dict[TopicPartition, int],
        decode: Decode[T],
        handler: Handler[T],
        stopping: asyncio.Event,
        policy: DeliveryPolicy = DEFAULT_POLICY,
        wake_topics: Collection[str] | None = None,
    ) -> None:
        consumer = self._consumer(group_id=None)
        rings: list[KafkaTopicPartition] = []
        if self._doorbell.enabled and wake_topics is not None:
            rings = await self._wake_topic()
            wake_topics = [*wake_topics, self._doorbell.topic]
        await consumer.start()
        try:
            consumer.assign([KafkaTopicPartition(*tp) for tp in positions] + rings)
            for tp, offset in positions.items():
                consumer.seek(KafkaTopicPartition(*tp), offset)
            if rings:
                await consumer.seek_to_beginning(*rings)
            pacing = Pacing(consumer, self._settings, wake_topics=wake_topics)
            truncations = _Truncations(self._truncated)
            # What the rebuild read counts as read: a log that restarts below it lost that.
            truncations.read_up_to({KafkaTopicPartition(*tp): o for tp, o in positions.items()})
            while not stopping.is_set():
                fetched = await consumer.getmany(
                    timeout_ms=pacing.poll_timeout_ms(policy), max_records=policy.max_records
                )
                pacing.polled(bool(fetched))
                fetched = self._doorbell.strip(consumer, fetched)
                if fetched:
                    truncations.saw(fetched)
                else:
                    await truncations.check(consumer)
                batch = [_raw(r) for recs in fetched.values() for r in recs]
                if batch and not await deliver(
                    batch,
                    decode=decode,
                    handler=handler,
                    dead_letter=self._dead_letter,
                    policy=policy,
                    abort=stopping.is_set,
                    max_bytes=self._settings.max_request_size,
                ):
                    return
        finally:
            await close_within(consumer.stop(), what="kafka consumer stop")

    async def _reread(
        self, topics: tuple[str, ...]
    ) -> tuple[list[RawRecord], dict[TopicPartition, int]]:
        """A rebuild on the reader kept for ``topics``: its partitions stay paused between
        reads, so it costs the broker nothing meanwhile. A read that fails or is cancelled
        drops the reader (the next one starts afresh, as every rebuild used to)."""
        reader = self._readers.get(topics)
        if reader is None:
            reader = self._readers[topics] = _KeptReader(self._consumer(group_id=None))
        async with reader.lock:
            consumer = reader.consumer
            try:
                if not reader.started:
                    await consumer.start()
                    reader.started = True
                tps = await self._partitions(topics)
                if consumer.assignment() != set(tps):
                    consumer.assign(tps)  # (a broker that came back may have re-created them)
                consumer.resume(*tps)
                since_ms = int(1000 * time.time())
                await consumer.seek_to_beginning(*tps)
                return await _read_to_highwater(consumer, tps, since_ms=since_ms)
            except BaseException:
                if self._readers.get(topics) is reader:
                    del self._readers[topics]
                with contextlib.suppress(Exception):
                    await close_within(consumer.stop(), what="kafka consumer stop")
                raise

    def take_truncated(self) -> set[TopicPartition]:
        taken = set(self._truncated)
        self._truncated.clear()
        return taken

    def _started(self) -> AIOKafkaProducer:
        if self._producer is None:
            raise RuntimeError("KafkaBus is not started (use `async with`)")
        return self._producer

    def _consumer(self, *, group_id: str | None) -> AIOKafkaConsumer:
        s = self._settings
        return AIOKafkaConsumer(
            bootstrap_servers=s.bootstrap,
            client_id=s.client_id,
            group_id=group_id,
            enable_auto_commit=False,
            # "latest" is wrong on Tansu; a new group reads its topics from the start.
            auto_offset_reset="earliest",
            fetch_max_wait_ms=s.fetch_wait_ms,
            session_timeout_ms=s.session_ms,
            heartbeat_interval_ms=s.heartbeat_interval_ms,
            max_poll_interval_ms=s.max_poll_interval_ms,
            **fetch_limits(s),
            **client_options(s),
        )

    async def _partitions(self, topics: Sequence[str]) -> list[KafkaTopicPartition]:
        producer = self._started()
        tps: list[KafkaTopicPartition] = []
        for topic in topics:
            partitions = await producer.partitions_for(topic)
            tps += [KafkaTopicPartition(topic, p) for p in sorted(partitions)]
        return tps

    async def _dead_letter(self, raw: RawRecord, stage: str, error: str) -> None:
        async def produce(copy: Outgoing) -> None:
            await self.produce(
                self.dead_letter_topic, copy.value, key=copy.key, headers=copy.headers
            )

        await send_dead_letter(produce, raw, stage, error)


@functools.lru_cache(maxsize=65_536)
def _key_hash(key: bytes) -> int:
    hashed: int = murmur2(key)
    return hashed & 0x7FFFFFFF


class KeyPartitioner:
    """aiokafka's ``DefaultPartitioner`` (Kafka's: murmur2 of the key modulo the partitions,
    a random available partition without a key) with the hash of each recent key remembered:
    aiokafka's murmur2 is pure Python, and the records of a job share its key."""

    def __call__(self, key: bytes | None, all_partitions: list[int], available: list[int]) -> int:
        if key is None:
            return random.choice(available or all_partitions)
        return all_partitions[_key_hash(key) % len(all_partitions)]


class _Truncations:
    """One reader's check for partitions whose log restarted below its position."""

    def __init__(self, found: set[TopicPartition], *, every_s: float = 1.0) -> None:
        self._found = found
        self._every_s = every_s
        self._next_check = 0.0
        self._read_to: dict[KafkaTopicPartition, int] = {}  # past the last record read

    def read_up_to(self, positions: Mapping[KafkaTopicPartition, int]) -> None:
        """Count the records before ``positions`` as read by this reader (a follower starts
        where its rebuild stopped)."""
        for tp, offset in positions.items():
            if offset > 0:
                self._read_to[tp] = offset

    def forget(self, *, gone: Collection[str] = ()) -> None:
        """After a rebalance or a seek back a position may be below or past what this reader
        read: ask it again. What it read of the ``gone`` topics (deleted) is reported."""
        for tp in self._read_to:
            if tp.topic in gone:
                _log.warning("topic deleted under us", topic=tp.topic, partition=tp.partition)
                self._found.add(TopicPartition(tp.topic, tp.partition))
        self._read_to.clear()

    def saw(self, fetched: dict[KafkaTopicPartition, list[Any]]) -> None:
        for tp, records in fetched.items():
            if not records:
                continue
            read_to = self._read_to.get(tp)
            if read_to is not None and records[0].offset < read_to:
                # Nothing of ours moved it back (a seek back forgets first): Kafka found the
                # position out of range in a shorter new log and the client went to its start.
                _log.warning(
                    "partition restarted below what we had read; reading the new log",
                    topic=tp.topic,
                    partition=tp.partition,
                    read_to=read_to,
                    offset=records[0].offset,
                )
                self._found.add(TopicPartition(tp.topic, tp.partition))
            self._read_to[tp] = records[-1].offset + 1

    async def check(self, consumer: AIOKafkaConsumer) -> None:
        now = time.monotonic()
        if now < self._next_check:
            return
        self._next_check = now + self._every_s
        for tp in consumer.assignment():
            highwater = consumer.highwater(tp)
            if highwater is None:
                continue  # not fetched yet
            known = self._read_to.get(tp)
            if known is not None and highwater >= known:
                continue  # the position is past the last record read: asking costs a task
            try:
                position = await asyncio.wait_for(consumer.position(tp), 1.0)
            except (TimeoutError, AssertionError, KafkaError):  # e.g. revoked meanwhile
                continue
            if highwater >= position:
                continue
            read_to = self._read_to.pop(tp, None)
            _log.warning(
                "partition restarted below our position; reading the new log from its start",
                topic=tp.topic,
                partition=tp.partition,
                position=position,
                highwater=highwater,
            )
            await consumer.seek_to_beginning(tp)
            # A reader that never read the old log (it resumed from committed offsets made
            # before a loss already handled) has lost nothing of its own.
            if read_to is not None and read_to > highwater:
                self._found.add(TopicPartition(tp.topic, tp.partition))


class _KeptReader:
    """A group-less consumer kept between rebuilds of the same topics."""

    def __init__(self, consumer: AIOKafkaConsumer) -> None:
        self.consumer = consumer
        self.started = False
        self.lock = asyncio.Lock()


class _InFlight(ConsumerRebalanceListener):  # type: ignore[misc]
    """Holds the batch lock; revocation waits on it, so partitions move between batches."""

    def __init__(self, group: str, on_assigned: Callable[[], None] | None = None) -> None:
        self.lock = asyncio.Lock()
        self.revoking = False
        self._on_assigned = on_assigned
        self._log = _log.bind(group=group)

    async def on_partitions_revoked(self, revoked: set[KafkaTopicPartition]) -> None:
        self.revoking = True  # a batch in RetryLater backoff gives up instead of blocking us
        try:
            async with self.lock:
                self._log.info("partitions revoked", partitions=sorted(map(tuple, revoked)))
        finally:
            self.revoking = False

    async def on_partitions_assigned(self, assigned: set[KafkaTopicPartition]) -> None:
        # Positions come from the group's committed offsets; there is nothing of ours to commit.
        self._log.info("partitions assigned", partitions=sorted(map(tuple, assigned)))
        if self._on_assigned is not None:
            self._on_assigned()


async def _settle(consumer: AIOKafkaConsumer, batch: list[RawRecord], *, done: bool) -> None:
    """Commit a handled batch, or seek back so the batch is read again."""
    offsets = commit_offsets(batch)
    if not done:
        firsts: dict[TopicPartition, int] = {}
        for record in batch:
            firsts.setdefault(record.topic_partition, record.offset)
        for tp, offset in firsts.items():
            if KafkaTopicPartition(*tp) in consumer.assignment():
                consumer.seek(KafkaTopicPartition(*tp), offset)
        return
    try:
        await consumer.commit(
            {KafkaTopicPartition(*tp): OffsetAndMetadata(o, "") for tp, o in offsets.items()}
        )
    except CommitFailedError as exc:
        # The group moved on (we were too slow); the new owner re-reads these records.
        _log.warning("commit failed after rebalance; records will be redelivered", error=str(exc))


REBUILD_STALL_S = 20.0
"""A rebuild read that makes no progress this long is started again (``RebuildStalled``)."""

TAIL_GAP_S = 5.0
"""A partition that reported its high watermark but hands out nothing below it for this long
has a gap at its tail: the read ends there (see ``_read_to_highwater``)."""


class RebuildStalled(KafkaError):  # type: ignore[misc]
    """A rebuild read made no progress for ``REBUILD_STALL_S``: these partitions never
    answered with their high watermark."""

    def __init__(self, waiting: list[str]) -> None:
        super().__init__(f"rebuild stalled on {', '.join(waiting)}")
        self.waiting = waiting


async def _read_to_highwater(
    consumer: AIOKafkaConsumer,
    tps: list[KafkaTopicPartition],
    *,
    since_ms: int = 0,
    stall_s: float | None = None,
    gap_s: float | None = None,
) -> tuple[list[RawRecord], dict[TopicPartition, int]]:
    """Read assigned partitions until each reaches the high watermark its first fetch reported
    (a fetch answered after ``since_ms``: a kept reader knows the marks of its last read).

    Two ways a read can wait forever are cut short. A partition whose high watermark never
    comes (no fetch answers for it) for ``stall_s`` raises ``RebuildStalled``: the caller reads
    again with a fresh consumer. A partition that answers but hands out nothing below its
    high watermark for ``gap_s`` has a gap at its tail, and its read ends where it is. The
    embedded broker leaves such a gap when a produce reserved offsets and then failed to
    store the batch (its answer to that producer is an error, so nothing acknowledged is
    there; the producer writes it again further on). Apache Kafka never has one: a fetch
    below the high watermark returns records at once."""
    stall_s = REBUILD_STALL_S if stall_s is None else stall_s
    gap_s = TAIL_GAP_S if gap_s is None else gap_s
    targets: dict[KafkaTopicPartition, int] = {}
    records: list[RawRecord] = []
    positions = {TopicPartition(*tp): 0 for tp in tps}
    started = time.monotonic()
    moved: dict[KafkaTopicPartition, float] = {}  # when a partition's position last moved

    def highwater(tp: KafkaTopicPartition) -> int | None:
        polled: int | None = consumer.last_poll_timestamp(tp)
        if polled is None or polled < since_ms:
            return None
        mark: int | None = consumer.highwater(tp)
        return mark

    while waiting := [
        tp for tp in tps if tp not in targets or positions[TopicPartition(*tp)] < targets[tp]
    ]:
        now = time.monotonic()
        silent = [tp for tp in waiting if tp not in targets]
        if silent and now - started > stall_s:
            raise RebuildStalled([f"{tp.topic}/{tp.partition}" for tp in silent])
        for tp in waiting:
            if tp in targets and now - moved.get(tp, started) > gap_s:
                at = positions[TopicPartition(*tp)]
                _log.warning(
                    "the partition holds nothing between our position and its high watermark;"
                    " reading on from here",
                    topic=tp.topic,
                    partition=tp.partition,
                    position=at,
                    highwater=targets[tp],
                )
                targets[tp] = at
                consumer.pause(tp)
        fetched = await consumer.getmany(timeout_ms=200, max_records=10_000)
        for tp, recs in fetched.items():
            target = targets.setdefault(tp, consumer.highwater(tp))
            records += [_raw(r) for r in recs if r.offset < target]
        for tp in tps:
            mark = highwater(tp)
            if tp not in targets and mark is not None:
                targets[tp] = mark  # an empty fetch still reports it
            if tp in targets:
                position = min(await consumer.position(tp), targets[tp])
                if position != positions[TopicPartition(*tp)] or tp not in moved:
                    moved[tp] = time.monotonic()
                positions[TopicPartition(*tp)] = position
                if position >= targets[tp]:
                    consumer.pause(tp)
    return records, positions


_BATCH_OVERHEAD = 64 * 1024
_FETCH_MAX_BYTES = 50 * 1024 * 1024  # Kafka's default fetch.max.bytes


def fetch_limits(settings: KafkaSettings) -> dict[str, int]:
    """Fetch sizes consistent with the producer limit: any record a producer of ours may write
    (``max_request_size`` plus its batch framing) fits one partition's fetch, and the whole
    fetch holds at least that. A larger record from elsewhere still arrives (brokers return
    the first batch whatever its size) and is dead-lettered by size."""
    per_partition = settings.max_request_size + _BATCH_OVERHEAD
    return {
        "max_partition_fetch_bytes": per_partition,
        "fetch_max_bytes": max(_FETCH_MAX_BYTES, per_partition),
    }


def _raw(record: Any) -> RawRecord:
    return Record(
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
        key=record.key,
        value=record.value,
        timestamp_ms=record.timestamp,
        headers=tuple(record.headers),
    )


def _ignore_outcome(sent: asyncio.Future[Any]) -> None:
    """A ring's delivery is not awaited; its failure is only logged."""
    if not sent.cancelled() and sent.exception() is not None:
        _log.debug("a doorbell ring was not delivered", error=repr(sent.exception()))
