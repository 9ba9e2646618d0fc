"""Scheduler leadership through Kafka group membership (no API server access needed).

Every scheduler replica joins one consumer group on a one-partition topic; the member that is
assigned partition 0 is the leader, the others are standbys that wait. On election the leader
appends a record to that topic; the record's offset + 1 is its **epoch**, monotonic for the life
of the topic. Every decision carries the epoch and the binder drops decisions older than the
newest it has seen, so a deposed leader that has not noticed yet cannot act twice.

Why not a Lease: the scheduler never calls the API server (its decisions are a pure function of
the log), and Kafka's group coordinator already gives exactly one owner per partition with
session-timeout failure detection.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
from aiokafka import TopicPartition as KafkaTopicPartition
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)

from shared.bus import Bus
from shared.bus.security import client_options
from shared.config import KafkaSettings
from shared.runtime import close_within, unless_stopping

_log = structlog.get_logger()
LEADER_LOG_FETCH_MAX_WAIT_MS = 2000
Elected = Callable[[int], Awaitable[None]]


class Leadership:
    """Current leadership: ``epoch`` is 0 while not leading."""

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.epoch = 0
        self.changed = asyncio.Event()
        # Set once this replica knows its role (leader, or standby behind a live leader).
        self.known = asyncio.Event()
        self._on_change = on_change

    @property
    def leading(self) -> bool:
        return self.epoch > 0

    def set(self, epoch: int) -> None:
        self.epoch = epoch
        self.known.set()
        self.changed.set()
        if self._on_change is not None:
            self._on_change()  # a new leader decides at once, not a period later


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, topic: str, on_change: Callable[[bool], None]) -> None:
        self._tp = KafkaTopicPartition(topic, 0)
        self._on_change = on_change

    async def on_partitions_revoked(self, revoked: Any) -> None:
        if self._tp in revoked:
            self._on_change(False)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self._on_change(self._tp in assigned)  # not assigned: a standby, which it now knows


class _OldestFirst(AbstractPartitionAssignor):  # type: ignore[misc]
    """Every partition goes to the member that joined first (by its start time in the member
    metadata, ties by member id). With one partition, leadership only moves when the leader
    leaves; Kafka's stock assignors can hand it to any newcomer on a rebalance."""

    name = "shoal-oldest-first"
    version = 0
    started_ns = 0

    @classmethod
    def metadata(cls, topics: Any) -> ConsumerProtocolMemberMetadata:
        return ConsumerProtocolMemberMetadata(
            cls.version, list(topics), str(cls.started_ns).encode()
        )

    @classmethod
    def assign(cls, cluster: Any, members: Any) -> dict[str, ConsumerProtocolMemberAssignment]:
        def age(member_id: str) -> tuple[int, str]:
            data = members[member_id].user_data or b""
            return (int(data) if data.isdigit() else 2**63, member_id)

        oldest = min(members, key=age)
        topics = sorted({t for m in members.values() for t in m.subscription})
        owned = [(t, sorted(cluster.partitions_for_topic(t) or ())) for t in topics]
        return {
            member: ConsumerProtocolMemberAssignment(
                cls.version, owned if member == oldest else [], b""
            )
            for member in members
        }

    @classmethod
    def on_assignment(cls, assignment: Any) -> None:
        return None


def _oldest_first(started_ns: int) -> type[_OldestFirst]:
    return type("OldestFirst", (_OldestFirst,), {"started_ns": started_ns})


async def run_static_leadership(
    leadership: Leadership,
    stopping: asyncio.Event,
    *,
    bus: Bus | None = None,
    topic: str = "",
    identity: str = "",
) -> None:
    """Always the leader (one replica). With a bus, the epoch is a record appended to the leader
    log as an election would, so the binder can verify it; without one (tests), epoch 1."""
    if bus is None:
        leadership.set(1)
    else:
        await bus.create_topics([topic], partitions=1)
        position = await unless_stopping(
            bus.produce(topic, identity.encode(), key=b"leader"), stopping
        )
        if position is None:
            return
        leadership.set(position.offset + 1)
    await stopping.wait()


async def run_group_leadership(
    *,
    bus: Bus,
    kafka: KafkaSettings,
    topic: str,
    group: str,
    identity: str,
    leadership: Leadership,
    stopping: asyncio.Event,
) -> None:
    """Hold or wait for leadership until ``stopping``; updates ``leadership`` as it changes."""
    await bus.create_topics([topic], partitions=1)
    elected = asyncio.Event()

    def on_change(leader: bool) -> None:
        if leader:
            elected.set()  # known once the election record is written
        else:
            elected.clear()
            if leadership.leading:
                _log.warning("leadership lost", epoch=leadership.epoch)
            leadership.set(0)

    consumer = AIOKafkaConsumer(
        bootstrap_servers=kafka.bootstrap,
        client_id=f"{kafka.client_id}-leader",
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=kafka.session_ms,
        heartbeat_interval_ms=kafka.heartbeat_interval_ms,
        # Its records are never waited for (membership is what elects): fetch rarely.
        fetch_max_wait_ms=LEADER_LOG_FETCH_MAX_WAIT_MS,
        **client_options(kafka),
        # The oldest member leads: a standby joining must not take over from a live leader.
        partition_assignment_strategy=(_oldest_first(time.time_ns()),),
    )
    await consumer.start()
    try:
        consumer.subscribe([topic], listener=_Listener(topic, on_change))
        while not stopping.is_set():
            # Polling keeps the membership alive. While the group rebalances aiokafka's getmany
            # waits for the assignment whatever its timeout, and with the broker gone mid-join
            # that wait never ends: both waits below are given up on stopping.
            await unless_stopping(consumer.getmany(timeout_ms=200), stopping)
            if elected.is_set() and not leadership.leading and not stopping.is_set():
                try:
                    written = await unless_stopping(
                        bus.produce(topic, identity.encode(), key=b"leader"), stopping
                    )
                except Exception as exc:  # a broker that is restarting: try again next poll
                    _log.warning("cannot write the leadership record yet", error=repr(exc))
                    await asyncio.sleep(1.0)
                    continue
                if written is None:
                    break
                position = written
                if elected.is_set():  # not revoked while the record was being written
                    leadership.set(position.offset + 1)
                    _log.info("elected leader", epoch=leadership.epoch, identity=identity)
    finally:
        leadership.set(0)
        # Leaving the group needs the coordinator; with the broker gone the member's session
        # ends it instead.
        await close_within(consumer.stop(), what="leader election consumer stop")
