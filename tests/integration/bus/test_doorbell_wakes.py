"""The doorbell against a real Kafka-protocol broker: a consumer parked for seconds at rest
is woken by a record published anywhere, and its handler never sees a ring.

Pacing and the doorbell are switched on only for Tansu, so these clients say tansu whatever the
session's broker is: on Kafka too they pace and ring (over the same protocol), which is what is
tested, not what a Kafka deployment runs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest

from shared.bus import DeliveryPolicy, Record
from shared.bus.kafka import KafkaBus
from shared.config import KafkaSettings
from tests.conftest import KafkaNames

pytestmark = [pytest.mark.broker, pytest.mark.timeout(90)]

IDLE_WAIT_MS = 4000  # a parked fetch at rest: a quiet topic is fetched every 5th one (20 s)
POLICY = DeliveryPolicy(poll_timeout_ms=50, retry_backoff_s=0.01, handler_attempts=2)


def settings(bootstrap: str, names: KafkaNames, *, doorbell: bool = True) -> KafkaSettings:
    return KafkaSettings(
        bootstrap=bootstrap,
        broker="tansu",
        topic_prefix=names.prefix,
        fetch_max_wait_ms=10,
        idle_fetch_max_wait_ms=IDLE_WAIT_MS,
        idle_after_ms=300,
        doorbell=doorbell,
        linger_ms=2,
        session_timeout_ms=6000,
        heartbeat_interval_ms=500,
    )


class Seen:
    def __init__(self) -> None:
        self.records: list[Record[bytes]] = []
        self.arrived: dict[bytes, float] = {}
        self.stopping = asyncio.Event()

    async def __call__(self, records: Sequence[Record[bytes]]) -> None:
        for record in records:
            self.records.append(record)
            self.arrived[record.value] = time.monotonic()


async def wait_for(seen: Seen, value: bytes, timeout_s: float) -> float:
    deadline = time.monotonic() + timeout_s
    while value not in seen.arrived and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return seen.arrived.get(value, float("inf"))


@pytest.mark.parametrize("reader", ["follow", "group"])
async def test_an_idle_consumer_is_rung_awake_by_a_record_on_a_quiet_topic(
    kafka_bootstrap: str, kafka_names: KafkaNames, reader: str
) -> None:
    wake, quiet = kafka_names.topic("wake-me"), kafka_names.topic("quiet")
    seen = Seen()
    async with (
        KafkaBus(settings=settings(kafka_bootstrap, kafka_names)) as consumer_bus,
        KafkaBus(settings=settings(kafka_bootstrap, kafka_names)) as publisher,
    ):
        await consumer_bus.create_topics([wake, quiet], partitions=2)
        if reader == "follow":
            snapshot = await consumer_bus.rebuild(topics=[wake, quiet], decode=bytes)
            following = consumer_bus.follow(
                positions=snapshot.positions,
                decode=bytes,
                handler=seen,
                stopping=seen.stopping,
                policy=POLICY,
                wake_topics=[wake],
            )
        else:
            following = consumer_bus.consume(
                topics=[wake, quiet],
                group=kafka_names.group("doorbell"),
                decode=bytes,
                handler=seen,
                stopping=seen.stopping,
                policy=POLICY,
                wake_topics=[wake],
            )
        task = asyncio.create_task(following)
        try:
            await publisher.produce(wake, b"warm-up")
            assert await wait_for(seen, b"warm-up", 30) < float("inf"), "never assigned"
            await asyncio.sleep(2.0)  # idle: fetches parked for 4 s, the quiet topic paused
            published = time.monotonic()
            await publisher.produce(quiet, b"after-rest")
            arrived = await wait_for(seen, b"after-rest", 30)
        finally:
            seen.stopping.set()
            await asyncio.wait_for(task, 20)
        rings = await consumer_bus.rebuild(topics=[consumer_bus.wake_topic], decode=bytes)
    # Woken by the ring within one re-poll of the broker (Tansu: half the parked wait at
    # most; Kafka: at once), not after the quiet topic's turn in a 4 s fetch cycle.
    assert arrived - published < IDLE_WAIT_MS / 1000 * 0.75
    assert [r.value for r in seen.records] == [b"warm-up", b"after-rest"]  # no ring delivered
    assert {tp.partition for tp in rings.positions} == {0}
    assert len(rings.records) >= 2  # the warm-up's ring and the one after the rest
