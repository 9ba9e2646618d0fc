"""KafkaBus against a real Kafka-protocol broker over TCP (embedded Tansu unless KAFKA_BOOTSTRAP).

Group joins take ~3 s on Tansu, so tests that use groups wait for records, not for time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import msgspec
import pytest

from shared.bus import (
    HEADER_ERROR,
    HEADER_KEY,
    HEADER_OFFSET,
    HEADER_STAGE,
    HEADER_TOPIC,
    DeliveryPolicy,
    Outgoing,
    Record,
    TopicPartition,
)
from shared.bus.kafka import KafkaBus
from shared.bus.memory import partition_for
from shared.config import BrokerKind, KafkaSettings
from tests.conftest import KafkaNames

pytestmark = [pytest.mark.broker, pytest.mark.timeout(60)]


class Ping(msgspec.Struct, frozen=True):
    key: str
    seq: int


ENCODE = msgspec.json.encode
DECODE = msgspec.json.Decoder(Ping).decode
POLICY = DeliveryPolicy(poll_timeout_ms=50, retry_backoff_s=0.01, handler_attempts=2)


@pytest.fixture
def settings(
    kafka_bootstrap: str, broker_kind: BrokerKind, kafka_names: KafkaNames
) -> KafkaSettings:
    return KafkaSettings(
        bootstrap=kafka_bootstrap,
        broker=broker_kind,
        topic_prefix=kafka_names.prefix,
        fetch_max_wait_ms=10,
        linger_ms=2,
        session_timeout_ms=6000,
        heartbeat_interval_ms=500,
    )


def pings(keys: int, per_key: int, start: int = 0) -> list[Outgoing]:
    return [
        Outgoing(ENCODE(Ping(f"k{k}", seq)), key=f"k{k}".encode())
        for seq in range(start, start + per_key)
        for k in range(keys)
    ]


class Collector:
    """A handler that records what it saw and sets `stopping` once `enough` says so."""

    def __init__(self, enough: Callable[[list[Record[Ping]]], bool], delay_s: float = 0) -> None:
        self.seen: list[Record[Ping]] = []
        self.stopping = asyncio.Event()
        self._enough = enough
        self._delay_s = delay_s

    async def __call__(self, records: Sequence[Record[Ping]]) -> None:
        if self._delay_s:
            await asyncio.sleep(self._delay_s)
        self.seen.extend(records)
        if self._enough(self.seen):
            self.stopping.set()


async def eventually(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if condition() or time.monotonic() > deadline:
            return
        await asyncio.sleep(0.02)


async def recreate(bus: KafkaBus, bootstrap: str, topic: str) -> None:
    """Delete ``topic`` under the bus's readers and create it again, empty, with 1 partition."""
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.delete_topics([topic])
    finally:
        await admin.close()
    await asyncio.sleep(0.5)
    await bus.create_topics([topic], partitions=1)


async def consume(
    bus: KafkaBus, topic: str, group: str, collector: Collector, **kw: object
) -> None:
    policy = DeliveryPolicy(**{**msgspec.structs.asdict(POLICY), **kw})
    await asyncio.wait_for(
        bus.consume(
            topics=[topic],
            group=group,
            decode=DECODE,
            handler=collector,
            stopping=collector.stopping,
            policy=policy,
        ),
        30,
    )


async def test_records_of_one_key_stay_in_order_in_one_partition(
    settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    topic = kafka_names.topic("order")
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=4)
        positions = await bus.produce_many(topic, pings(keys=8, per_key=250))
        collector = Collector(lambda seen: len(seen) >= 2000)
        await consume(bus, topic, kafka_names.group("order"), collector)
    assert [p.topic for p in positions] == [topic] * 2000
    per_key: dict[str, list[tuple[int, int]]] = {}
    for record in collector.seen:
        per_key.setdefault(record.value.key, []).append((record.partition, record.value.seq))
    for rows in per_key.values():
        assert len({partition for partition, _ in rows}) == 1
        assert [seq for _, seq in rows] == list(range(250))


async def test_two_members_of_a_group_share_the_partitions(
    settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    topic, group = kafka_names.topic("share"), kafka_names.group("share")
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=4)
        a = Collector(lambda seen: False)
        b = Collector(lambda seen: False)
        b.stopping = a.stopping
        members = [asyncio.create_task(consume(bus, topic, group, c)) for c in (a, b)]
        produced = 0
        deadline = time.monotonic() + 20
        # Keep producing until both members have received records after the rebalance.
        while time.monotonic() < deadline and not (len(a.seen) > 20 and len(b.seen) > 20):
            await bus.produce_many(topic, pings(keys=8, per_key=1, start=produced))
            produced += 1
            await asyncio.sleep(0.05)
        total = produced * 8
        await eventually(lambda: len(a.seen) + len(b.seen) >= total)
        a.stopping.set()
        await asyncio.gather(*members)
    seen = [(r.value.key, r.value.seq) for r in a.seen + b.seen]
    assert sorted(seen) == sorted({(f"k{k}", s) for k in range(8) for s in range(produced)})
    tail_a = {r.partition for r in a.seen[-10:]}
    tail_b = {r.partition for r in b.seen[-10:]}
    assert tail_a and tail_b and tail_a.isdisjoint(tail_b)


async def test_committed_offsets_survive_a_consumer_restart(
    settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    topic, group = kafka_names.topic("restart"), kafka_names.group("restart")
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=2)
        await bus.produce_many(topic, pings(keys=4, per_key=10))
        first = Collector(lambda seen: len(seen) >= 25)
        await consume(bus, topic, group, first, max_records=5)
        rest = 40 - len(first.seen)
        second = Collector(lambda seen: len(seen) >= rest)
        await consume(bus, topic, group, second)
        await asyncio.sleep(0.5)  # a re-delivery would show up now
    seen = [(r.value.key, r.value.seq) for r in first.seen + second.seen]
    assert len(first.seen) >= 25
    assert sorted(seen) == sorted((f"k{k}", s) for k in range(4) for s in range(10))


async def test_graceful_stop_commits_the_batch_in_flight(
    settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    topic, group = kafka_names.topic("drain"), kafka_names.group("drain")
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.produce_many(topic, pings(keys=1, per_key=10))
        slow = Collector(lambda seen: False, delay_s=0.3)
        task = asyncio.create_task(consume(bus, topic, group, slow, max_records=4))
        await eventually(lambda: bool(slow.seen))
        await asyncio.sleep(0.1)  # the second batch is now inside the slow handler
        slow.stopping.set()
        await task
        handled = len(slow.seen)
        await bus.produce_many(topic, pings(keys=1, per_key=1, start=10))
        after = Collector(lambda seen: any(r.value.seq == 10 for r in seen))
        await consume(bus, topic, group, after)
    assert handled == 8
    assert [r.value.seq for r in after.seen] == list(range(8, 11))


async def test_poison_record_goes_to_dead_letter_and_the_next_one_is_handled(
    settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    topic, group = kafka_names.topic("poison"), kafka_names.group("poison")
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.produce(topic, b'{"key": 1}', key=b"bad", headers=(("trace", b"t1"),))
        await bus.produce_many(topic, pings(keys=1, per_key=1))
        good = Collector(lambda seen: len(seen) >= 1)
        await consume(bus, topic, group, good)
        dead = await bus.rebuild(topics=[bus.dead_letter_topic], decode=bytes)
        await bus.produce_many(topic, pings(keys=1, per_key=1, start=1))
        again = Collector(lambda seen: len(seen) >= 1)
        await consume(bus, topic, group, again)
    assert [r.value.seq for r in good.seen] == [0]
    [record] = dead.records
    headers = dict(record.headers)
    # Keyed by the source position (one copy per record under compaction), the key in a header.
    assert (record.key, record.value) == (f"{topic}/0/0".encode(), b'{"key": 1}')
    assert headers["trace"] == b"t1" and headers[HEADER_KEY] == b"bad"
    assert (headers[HEADER_TOPIC], headers[HEADER_OFFSET], headers[HEADER_STAGE]) == (
        topic.encode(),
        b"0",
        b"decode",
    )
    assert b"Expected `str`" in headers[HEADER_ERROR]
    # Committed past both: the restarted member sees only the new record.
    assert [r.value.seq for r in again.seen] == [1]


async def test_rebuild_reads_exactly_up_to_the_high_watermark_then_follows(
    settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    topic = kafka_names.topic("rebuild")
    # Keys that avoid partition 3, so one partition is empty.
    keys = [key for key in (f"k{i}".encode() for i in range(40)) if partition_for(key, 4, 0) != 3]
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=4)
        batch = [Outgoing(ENCODE(Ping(k.decode(), i)), key=k) for i, k in enumerate(keys[:30])]
        stored = await bus.produce_many(topic, batch)
        snapshot = await bus.rebuild(topics=[topic], decode=DECODE)
        await bus.produce_many(topic, [Outgoing(ENCODE(Ping("late", 99)), key=keys[0])])
        live = Collector(lambda seen: len(seen) >= 1)
        await asyncio.wait_for(
            bus.follow(
                positions=snapshot.positions,
                decode=DECODE,
                handler=live,
                stopping=live.stopping,
                policy=POLICY,
            ),
            10,
        )
    assert sorted(r.value.seq for r in snapshot.records) == list(range(30))
    expected = {TopicPartition(topic, p): 0 for p in range(4)}
    for position in stored:
        expected[TopicPartition(topic, position.partition)] += 1
    assert snapshot.positions == expected
    assert expected[TopicPartition(topic, 3)] == 0
    assert [r.value.key for r in live.seen] == ["late"]


@pytest.mark.parametrize("reader", ["group", "follow"])
async def test_a_topic_deleted_under_a_reader_is_reported_and_its_new_records_read(
    kafka_bootstrap: str, settings: KafkaSettings, kafka_names: KafkaNames, reader: str
) -> None:
    # A reader of a deleted-and-recreated topic stays parked past the new log's end (Tansu),
    # or is moved to its beginning unsaid, or as a group member loses the topic's partitions
    # (Kafka); the bus reports the partition, and the new records are read exactly once.
    topic, group = kafka_names.topic(f"deleted-{reader}"), kafka_names.group("deleted")
    async with KafkaBus(settings=settings) as bus:

        def read(collector: Collector) -> asyncio.Task[None]:
            if reader == "group":
                return asyncio.create_task(consume(bus, topic, group, collector))
            return asyncio.create_task(
                bus.follow(
                    positions={TopicPartition(topic, 0): 0},
                    decode=DECODE,
                    handler=collector,
                    stopping=collector.stopping,
                    policy=POLICY,
                )
            )

        await bus.create_topics([topic], partitions=1)
        await bus.produce_many(topic, pings(keys=1, per_key=10))
        collector = Collector(lambda seen: False)
        task = read(collector)
        await eventually(lambda: len(collector.seen) >= 10)
        assert len(collector.seen) == 10 and bus.take_truncated() == set()
        await recreate(bus, kafka_bootstrap, topic)
        await bus.produce_many(topic, pings(keys=1, per_key=3, start=100))
        truncated: set[TopicPartition] = set()

        def reported() -> bool:
            truncated.update(bus.take_truncated())
            return bool(truncated)

        await eventually(reported)
        if reader == "group":
            # The service rebuilds once its log is lost, and its member joins again: Kafka
            # gives a member a re-created topic only after its next metadata refresh (minutes).
            collector.stopping.set()
            await task
            collector.stopping = asyncio.Event()
            task = read(collector)
        await eventually(lambda: len(collector.seen) >= 13)
        await asyncio.sleep(0.5)  # a second delivery would show up now
        collector.stopping.set()
        await task
    assert [r.value.seq for r in collector.seen[10:]] == [100, 101, 102]
    assert truncated == {TopicPartition(topic, 0)}


async def test_a_kept_reader_reads_each_time_from_the_beginning_and_fetches_nothing_between(
    kafka_bootstrap: str, settings: KafkaSettings, kafka_names: KafkaNames
) -> None:
    # The log generation is read every few seconds on one kept reader: each read must see the
    # log as it is now (more records, or a shorter log after a loss), and between reads its
    # partitions are paused, so it parks no fetch on the broker.
    from aiokafka import TopicPartition as KafkaTopicPartition

    topic = kafka_names.topic("kept")

    async def seqs() -> list[int]:
        snapshot = await bus.rebuild(topics=[topic], decode=DECODE, keep_reader=True)
        assert snapshot.positions == {TopicPartition(topic, 0): len(snapshot.records)}
        return [r.value.seq for r in snapshot.records]

    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics([topic], partitions=1)
        assert await seqs() == []
        await bus.produce_many(topic, pings(keys=1, per_key=3))
        assert await seqs() == [0, 1, 2]
        reader = bus._readers[(topic,)].consumer
        assert reader.paused() == {KafkaTopicPartition(topic, 0)}
        await bus.produce_many(topic, pings(keys=1, per_key=2, start=3))
        assert await seqs() == [0, 1, 2, 3, 4]
        assert await seqs() == [0, 1, 2, 3, 4]
        await recreate(bus, kafka_bootstrap, topic)
        await bus.produce_many(topic, pings(keys=1, per_key=1, start=100))
        assert await asyncio.wait_for(seqs(), 10) == [100]
        assert bus._readers[(topic,)].consumer is reader, "one reader all along"
