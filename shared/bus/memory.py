"""An in-process `Bus` for pure tests and `replay`: same partitioning, offsets, groups, commits.

Partitions are lists; a record's offset is its index. Groups assign partitions round-robin over
their members in join order. A join or leave is a rebalance: it waits until every member of the
group has finished its in-flight batch (each member holds its lock while handling and
committing), then moves partitions; a member resumes a newly assigned partition at the group's
committed offset (earliest if none). Unlike the embedded broker, topics are never auto-created:
producing to an unknown topic raises `UnknownTopicError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TypeVar

from aiokafka.partitioner import murmur2

from shared.bus.delivery import Rejected, commit_offsets, deliver, reject, screen, send_dead_letter
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

T = TypeVar("T")


class UnknownTopicError(KeyError):
    """Produced to or consumed from a topic that was never created."""


def partition_for(key: bytes | None, partitions: int, counter: int) -> int:
    """Kafka's default partitioner: murmur2 of the key; keyless records spread round-robin."""
    if key is None:
        return counter % partitions
    hashed: int = murmur2(key)
    return (hashed & 0x7FFFFFFF) % partitions


class _Member:
    def __init__(self, member_id: int, topics: Sequence[str]) -> None:
        self.member_id = member_id
        self.topics = tuple(topics)
        self.lock = asyncio.Lock()
        self.positions: dict[TopicPartition, int] = {}


class MemoryBus:
    """See the module docstring. `clock` gives record timestamps (seconds), for determinism;
    `max_record_bytes` is the record limit consumers enforce (None: no limit)."""

    def __init__(
        self,
        *,
        partitions: int = 4,
        topic_prefix: str = "shoal.",
        clock: Callable[[], float] = time.time,
        max_record_bytes: int | None = None,
    ) -> None:
        self._max_record_bytes = max_record_bytes
        self._default_partitions = partitions
        self._prefix = topic_prefix
        self._clock = clock
        self._logs: dict[str, list[list[RawRecord]]] = {}
        self._committed: dict[str, dict[TopicPartition, int]] = {}
        self._groups: dict[str, list[_Member]] = {}
        self._member_ids = itertools.count()
        self._keyless = itertools.count()
        self._appended = asyncio.Event()

    @property
    def dead_letter_topic(self) -> str:
        return f"{self._prefix}deadletter"

    def committed(self, group: str) -> dict[TopicPartition, int]:
        """The group's committed offsets (for tests)."""
        return dict(self._committed.get(group, {}))

    def records(self, topic: str) -> list[RawRecord]:
        """Every stored record of `topic`, partition by partition (for tests)."""
        return [record for partition in self._log(topic) for record in partition]

    async def create_topics(self, names: Sequence[str], *, partitions: int | None = None) -> None:
        for name in names:
            self._logs.setdefault(name, [[] for _ in range(partitions or self._default_partitions)])

    async def produce(
        self, topic: str, value: bytes | None, *, key: bytes | None = None, headers: Headers = ()
    ) -> Position:
        return self._append(topic, Outgoing(value, key, headers))

    async def produce_many(self, topic: str, records: Iterable[Outgoing]) -> list[Position]:
        return [self._append(topic, record) for record in records]

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
        for topic in topics:
            self._log(topic)
        await self.create_topics([self.dead_letter_topic])
        member = _Member(next(self._member_ids), topics)
        await self._rebalance(group, join=member)
        if on_assigned is not None:
            on_assigned()
        try:
            while not stopping.is_set():
                async with member.lock:
                    batch = self._fetch(member.positions, policy.max_records)
                    if batch:
                        done = await deliver(
                            batch,
                            decode=decode,
                            handler=handler,
                            dead_letter=self._dead_letter,
                            policy=policy,
                            abort=stopping.is_set,
                            max_bytes=self._max_record_bytes,
                        )
                        self._settle(group, member, batch, done=done)
                if not batch:
                    await self._wait_for_append(policy.poll_timeout_ms / 1000)
        finally:
            await self._rebalance(group, leave=member)

    async def rebuild(
        self, *, topics: Sequence[str], decode: Decode[T], keep_reader: bool = False
    ) -> Snapshot[T]:
        records: list[Record[T]] = []
        positions: dict[TopicPartition, int] = {}
        for topic in topics:
            for partition, log in enumerate(self._log(topic)):
                positions[TopicPartition(topic, partition)] = len(log)
                for raw in log:
                    if raw.value is None:
                        continue
                    value = screen(raw, decode, self._max_record_bytes)
                    if isinstance(value, Rejected):  # a poison record must not stop a rebuild
                        await reject(raw, value, self._dead_letter)
                        continue
                    records.append(with_value(raw, value))
        return Snapshot(records=records, positions=positions)

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
        mine = dict(positions)
        while not stopping.is_set():
            batch = self._fetch(mine, policy.max_records)
            if not batch:
                await self._wait_for_append(policy.poll_timeout_ms / 1000)
                continue
            done = await deliver(
                batch,
                decode=decode,
                handler=handler,
                dead_letter=self._dead_letter,
                policy=policy,
                abort=stopping.is_set,
                max_bytes=self._max_record_bytes,
            )
            if not done:
                return

    def take_truncated(self) -> set[TopicPartition]:
        return set()  # an in-memory log is never deleted under its readers

    async def close(self) -> None:
        return None

    def _log(self, topic: str) -> list[list[RawRecord]]:
        try:
            return self._logs[topic]
        except KeyError:
            raise UnknownTopicError(topic) from None

    def _append(self, topic: str, out: Outgoing) -> Position:
        log = self._log(topic)
        partition = partition_for(out.key, len(log), next(self._keyless))
        offset = len(log[partition])
        record: RawRecord = Record(
            topic=topic,
            partition=partition,
            offset=offset,
            key=out.key,
            value=out.value,
            timestamp_ms=int(self._clock() * 1000),
            headers=out.headers,
        )
        log[partition].append(record)
        self._appended.set()
        self._appended = asyncio.Event()
        return Position(topic, partition, offset)

    async def _dead_letter(self, raw: RawRecord, stage: str, error: str) -> None:
        async def produce(copy: Outgoing) -> None:
            await self.produce(
                self.dead_letter_topic, copy.value, key=copy.key, headers=copy.headers
            )

        await send_dead_letter(produce, raw, stage, error)

    def _fetch(self, positions: dict[TopicPartition, int], limit: int) -> list[RawRecord]:
        batch: list[RawRecord] = []
        for tp, position in positions.items():
            taken = self._logs[tp.topic][tp.partition][position : position + limit - len(batch)]
            batch += taken
            positions[tp] = position + len(taken)
        return batch

    def _settle(self, group: str, member: _Member, batch: list[RawRecord], *, done: bool) -> None:
        """Commit a handled batch, or rewind to the committed offsets to read it again."""
        committed = self._committed.setdefault(group, {})
        if done:
            committed.update(commit_offsets(batch))
            return
        for tp in commit_offsets(batch):
            member.positions[tp] = committed.get(tp, 0)

    async def _rebalance(
        self, group: str, *, join: _Member | None = None, leave: _Member | None = None
    ) -> None:
        members = self._groups.setdefault(group, [])
        async with contextlib.AsyncExitStack() as stack:
            for member in list(members):
                if member is not leave:
                    await stack.enter_async_context(member.lock)
            if join is not None:
                members.append(join)
            if leave is not None:
                members.remove(leave)
            self._assign(group, members)

    def _assign(self, group: str, members: list[_Member]) -> None:
        if not members:
            return
        topics = sorted({topic for member in members for topic in member.topics})
        tps = [
            TopicPartition(topic, partition)
            for topic in topics
            for partition in range(len(self._logs[topic]))
        ]
        committed = self._committed.get(group, {})
        for index, member in enumerate(members):
            owned = [tp for i, tp in enumerate(tps) if i % len(members) == index]
            member.positions = {tp: member.positions.get(tp, committed.get(tp, 0)) for tp in owned}

    async def _wait_for_append(self, timeout_s: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._appended.wait(), timeout_s)
