"""How the journal's records sit on disk, and how a damaged file is read back.

A journal file starts with ``FILE_HEADER``; then each record is one frame::

    magic (2 bytes) | length (u32) | crc32c(magic + length) (u32) | crc32c(payload) (u32) | payload

The header carries its own checksum, so a wrong length is told from a torn write: a frame whose
header checks and whose payload runs past the end of the file is the torn last write of a
killed process (dropped, as an API server drops an unfinished WAL entry); anything else that
does not check is damage, reported with its byte range. After a damaged header the reader
resynchronises on the next offset that starts a frame whose header and payload both check.

CRC32C (Castagnoli, as etcd's WAL and Kafka's record batches use) comes from ``google-crc32c``,
Google's C implementation with hardware instructions where the CPU has them.

The format before this one, ``journal.jsonl`` (one JSON line per record, no checksum), is read
by ``scan_lines`` so that an old data directory is migrated on its first start.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import google_crc32c

FILE_HEADER = b"kubesim journal 2\n"
MAGIC = b"\xc5\x4a"
_HEADER = struct.Struct(">2sIII")
HEADER_SIZE = _HEADER.size


def crc32c(data: bytes) -> int:
    return int(google_crc32c.value(data))


def frame(payload: bytes) -> bytes:
    head = MAGIC + len(payload).to_bytes(4, "big")
    return _HEADER.pack(MAGIC, len(payload), crc32c(head), crc32c(payload)) + payload


@dataclass(frozen=True, slots=True)
class Frame:
    """A record whose checksums hold: ``payload`` was read from ``data[offset:end]``."""

    offset: int
    end: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class Damage:
    """Bytes ``data[offset:end]`` that are no record; ``reason`` says why."""

    offset: int
    end: int
    reason: str


@dataclass(frozen=True, slots=True)
class Scan:
    """A journal file read back: its frames and damage in file order, and where a torn last
    write starts (None: the file ends on a whole frame)."""

    items: list[Frame | Damage]
    torn_at: int | None


def _header_ok(data: bytes, pos: int) -> int | None:
    """The payload length of a frame whose header checks at ``pos``, else None."""
    if data[pos : pos + 2] != MAGIC or len(data) - pos < HEADER_SIZE:
        return None
    _, length, head_crc, _ = _HEADER.unpack_from(data, pos)
    return length if crc32c(data[pos : pos + 6]) == head_crc else None


def _resync(data: bytes, pos: int) -> int:
    """The next offset from ``pos`` where a checking frame (or a torn last one) starts."""
    while (pos := data.find(MAGIC, pos)) >= 0:
        length = _header_ok(data, pos)
        if length is not None:
            start = pos + HEADER_SIZE
            end = start + length
            if end > len(data):
                return pos
            if crc32c(data[start:end]) == _HEADER.unpack_from(data, pos)[3]:
                return pos
        elif len(data) - pos < HEADER_SIZE:
            return pos  # a torn header at the very end
        pos += 1
    return len(data)


def scan_frames(data: bytes) -> Scan:
    """Read a journal file that starts with ``FILE_HEADER``."""
    items: list[Frame | Damage] = []
    pos, size = len(FILE_HEADER), len(data)
    if not data.startswith(FILE_HEADER):
        pos = _resync(data, 0)
        items.append(Damage(0, pos, "the file does not start with the journal's header"))
    while pos < size:
        if size - pos < HEADER_SIZE:
            rest = data[pos : pos + len(MAGIC)]
            if MAGIC.startswith(rest):
                return Scan(items, pos)
            items.append(Damage(pos, size, "bytes after the last record that start no record"))
            break
        length = _header_ok(data, pos)
        if length is None:
            resumed = _resync(data, pos + 1)
            items.append(Damage(pos, resumed, "no record header here (bad magic or checksum)"))
            pos = resumed
            continue
        start = pos + HEADER_SIZE
        end = start + length
        if end > size:
            return Scan(items, pos)
        payload = data[start:end]
        if crc32c(payload) != _HEADER.unpack_from(data, pos)[3]:
            items.append(Damage(pos, end, "the record's checksum does not match its bytes"))
        else:
            items.append(Frame(pos, end, payload))
        pos = end
    return Scan(items, None)


def scan_lines(data: bytes) -> Scan:
    """Read an old-format ``journal.jsonl``: each line a frame (whether it decodes is for the
    caller to judge); a last line without its newline is a torn write."""
    items: list[Frame | Damage] = []
    pos = 0
    while pos < len(data):
        newline = data.find(b"\n", pos)
        if newline < 0:
            return Scan(items, pos)
        items.append(Frame(pos, newline + 1, data[pos:newline]))
        pos = newline + 1
    return Scan(items, None)
