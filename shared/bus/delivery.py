"""Handing a fetched batch to a handler: decode, dead-letter, retry. Shared by every bus.

Policy (see `DeliveryPolicy`):
- a record larger than the bus's record limit goes to the dead-letter topic undecoded (stage
  `size`), and a record whose bytes do not decode goes there too (stage `decode`);
- a tombstone (`None` value) is skipped;
- `RetryLater` from the handler retries the whole batch with capped backoff until it succeeds or
  `abort()` says the consumer is stopping or losing the partition (then nothing is committed and
  the batch is read again by whoever owns the partition next);
- any other exception retries the batch `handler_attempts` times, then each record alone as many
  times; a record that still fails is dead-lettered with its error (stage `handler`).
`deliver` returns True when the batch may be committed.

The dead-letter path cannot fail: what is written is a bounded copy (the value truncated, the
source's headers kept only while small) keyed by the source position, so a compacted dead-letter
topic keeps one copy however often a rebuild meets the record; if even that cannot be written,
the record is logged and skipped. Rebuilds use the same path (`screen`) as live delivery.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple, TypeVar

import structlog

from shared.bus.records import (
    Decode,
    DeliveryPolicy,
    Handler,
    Headers,
    Outgoing,
    RawRecord,
    Record,
    RetryLater,
    TopicPartition,
    with_value,
)

T = TypeVar("T")

DeadLetter = Callable[[RawRecord, str, str], Awaitable[None]]
"""Send (record, stage, error) to the dead-letter topic and wait for the acknowledgement."""

HEADER_TOPIC = "shoal.source.topic"
HEADER_PARTITION = "shoal.source.partition"
HEADER_OFFSET = "shoal.source.offset"
HEADER_SIZE = "shoal.source.size"
HEADER_KEY = "shoal.source.key"
HEADER_STAGE = "shoal.error.stage"
HEADER_ERROR = "shoal.error"

DEAD_LETTER_VALUE_BYTES = 64 * 1024
"""How much of a rejected record's value the dead-letter copy keeps."""
_SOURCE_HEADERS_BYTES = 8 * 1024
_ERROR_BYTES = 4096

_log = structlog.get_logger()


class Rejected(NamedTuple):
    """Why a record cannot be handed to a handler: the stage and the error."""

    stage: str
    error: str


def screen(raw: RawRecord, decode: Decode[T], max_bytes: int | None) -> T | Rejected:
    """The decoded value of ``raw``, or why it is rejected (too large, or undecodable)."""
    value = raw.value or b""
    if max_bytes is not None and len(value) > max_bytes:
        return Rejected("size", f"record of {len(value)} bytes exceeds {max_bytes} bytes")
    try:
        return decode(value)
    except Exception as exc:  # any decoder failure makes the record poison, not the consumer
        return Rejected("decode", repr(exc))


def dead_letter_headers(record: RawRecord, stage: str, error: str) -> Headers:
    """The source's headers (while small) plus where the record came from, its size and why
    it was rejected."""
    kept: list[tuple[str, bytes]] = []
    budget = _SOURCE_HEADERS_BYTES
    for name, value in record.headers:
        budget -= len(name) + len(value)
        if budget < 0:
            break
        kept.append((name, value))
    return (
        *kept,
        (HEADER_TOPIC, record.topic.encode()),
        (HEADER_PARTITION, str(record.partition).encode()),
        (HEADER_OFFSET, str(record.offset).encode()),
        (HEADER_SIZE, str(len(record.value or b"")).encode()),
        (HEADER_KEY, (record.key or b"")[:1024]),
        (HEADER_STAGE, stage.encode()),
        (HEADER_ERROR, error.encode()[:_ERROR_BYTES]),
    )


def dead_letter_copy(
    record: RawRecord, stage: str, error: str, *, keep_value: bool = True
) -> Outgoing:
    """What goes to the dead-letter topic: a truncated copy keyed by the source position."""
    value = record.value[:DEAD_LETTER_VALUE_BYTES] if keep_value and record.value else None
    key = f"{record.topic}/{record.partition}/{record.offset}".encode()
    return Outgoing(value=value, key=key, headers=dead_letter_headers(record, stage, error))


async def send_dead_letter(
    produce: Callable[[Outgoing], Awaitable[object]], raw: RawRecord, stage: str, error: str
) -> None:
    """Write the dead-letter copy of ``raw``; never raises. If the copy cannot be written, a
    copy without the value is tried, then the record is logged and skipped."""
    failure = ""
    for keep_value in (True, False):
        try:
            await produce(dead_letter_copy(raw, stage, error, keep_value=keep_value))
            return
        except Exception as exc:  # the dead-letter path must not stall the partition
            failure = repr(exc)
    _log.error(
        "dead letter not written; record skipped",
        **_where(raw),
        size=len(raw.value or b""),
        stage=stage,
        error=error,
        dead_letter_error=failure,
    )


def commit_offsets(batch: Sequence[RawRecord]) -> dict[TopicPartition, int]:
    """Per partition, the offset to commit after `batch`: its last offset + 1."""
    offsets: dict[TopicPartition, int] = {}
    for record in batch:
        tp = record.topic_partition
        offsets[tp] = max(offsets.get(tp, 0), record.offset + 1)
    return offsets


async def deliver(
    batch: Sequence[RawRecord],
    *,
    decode: Decode[T],
    handler: Handler[T],
    dead_letter: DeadLetter,
    policy: DeliveryPolicy,
    abort: Callable[[], bool],
    max_bytes: int | None = None,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> bool:
    """Process `batch`; True if every record was handled or dead-lettered (commit it)."""
    decoded: list[tuple[RawRecord, Record[T]]] = []
    for raw in batch:
        if raw.value is None:
            continue
        value = screen(raw, decode, max_bytes)
        if isinstance(value, Rejected):
            await reject(raw, value, dead_letter)
            continue
        decoded.append((raw, with_value(raw, value)))
    if not decoded:
        return True
    outcome = await _attempt(handler, [rec for _, rec in decoded], policy, abort, sleep)
    if outcome is None or isinstance(outcome, _Aborted):
        return outcome is None
    if len(decoded) == 1:
        await _dead_letter_failed(decoded[0][0], outcome, dead_letter)
        return True
    _log.warning("batch keeps failing; isolating records", size=len(decoded), error=outcome)
    for raw, rec in decoded:
        outcome = await _attempt(handler, [rec], policy, abort, sleep)
        if isinstance(outcome, _Aborted):
            return False
        if outcome is not None:
            await _dead_letter_failed(raw, outcome, dead_letter)
    return True


async def reject(raw: RawRecord, rejected: Rejected, dead_letter: DeadLetter) -> None:
    """Log a rejected record and dead-letter it (rebuilds and live delivery alike)."""
    _log.warning(
        "record rejected; dead-lettered",
        **_where(raw),
        size=len(raw.value or b""),
        stage=rejected.stage,
        error=rejected.error,
    )
    await dead_letter(raw, rejected.stage, rejected.error)


class _Aborted:
    """The consumer is stopping or losing the partition: give up without committing."""


_ABORTED = _Aborted()


async def _dead_letter_failed(raw: RawRecord, error: str, dead_letter: DeadLetter) -> None:
    _log.error("record keeps failing; dead-lettered", **_where(raw), error=error)
    await dead_letter(raw, "handler", error)


async def _attempt(
    handler: Handler[T],
    records: list[Record[T]],
    policy: DeliveryPolicy,
    abort: Callable[[], bool],
    sleep: Callable[[float], Awaitable[Any]],
) -> str | _Aborted | None:
    """Call the handler with retries; None on success, `_ABORTED`, or the last error."""
    attempt = 0
    while True:
        try:
            await handler(records)
            return None
        except RetryLater as exc:
            error = repr(exc)
            transient = True
        except Exception as exc:
            error = repr(exc)
            transient = False
        attempt += 1
        if not transient and attempt >= policy.handler_attempts:
            return error
        if abort():
            return _ABORTED
        delay = min(policy.retry_backoff_s * 2 ** (attempt - 1), policy.retry_backoff_max_s)
        _log.warning("handler failed; retrying", attempt=attempt, delay_s=delay, error=error)
        await sleep(delay)
        if abort():
            return _ABORTED


def _where(raw: RawRecord) -> dict[str, object]:
    return {"topic": raw.topic, "partition": raw.partition, "offset": raw.offset}
