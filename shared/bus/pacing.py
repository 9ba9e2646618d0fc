"""Idle pacing of the consumers on the embedded Tansu broker only (``KafkaSettings.broker``):
short parked fetches while records flow, long ones at rest (`Pacing`), and a doorbell that wakes
every idle consumer at once when anything is published after a quiet spell (`Doorbell`).

A parked fetch is how a consumer waits for records. Kafka answers it as soon as data arrives,
so against Kafka nothing here is switched on. Tansu answers only when it next polls its storage
(at halving intervals of the wait, so a record lands ~W/6 before it is seen, W/2 at worst), so
the wait is each hop's latency and must be short, and each parked fetch costs both sides CPU,
so at rest a consumer parks long; that makes every hop of the first job after a quiet spell
wait for it, once per consumer on the job's path. The doorbell takes the hops after the first
off that path: a publisher that has not rung for a second rings a one-partition topic that
every paced consumer also reads, so all of them are awake (short waits) before the job's
records reach them. aiokafka has no public setter for the wait, so `Pacing` sets its private
fetcher's: a workaround kept to the broker that needs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka import TopicPartition as KafkaTopicPartition

from shared.bus.records import DeliveryPolicy
from shared.config import KafkaSettings

QUIET_FETCH_EVERY = 5  # an idle consumer's fetches that carry its quiet topics: one in five
IDLE_POLL_TIMEOUT_MS = 500  # an idle consumer's poll: each one wakes the loop and the fetcher


class Pacing:
    """Short parked fetches while records flow, long ones at rest, and few on quiet topics.

    Tansu answers a parked fetch only when its wait ends, so a short wait is what keeps each
    hop fast, and it costs both sides CPU a hundred times a second when nothing happens. After
    ``idle_after_ms`` without records the consumer parks its fetches for
    ``idle_fetch_max_wait_ms`` instead, and goes back to the short wait with the first record.
    aiokafka reads the wait from its fetcher for every request it builds; it has no public
    setter. Off, the fetcher untouched, unless ``KafkaSettings.paced`` (Tansu only).

    An idle consumer given ``wake_topics`` (the topics whose records start its work: the job
    controller's jobs, the scheduler's PodGroups, ...) also leaves the partitions of its other
    topics out of all but one fetch in ``QUIET_FETCH_EVERY`` (every 1.5 s at the default
    wait): they are paused, and resumed for that fetch from inside the fetcher's fetch task,
    before it sends the next one. The embedded broker polls every partition of a parked fetch
    about ten times per wait and the client encodes and decodes each one, so a consumer of
    seven topics pays for three at rest; a record on a quiet topic waits up to 1.5 s once.
    Any record wakes the consumer: every partition is fetched again, with the short wait.
    """

    def __init__(
        self,
        consumer: AIOKafkaConsumer,
        settings: KafkaSettings,
        clock: Callable[[], float] = time.monotonic,
        *,
        wake_topics: Collection[str] | None = None,
    ) -> None:
        self._clock = clock
        self._consumer = consumer
        self._fetcher = getattr(consumer, "_fetcher", None) if settings.paced else None
        self._busy_ms = settings.fetch_wait_ms
        self._idle_ms = settings.idle_fetch_wait_ms
        self._idle_after_s = settings.idle_after_ms / 1000
        self._enabled = hasattr(self._fetcher, "_fetch_max_wait_ms")
        self._wake = None if wake_topics is None else frozenset(wake_topics)
        self._idle_fetches = 0
        if self._enabled and self._wake is not None:
            self._enabled_quiet = hasattr(self._fetcher, "_proc_fetch_request")
        else:
            self._enabled_quiet = False
        if self._enabled_quiet:
            self._pace_quiet_topics()
        self._last = clock()
        self.idle = False

    def poll_timeout_ms(self, policy: DeliveryPolicy) -> int:
        """How long the next poll may wait for records: an idle consumer wakes less often (a
        record still ends the poll at once; a stop request waits for it)."""
        if self.idle:
            return max(policy.poll_timeout_ms, IDLE_POLL_TIMEOUT_MS)
        return policy.poll_timeout_ms

    def polled(self, records: bool) -> None:
        if not self._enabled:
            return
        if records:
            self._last = self._clock()
            if self.idle:
                self._wake_up()
        elif not self.idle and self._clock() - self._last > self._idle_after_s:
            self._set(self._idle_ms, idle=True)
            self._idle_fetches = 0
            self._quiet(paused=True)

    def _wake_up(self) -> None:
        self._set(self._busy_ms, idle=False)
        self._quiet(paused=False)

    def _set(self, wait_ms: int, *, idle: bool) -> None:
        self._fetcher._fetch_max_wait_ms = wait_ms  # type: ignore[union-attr]
        self.idle = idle

    def _quiet(self, *, paused: bool) -> None:
        """Pause (or resume) the partitions of the topics that do not wake the consumer."""
        if not self._enabled_quiet or self._wake is None:
            return
        quiet = [tp for tp in self._consumer.assignment() if tp.topic not in self._wake]
        if quiet:
            if paused:
                self._consumer.pause(*quiet)
            else:
                self._consumer.resume(*quiet)

    def _pace_quiet_topics(self) -> None:
        fetcher: Any = self._fetcher
        fetch = fetcher._proc_fetch_request

        async def paced(assignment: Any, node_id: int, request: Any) -> bool:
            got_records: bool = await fetch(assignment, node_id, request)
            if self.idle and got_records:
                # Awake at once: the next fetch, sent before the consumer polls, carries
                # every partition with the short wait.
                self._last = self._clock()
                self._wake_up()
            elif self.idle:
                self._idle_fetches += 1
                self._quiet(paused=self._idle_fetches % QUIET_FETCH_EVERY != 0)
            return got_records

        fetcher._proc_fetch_request = paced


class Doorbell:
    """The ``<prefix>wake`` topic: one partition, empty records, read by every paced consumer
    and never delivered to a handler.

    A publisher rings when it publishes and has not rung for half the idle threshold, so a
    consumer that has been idle (no record for ``idle_after_ms``, rings included) is rung by
    the next record published anywhere. Under load a publisher rings once a second. Only on
    Tansu, which does not wake parked fetches, and only where consumers are paced
    (``KafkaSettings.doorbell``; the local stack sets it for its embedded broker): with Kafka
    the record itself ends the wait.
    """

    def __init__(self, settings: KafkaSettings, clock: Callable[[], float] = time.monotonic):
        self.topic = f"{settings.topic_prefix}wake"
        self.enabled = settings.doorbell and settings.paced
        self._every_s = settings.idle_after_ms / 2000
        self._clock = clock
        self._last = float("-inf")

    def due(self, topic: str) -> bool:
        """Whether a record published to ``topic`` now should ring (and the ring is counted)."""
        if not self.enabled or topic == self.topic:
            return False
        now = self._clock()
        if now - self._last < self._every_s:
            return False
        self._last = now
        return True

    def strip(
        self, consumer: AIOKafkaConsumer, fetched: dict[KafkaTopicPartition, list[Any]]
    ) -> dict[KafkaTopicPartition, list[Any]]:
        """The fetched records without the rings; a backlog of old rings (a consumer starts
        at the topic's beginning: Tansu cannot say where its end is) is skipped in one go."""
        rings = [tp for tp in fetched if tp.topic == self.topic]
        if not rings:
            return fetched
        for tp in rings:
            highwater = consumer.highwater(tp)
            if highwater is not None and highwater > fetched[tp][-1].offset + 1:
                consumer.seek(tp, highwater)
        return {tp: records for tp, records in fetched.items() if tp.topic != self.topic}
