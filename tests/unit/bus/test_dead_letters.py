"""The dead-letter path: oversized and undecodable records leave as bounded copies, rebuilds
take the same path, and writing the dead letter can never stall a partition."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec
import pytest

from shared.bus import (
    HEADER_KEY,
    HEADER_OFFSET,
    HEADER_PARTITION,
    HEADER_SIZE,
    HEADER_STAGE,
    HEADER_TOPIC,
    DeliveryPolicy,
    MemoryBus,
    Outgoing,
    RawRecord,
    Record,
    TopicPartition,
)
from shared.bus.delivery import DEAD_LETTER_VALUE_BYTES, send_dead_letter
from shared.bus.kafka import fetch_limits
from shared.config import KafkaSettings


class Ping(msgspec.Struct, frozen=True):
    n: int


DECODE = msgspec.json.Decoder(Ping).decode
LIMIT = 1024
FAST = DeliveryPolicy(poll_timeout_ms=10, retry_backoff_s=0.001)
HUGE = b'{"n": 1, "pad": "' + b"x" * (DEAD_LETTER_VALUE_BYTES * 3) + b'"}'


async def consume_all(bus: MemoryBus, topic: str, want: int) -> list[Ping]:
    seen: list[Ping] = []
    stopping = asyncio.Event()

    async def handler(records: Sequence[Record[Ping]]) -> None:
        seen.extend(r.value for r in records)
        if len(seen) >= want:
            stopping.set()

    consuming = bus.consume(
        topics=[topic], group="g", decode=DECODE, handler=handler, stopping=stopping, policy=FAST
    )
    await asyncio.wait_for(consuming, 5)
    return seen


@pytest.mark.parametrize(
    ("poison", "stage"),
    [(HUGE, b"size"), (b"\xff not json", b"decode")],
    ids=["oversized", "undecodable"],
)
async def test_rejected_record_is_dead_lettered_as_a_bounded_copy_and_committed(
    poison: bytes, stage: bytes
) -> None:
    bus = MemoryBus(max_record_bytes=LIMIT)
    await bus.create_topics(["t"], partitions=1)
    await bus.produce("t", poison, key=b"k", headers=(("trace", b"abc"),))
    await bus.produce("t", msgspec.json.encode(Ping(2)), key=b"k")
    assert await consume_all(bus, "t", want=1) == [Ping(2)]
    [dead] = bus.records(bus.dead_letter_topic)
    headers = dict(dead.headers)
    assert dead.key == b"t/0/0", "keyed by the source position"
    assert dead.value == poison[:DEAD_LETTER_VALUE_BYTES]
    assert headers[HEADER_STAGE] == stage and headers["trace"] == b"abc"
    assert (headers[HEADER_TOPIC], headers[HEADER_PARTITION], headers[HEADER_OFFSET]) == (
        b"t",
        b"0",
        b"0",
    )
    assert headers[HEADER_SIZE] == str(len(poison)).encode() and headers[HEADER_KEY] == b"k"
    assert bus.committed("g") == {TopicPartition("t", 0): 2}


async def test_rebuild_dead_letters_through_the_same_path() -> None:
    bus = MemoryBus(max_record_bytes=LIMIT)
    await bus.create_topics(["t", bus.dead_letter_topic], partitions=1)
    await bus.produce("t", HUGE, key=b"k")
    await bus.produce("t", msgspec.json.encode(Ping(2)), key=b"k")
    snapshot = await bus.rebuild(topics=["t"], decode=DECODE)
    assert [r.value for r in snapshot.records] == [Ping(2)]
    assert snapshot.positions == {TopicPartition("t", 0): 2}
    [dead] = bus.records(bus.dead_letter_topic)
    assert dict(dead.headers)[HEADER_STAGE] == b"size"


def raw(value: bytes) -> RawRecord:
    return Record(topic="t", partition=3, offset=7, key=b"k", value=value, timestamp_ms=0)


@pytest.mark.parametrize(
    ("failures", "written_value"),
    [(0, b"v"), (1, None), (2, "nothing")],
    ids=["copy-written", "headers-only-after-a-failure", "logged-and-skipped-when-all-fail"],
)
async def test_writing_the_dead_letter_never_raises(
    failures: int, written_value: bytes | str | None
) -> None:
    written: list[Outgoing] = []
    failures_left = list(range(failures))

    async def flaky(copy: Outgoing) -> None:
        if failures_left:
            failures_left.pop()
            raise RuntimeError("MessageSizeTooLargeError")
        written.append(copy)

    await send_dead_letter(flaky, raw(b"v"), "decode", "boom")
    if written_value == "nothing":
        assert written == []
    else:
        [copy] = written
        assert copy.value == written_value
        assert dict(copy.headers)[HEADER_OFFSET] == b"7"


@pytest.mark.parametrize("limit", [1024 * 1024, 4 * 1024 * 1024, 64 * 1024 * 1024], ids=str)
def test_fetch_limits_hold_any_record_the_producer_may_write(limit: int) -> None:
    limits = fetch_limits(KafkaSettings(max_request_size=limit))
    assert limits["max_partition_fetch_bytes"] > limit
    assert limits["fetch_max_bytes"] >= limits["max_partition_fetch_bytes"]
