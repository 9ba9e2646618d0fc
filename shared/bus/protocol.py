"""The `Bus` protocol: what services need from Kafka, honoured by Kafka and in-memory buses.

Semantics both implementations keep: records are partitioned by murmur2 of the key; offsets are
per partition; a group shares partitions among its live members; a consumer commits
`offset + 1` only after its handler succeeded (at-least-once; handlers are idempotent);
undecodable records and records that keep failing go to `dead_letter_topic` and the partition
moves on; tombstones (`None` values) are skipped and committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Protocol, TypeVar

from shared.bus.records import (
    Decode,
    DeliveryPolicy,
    Handler,
    Headers,
    Outgoing,
    Position,
    Snapshot,
    TopicPartition,
)

T = TypeVar("T")

DEFAULT_POLICY = DeliveryPolicy()


class Bus(Protocol):
    @property
    def dead_letter_topic(self) -> str:
        """`<prefix>deadletter`: undecodable or poison records, with headers saying why."""
        ...

    async def create_topics(self, names: Sequence[str], *, partitions: int | None = None) -> None:
        """Create topics (default partition count from settings); existing topics are kept."""
        ...

    async def produce(
        self, topic: str, value: bytes | None, *, key: bytes | None = None, headers: Headers = ()
    ) -> Position:
        """Produce one record; returns once the broker acknowledged it."""
        ...

    async def produce_many(self, topic: str, records: Iterable[Outgoing]) -> list[Position]:
        """Produce a batch (pipelined); returns once all are acknowledged, in input order."""
        ...

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
        """Consume as a member of `group` until `stopping` is set; the last batch is committed.

        `on_assigned` is called each time the group gives this member its partitions (possibly
        none): from then on it receives records, so a service may call itself ready.
        `wake_topics`: the topics whose records start the consumer's work; while idle it may
        read its other topics less often (a record there waits up to ~1.5 s); None: all."""
        ...

    async def rebuild(
        self, *, topics: Sequence[str], decode: Decode[T], keep_reader: bool = False
    ) -> Snapshot[T]:
        """Read every partition from the beginning up to its high watermark (no group); a record
        too large or undecodable is dead-lettered and left out. ``keep_reader``: keep the reader
        for the next rebuild of the same topics (a small log read again every few seconds, such
        as the log generation: no new connection and consumer start each time)."""
        ...

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
        """Keep reading live from `positions` (e.g. a rebuild's end), without a group or commits;
        `wake_topics` as for `consume`.

        A live record that is too large or does not decode is dead-lettered, as a rebuild does
        (its copy is keyed by the source position, so a compacted dead-letter topic keeps one)."""
        ...

    def take_truncated(self) -> set[TopicPartition]:
        """Partitions a reader of this bus saw restart below where it stood — a topic deleted
        and created again under it — since the last call. The reader itself has moved to the
        new log's beginning; the records it had read are gone, so the caller declares the log
        lost (``shared.bus.generation``) and every service rebuilds."""
        ...

    async def close(self) -> None: ...
