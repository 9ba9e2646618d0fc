"""The exported log: Kafka records as JSON lines, so a cycle can be replayed without Kafka.

One line per record: ``{"topic", "partition", "offset", "key", "timestamp_ms", "value"}`` with
the record's value embedded as the JSON it is on the topic (every Shoal event is JSON). Loading
gives back the same ``RawRecord``s a rebuild reads from Kafka, so ``shoal replay --file`` runs the
code path ``--bootstrap`` does. Records whose value is not JSON were skipped by the scheduler too
(dead-lettered), and are not exported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import msgspec

from shared.bus import RawRecord, Record
from shared.errors import UserError


class LoggedRecord(msgspec.Struct, kw_only=True):
    topic: str
    partition: int
    offset: int
    key: str | None = None
    timestamp_ms: int = 0
    value: msgspec.Raw


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(LoggedRecord)


def _is_json(value: bytes) -> bool:
    try:
        msgspec.json.decode(value)
    except msgspec.DecodeError:
        return False
    return True


def write_records(out: IO[bytes], records: Iterable[RawRecord]) -> tuple[int, int]:
    """Write each record as one line; returns (written, skipped: tombstones and non-JSON)."""
    written = skipped = 0
    for record in records:
        if record.value is None or not _is_json(record.value):
            skipped += 1
            continue
        line = LoggedRecord(
            topic=record.topic,
            partition=record.partition,
            offset=record.offset,
            key=None if record.key is None else record.key.decode("utf-8", "replace"),
            timestamp_ms=record.timestamp_ms,
            value=msgspec.Raw(record.value),
        )
        out.write(_encoder.encode(line) + b"\n")
        written += 1
    return written, skipped


def read_records(path: Path) -> list[RawRecord]:
    """Every record of an exported file, in file order; a malformed line is a UserError."""
    try:
        with path.open("rb") as lines:
            return list(_parse(lines, path))
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def _parse(lines: Iterable[bytes], path: Path) -> Iterator[RawRecord]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            logged = _decoder.decode(line)
        except msgspec.DecodeError as exc:
            raise UserError(f"{path}:{number}: not an exported record: {exc}") from None
        yield Record(
            topic=logged.topic,
            partition=logged.partition,
            offset=logged.offset,
            key=None if logged.key is None else logged.key.encode(),
            value=bytes(logged.value),
            timestamp_ms=logged.timestamp_ms,
        )
