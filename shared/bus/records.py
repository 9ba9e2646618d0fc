"""The values that cross the bus: records, positions, snapshots, and the delivery policy."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, NamedTuple, TypeVar

import msgspec

T = TypeVar("T")

Headers = tuple[tuple[str, bytes], ...]


class TopicPartition(NamedTuple):
    topic: str
    partition: int


class Position(NamedTuple):
    """Where an acknowledged record was stored."""

    topic: str
    partition: int
    offset: int


class Record(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    """One consumed record. `value` is the decoded event (raw bytes before decoding)."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: T
    timestamp_ms: int
    headers: Headers = ()

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


RawRecord = Record[bytes | None]


def with_value(raw: RawRecord, value: T) -> Record[T]:
    """`raw` with its bytes replaced by the decoded event."""
    return Record(
        topic=raw.topic,
        partition=raw.partition,
        offset=raw.offset,
        key=raw.key,
        value=value,
        timestamp_ms=raw.timestamp_ms,
        headers=raw.headers,
    )


class Outgoing(msgspec.Struct, frozen=True):
    """One record to produce; the key picks the partition (murmur2, as Kafka's Java client)."""

    value: bytes | None
    key: bytes | None = None
    headers: Headers = ()


class Snapshot(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    """Everything a rebuild read, and where live reading continues (next offset per partition)."""

    records: list[Record[T]]
    positions: dict[TopicPartition, int]


Decode = Callable[[bytes], T]
Handler = Callable[[Sequence[Record[T]]], Awaitable[None]]


class RetryLater(Exception):
    """Raised by a handler for a transient failure (API server down, not this record's fault).

    The batch is retried with capped backoff for as long as it takes (until the consumer stops
    or loses the partition), never dead-lettered.
    """


class DeliveryPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """How a consumer hands batches to its handler and what it does when the handler fails."""

    max_records: int = 500
    """Most records per handler call."""
    poll_timeout_ms: int = 100
    """Longest a poll waits for records; bounds how fast a stop request is noticed."""
    handler_attempts: int = 4
    """Attempts per batch for an ordinary exception; then each record alone gets as many, and a
    record that still fails goes to the dead-letter topic with its error (so a poison record
    never stalls its partition)."""
    retry_backoff_s: float = 0.05
    """First retry delay; doubles per attempt."""
    retry_backoff_max_s: float = 5.0
    """Cap of the retry delay."""
