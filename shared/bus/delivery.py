"""Handing a fetched batch to a handler: decode, dead-letter, retry. Shared by every bus.

Policy (see `DeliveryPolicy`):
- a record whose bytes do not decode goes to the dead-letter topic at once (stage `decode`);
- a tombstone (`None` value) is skipped;
- `RetryLater` from the handler retries the whole batch with capped backoff until it succeeds or
  `abort()` says the consumer is stopping or losing the partition (then nothing is committed and
  the batch is read again by whoever owns the partition next);
- any other exception retries the batch `handler_attempts` times, then each record alone as many
  times; a record that still fails is dead-lettered with its error (stage `handler`).
`deliver` returns True when the batch may be committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import structlog

from shared.bus.records import (
    Decode,
    DeliveryPolicy,
    Handler,
    Headers,
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
HEADER_STAGE = "shoal.error.stage"
HEADER_ERROR = "shoal.error"

_log = structlog.get_logger()


def dead_letter_headers(record: RawRecord, stage: str, error: str) -> Headers:
    """The original headers plus where the record came from and why it failed."""
    return (
        *record.headers,
        (HEADER_TOPIC, record.topic.encode()),
        (HEADER_PARTITION, str(record.partition).encode()),
        (HEADER_OFFSET, str(record.offset).encode()),
        (HEADER_STAGE, stage.encode()),
        (HEADER_ERROR, error.encode()[:4096]),
    )


async def skip_record(raw: RawRecord, stage: str, error: str) -> None:
    """The dead-letter stand-in of readers without a group (rebuild, follow): they commit
    nothing and re-read on every start, so dead-lettering would repeat; log and move on."""
    _log.error("record skipped", **_where(raw), stage=stage, error=error)


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
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> bool:
    """Process `batch`; True if every record was handled or dead-lettered (commit it)."""
    decoded: list[tuple[RawRecord, Record[T]]] = []
    for raw in batch:
        if raw.value is None:
            continue
        try:
            value = decode(raw.value)
        except Exception as exc:  # any decoder failure makes the record poison, not the consumer
            _log.warning("undecodable record dead-lettered", **_where(raw), error=repr(exc))
            await dead_letter(raw, "decode", repr(exc))
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
