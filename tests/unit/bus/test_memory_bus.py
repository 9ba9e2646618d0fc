from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import msgspec
import pytest
from aiokafka.partitioner import DefaultPartitioner

from shared.bus import (
    HEADER_OFFSET,
    HEADER_STAGE,
    HEADER_TOPIC,
    DeliveryPolicy,
    Handler,
    MemoryBus,
    Outgoing,
    Record,
    RetryLater,
    TopicPartition,
    UnknownTopicError,
)


class Ping(msgspec.Struct, frozen=True):
    n: int


ENCODE = msgspec.json.encode
DECODE = msgspec.json.Decoder(Ping).decode
FAST = DeliveryPolicy(poll_timeout_ms=10, retry_backoff_s=0.001, handler_attempts=3)


async def produce(bus: MemoryBus, topic: str, ns: Sequence[int]) -> None:
    await bus.produce_many(topic, [Outgoing(ENCODE(Ping(n)), key=b"k%d" % (n % 5)) for n in ns])


async def consume_until(
    bus: MemoryBus,
    *,
    topic: str,
    group: str,
    done: Callable[[list[Ping]], bool],
    fail: Callable[[Ping], BaseException | None] = lambda p: None,
) -> list[Ping]:
    seen: list[Ping] = []
    stopping = asyncio.Event()

    async def handler(records: Sequence[Record[Ping]]) -> None:
        for record in records:
            if (exc := fail(record.value)) is not None:
                raise exc
        seen.extend(r.value for r in records)
        if done(seen):
            stopping.set()

    await asyncio.wait_for(
        bus.consume(
            topics=[topic],
            group=group,
            decode=DECODE,
            handler=handler,
            stopping=stopping,
            policy=FAST,
        ),
        5,
    )
    return seen


async def test_keyed_records_land_in_one_partition_like_kafka() -> None:
    bus = MemoryBus(partitions=4)
    await bus.create_topics(["t"])
    positions = [await bus.produce("t", b"x", key=b"pod-%d" % (i % 3)) for i in range(9)]
    for i, pos in enumerate(positions):
        kafka = DefaultPartitioner()(b"pod-%d" % (i % 3), [0, 1, 2, 3], [0, 1, 2, 3])
        assert pos.partition == kafka
    by_partition: dict[int, list[int]] = {}
    for pos in positions:
        by_partition.setdefault(pos.partition, []).append(pos.offset)
    assert all(offsets == list(range(len(offsets))) for offsets in by_partition.values())


async def test_commit_after_handler_and_restart_resumes_there() -> None:
    bus = MemoryBus()
    await bus.create_topics(["t"])
    await produce(bus, "t", range(20))
    first = await consume_until(bus, topic="t", group="g", done=lambda s: len(s) >= 20)
    assert sorted(p.n for p in first) == list(range(20))
    assert sum(bus.committed("g").values()) == 20
    await produce(bus, "t", range(20, 25))
    second = await consume_until(bus, topic="t", group="g", done=lambda s: len(s) >= 5)
    assert sorted(p.n for p in second) == list(range(20, 25))


async def test_undecodable_record_is_dead_lettered_and_consumption_continues() -> None:
    bus = MemoryBus()
    await bus.create_topics(["t"], partitions=1)
    await bus.produce("t", b"not json", key=b"a")
    await produce(bus, "t", [1])
    seen = await consume_until(bus, topic="t", group="g", done=lambda s: len(s) >= 1)
    assert seen == [Ping(1)]
    [dead] = bus.records(bus.dead_letter_topic)
    headers = dict(dead.headers)
    assert (dead.value, headers[HEADER_TOPIC], headers[HEADER_OFFSET]) == (b"not json", b"t", b"0")
    assert headers[HEADER_STAGE] == b"decode"
    assert bus.committed("g") == {TopicPartition("t", 0): 2}


@pytest.mark.parametrize(
    ("error", "dead_lettered"),
    [(ValueError("poison"), [13]), (None, [])],
    ids=["poison-dead-lettered", "healthy"],
)
async def test_poison_record_is_isolated_after_retries(
    error: Exception | None, dead_lettered: list[int]
) -> None:
    bus = MemoryBus()
    await bus.create_topics(["t"], partitions=1)
    await produce(bus, "t", range(10, 16))
    seen = await consume_until(
        bus,
        topic="t",
        group="g",
        done=lambda s: {p.n for p in s} >= {10, 11, 12, 14, 15},
        fail=lambda p: error if p.n == 13 else None,
    )
    assert {p.n for p in seen} >= {10, 11, 12, 14, 15}
    dead = [DECODE(r.value or b"").n for r in bus.records(bus.dead_letter_topic)]
    assert dead == dead_lettered


async def test_retry_later_is_retried_not_dead_lettered() -> None:
    bus = MemoryBus()
    await bus.create_topics(["t"], partitions=1)
    await produce(bus, "t", [1])
    failures = iter([RetryLater("api down")] * 6)
    seen = await consume_until(
        bus, topic="t", group="g", done=lambda s: len(s) >= 1, fail=lambda p: next(failures, None)
    )
    assert seen == [Ping(1)]
    assert bus.records(bus.dead_letter_topic) == []


async def test_group_members_share_partitions_without_duplicates() -> None:
    bus = MemoryBus(partitions=4)
    await bus.create_topics(["t"])
    await produce(bus, "t", range(200))
    stopping = asyncio.Event()
    seen: dict[str, list[tuple[int, int]]] = {"a": [], "b": []}

    def handler_for(name: str) -> Handler[Ping]:
        async def handler(records: Sequence[Record[Ping]]) -> None:
            seen[name].extend((r.partition, r.value.n) for r in records)
            await asyncio.sleep(0.001)
            if len(seen["a"]) + len(seen["b"]) >= 200:
                stopping.set()

        return handler

    members = [
        bus.consume(
            topics=["t"],
            group="g",
            decode=DECODE,
            handler=handler_for(name),
            stopping=stopping,
            policy=FAST,
        )
        for name in ("a", "b")
    ]
    await asyncio.wait_for(asyncio.gather(*members), 5)
    numbers = [n for rows in seen.values() for _, n in rows]
    assert sorted(numbers) == list(range(200))
    assert {p for p, _ in seen["a"]}.isdisjoint({p for p, _ in seen["b"]})


async def test_rebuild_reads_to_the_end_then_follow_continues() -> None:
    bus = MemoryBus(partitions=3)
    await bus.create_topics(["t"])
    await produce(bus, "t", range(7))
    await bus.produce("t", None, key=b"k0")  # tombstone: skipped
    snapshot = await bus.rebuild(topics=["t"], decode=DECODE)
    assert sorted(r.value.n for r in snapshot.records) == list(range(7))
    assert sum(snapshot.positions.values()) == 8
    await produce(bus, "t", [100, 101])
    live: list[int] = []
    stopping = asyncio.Event()

    async def handler(records: Sequence[Record[Ping]]) -> None:
        live.extend(r.value.n for r in records)
        if len(live) >= 2:
            stopping.set()

    await asyncio.wait_for(
        bus.follow(
            positions=snapshot.positions,
            decode=DECODE,
            handler=handler,
            stopping=stopping,
            policy=FAST,
        ),
        5,
    )
    assert sorted(live) == [100, 101]


async def test_unknown_topic_is_an_error() -> None:
    with pytest.raises(UnknownTopicError):
        await MemoryBus().produce("typo", b"x")
