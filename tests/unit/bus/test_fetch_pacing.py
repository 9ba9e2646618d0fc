"""Consumers park fetches briefly while records flow and long once idle (``Pacing``)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.bus.kafka import Pacing
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
    bootstrap="x:1", fetch_max_wait_ms=10, idle_fetch_max_wait_ms=200, idle_after_ms=2000
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


@pytest.mark.parametrize(
    ("idle_ms", "consumer"),
    [(0, FakeConsumer()), (200, object())],
    ids=["disabled-by-setting", "client-without-the-attribute"],
)
def test_pacing_can_be_off(idle_ms: int, consumer: Any) -> None:
    clock = Clock()
    settings = KafkaSettings(bootstrap="x:1", fetch_max_wait_ms=10, idle_fetch_max_wait_ms=idle_ms)
    pacing = Pacing(consumer, settings, clock=clock)
    clock.now += 60
    pacing.polled(False)
    assert not pacing.idle
