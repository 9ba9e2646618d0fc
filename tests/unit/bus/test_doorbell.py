"""Publishers ring the doorbell after a quiet spell; consumers drop the rings (``Doorbell``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from shared.bus.pacing import Doorbell
from shared.config import KafkaSettings


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


def settings(**overrides: object) -> KafkaSettings:
    base: dict[str, object] = {
        "bootstrap": "x:1",
        "broker": "tansu",
        "topic_prefix": "t.",
        "doorbell": True,
        "fetch_max_wait_ms": 10,
        "idle_fetch_max_wait_ms": 600,
        "idle_after_ms": 2000,
    }
    return KafkaSettings(**{**base, **overrides})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("overrides", "publishes", "rings"),
    [
        ({}, [(0.0, "t.state.jobs")], [True]),
        # under half the idle threshold since the last ring: no new ring
        (
            {},
            [(0.0, "t.state.jobs"), (0.5, "t.state.pods"), (0.99, "t.results")],
            [True, False, False],
        ),
        # a consumer idle since the last ring is rung by the next record
        (
            {},
            [(0.0, "t.state.jobs"), (1.0, "t.state.pods"), (3.5, "t.results")],
            [True, True, True],
        ),
        ({}, [(0.0, "t.wake")], [False]),  # the doorbell's own topic never rings
        ({"doorbell": False}, [(0.0, "t.state.jobs")], [False]),
        # no idle pacing (idle wait not longer than the busy one): nothing to wake
        ({"idle_fetch_max_wait_ms": 10}, [(0.0, "t.state.jobs")], [False]),
    ],
    ids=["first", "rate-limited", "after-quiet", "own-topic", "off", "no-pacing"],
)
def test_due(
    overrides: dict[str, object], publishes: list[tuple[float, str]], rings: list[bool]
) -> None:
    clock = Clock()
    doorbell = Doorbell(settings(**overrides), clock)
    assert doorbell.topic == "t.wake"
    seen = []
    for at, topic in publishes:
        clock.now = 100.0 + at
        seen.append(doorbell.due(topic))
    assert seen == rings


@dataclass
class Record:
    offset: int


@dataclass
class FakeConsumer:
    highwaters: dict[KafkaTopicPartition, int]
    seeks: list[tuple[KafkaTopicPartition, int]] = field(default_factory=list)

    def highwater(self, tp: KafkaTopicPartition) -> int | None:
        return self.highwaters.get(tp)

    def seek(self, tp: KafkaTopicPartition, offset: int) -> None:
        self.seeks.append((tp, offset))


WAKE = KafkaTopicPartition("t.wake", 0)
JOBS = KafkaTopicPartition("t.state.jobs", 1)


@pytest.mark.parametrize(
    ("fetched", "highwater", "left", "seeks"),
    [
        ({JOBS: [Record(4)]}, 9, [JOBS], []),
        ({WAKE: [Record(8)], JOBS: [Record(4)]}, 9, [JOBS], []),  # caught up: no seek
        ({WAKE: [Record(0), Record(1)]}, 5000, [], [(WAKE, 5000)]),  # backlog skipped
    ],
    ids=["no-rings", "ring-dropped", "backlog-skipped"],
)
def test_strip(
    fetched: dict[KafkaTopicPartition, list[Record]],
    highwater: int,
    left: list[KafkaTopicPartition],
    seeks: list[tuple[KafkaTopicPartition, int]],
) -> None:
    consumer = FakeConsumer({WAKE: highwater})
    kept = Doorbell(settings()).strip(consumer, fetched)
    assert list(kept) == left
    assert consumer.seeks == seeks
