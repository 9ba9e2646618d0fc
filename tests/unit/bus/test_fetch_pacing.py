"""Consumers park fetches briefly while records flow and long once idle (``Pacing``)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.bus import DeliveryPolicy, TopicPartition
from shared.bus.pacing import Pacing
from shared.config import KafkaSettings


class FakeFetcher:
    _fetch_max_wait_ms = 10


class FakeConsumer:
    def __init__(self) -> None:
        self._fetcher = FakeFetcher()


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


SETTINGS = KafkaSettings(
    bootstrap="x:1",
    broker="tansu",
    fetch_max_wait_ms=10,
    idle_fetch_max_wait_ms=200,
    idle_after_ms=2000,
)


@pytest.mark.parametrize(
    ("polls", "wait_ms"),
    [
        ([(0.5, False), (1.0, False)], 10),
        ([(0.5, False), (2.5, False)], 200),
        ([(2.5, False), (2.6, True)], 10),
        ([(2.5, False), (2.6, True), (4.0, False), (4.7, False)], 200),
        ([(1.9, True), (3.5, False)], 10),
    ],
    ids=[
        "quiet-but-not-yet-idle",
        "idle-after-two-seconds",
        "first-record-wakes-it",
        "idle-again-after-the-burst",
        "records-restart-the-idle-timer",
    ],
)
def test_parked_fetch_follows_the_traffic(polls: list[tuple[float, bool]], wait_ms: int) -> None:
    clock, consumer = Clock(), FakeConsumer()
    pacing = Pacing(consumer, SETTINGS, clock=clock)
    start = clock.now
    for at, records in polls:
        clock.now = start + at
        pacing.polled(records)
    assert consumer._fetcher._fetch_max_wait_ms == wait_ms


class QuietFetcher:
    """A fetcher whose fetch task answers from a script (True: it brought records)."""

    _fetch_max_wait_ms = 10

    def __init__(self) -> None:
        self.answers: list[bool] = []

    async def _proc_fetch_request(self, assignment: object, node_id: int, request: object) -> bool:
        return self.answers.pop(0)


class QuietConsumer:
    def __init__(self, tps: list[TopicPartition]) -> None:
        self._fetcher = QuietFetcher()
        self._tps = set(tps)
        self.paused: set[TopicPartition] = set()

    def assignment(self) -> set[TopicPartition]:
        return set(self._tps)

    def pause(self, *tps: TopicPartition) -> None:
        self.paused |= set(tps)

    def resume(self, *tps: TopicPartition) -> None:
        self.paused -= set(tps)


JOBS, NODES_0, NODES_1 = (
    TopicPartition("jobs", 0),
    TopicPartition("nodes", 0),
    TopicPartition("nodes", 1),
)


@pytest.mark.parametrize(
    ("settings", "consumer"),
    [
        (KafkaSettings(broker="tansu", fetch_max_wait_ms=10, idle_fetch_max_wait_ms=0), None),
        (KafkaSettings(broker="tansu", fetch_max_wait_ms=10, idle_fetch_max_wait_ms=200), object()),
        (KafkaSettings(broker="kafka", fetch_max_wait_ms=10), None),
    ],
    ids=["disabled-by-setting", "client-without-the-attribute", "kafka"],
)
def test_pacing_can_be_off(settings: KafkaSettings, consumer: Any) -> None:
    clock, consumer = Clock(), consumer or QuietConsumer([JOBS, NODES_0])
    fetcher = getattr(consumer, "_fetcher", None)
    fetch = getattr(fetcher, "_proc_fetch_request", None)
    pacing = Pacing(consumer, settings, clock=clock, wake_topics=["jobs"])
    clock.now += 60
    pacing.polled(False)
    assert not pacing.idle
    assert pacing.poll_timeout_ms(DeliveryPolicy()) == DeliveryPolicy().poll_timeout_ms
    if fetcher is not None:  # the private fetcher is left as aiokafka made it
        assert fetcher._fetch_max_wait_ms == 10
        assert fetcher._proc_fetch_request == fetch
        assert not consumer.paused


async def test_an_idle_consumer_fetches_its_quiet_topics_once_in_five() -> None:
    clock, consumer = Clock(), QuietConsumer([JOBS, NODES_0, NODES_1])
    pacing = Pacing(consumer, SETTINGS, clock=clock, wake_topics=["jobs"])
    fetch = consumer._fetcher._proc_fetch_request  # as the fetcher calls it: paced
    assert pacing.poll_timeout_ms(DeliveryPolicy()) == 100
    clock.now += 2.5
    pacing.polled(False)
    assert pacing.idle and consumer.paused == {NODES_0, NODES_1}
    assert pacing.poll_timeout_ms(DeliveryPolicy()) == 500
    carried = []
    for _ in range(10):
        consumer._fetcher.answers.append(False)
        await fetch(None, 0, None)
        carried.append(not consumer.paused)  # the next fetch carries the quiet partitions
    assert carried == [False, False, False, False, True] * 2
    consumer._fetcher.answers.append(True)  # records: awake before the consumer even polls
    await fetch(None, 0, None)
    assert not pacing.idle and not consumer.paused
    assert consumer._fetcher._fetch_max_wait_ms == 10


async def test_without_wake_topics_every_partition_is_fetched_at_rest() -> None:
    clock, consumer = Clock(), QuietConsumer([JOBS, NODES_0])
    pacing = Pacing(consumer, SETTINGS, clock=clock)
    clock.now += 2.5
    pacing.polled(False)
    consumer._fetcher.answers.append(False)
    await consumer._fetcher._proc_fetch_request(None, 0, None)
    assert pacing.idle and not consumer.paused
    assert consumer._fetcher._fetch_max_wait_ms == 200
