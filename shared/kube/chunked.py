"""HTTP/1.1 chunked transfer coding, read from a buffer that grows as bytes arrive: the lean
client's responses (`shared.kube.transport`) and kubesim's requests share one reader.

As strict as Go's ``net/http/internal.chunkedReader``: a size line of at most 4,096 bytes
(``maxLineLength``) holding 1 to 16 hex digits, a CRLF right after each chunk's data
("malformed chunked encoding"); and, with ``max_size``, a chunk whose declared size would take
the body past the limit is refused before any of its data is read.
"""

from __future__ import annotations

import re

MAX_LINE = 4096  # Go's net/http/internal maxLineLength
_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")


class ChunkedError(ValueError):
    """A malformed chunk size, or (``too_large``) a body over the reader's limit."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


class ChunkedBody:
    """One chunked body at a time: ``read`` consumes whole chunks from the buffer and returns
    the body once the last chunk (and any trailer lines) is in; ``None`` while more is needed."""

    def __init__(self, *, max_size: int | None = None) -> None:
        self._max_size = max_size
        self._chunks: list[bytes] = []
        self._size = 0

    def reset(self) -> None:
        self._chunks = []
        self._size = 0

    def _room(self) -> int | None:
        return None if self._max_size is None else self._max_size - self._size

    def read(self, buffer: bytearray) -> bytes | None:
        while True:
            end = buffer.find(b"\r\n", 0, MAX_LINE + 2)
            if end < 0:
                if len(buffer) > MAX_LINE:
                    raise ChunkedError("chunk size line too long")
                return None
            size_field = bytes(buffer[:end]).split(b";", 1)[0].rstrip(b" \t")
            if not _SIZE.fullmatch(size_field):
                raise ChunkedError("invalid chunk size")
            size = int(size_field, 16)
            room = self._room()
            if size == 0:  # the last chunk, optional trailer lines, an empty line
                return self._last(buffer, end, room)
            if room is not None and size > room:
                raise ChunkedError("body too large", too_large=True)
            if len(buffer) < end + 2 + size + 2:
                return None
            if buffer[end + 2 + size : end + 4 + size] != b"\r\n":
                raise ChunkedError("malformed chunked encoding")
            self._chunks.append(bytes(buffer[end + 2 : end + 2 + size]))
            self._size += size
            del buffer[: end + 2 + size + 2]

    def _last(self, buffer: bytearray, end: int, room: int | None) -> bytes | None:
        if buffer[end + 2 : end + 4] == b"\r\n":
            done = end + 4
        else:
            trailers = buffer.find(b"\r\n\r\n", end + 2)
            if trailers < 0:
                if room is not None and len(buffer) - end > room:
                    raise ChunkedError("body too large", too_large=True)  # trailers count
                return None
            done = trailers + 4
        del buffer[:done]
        body = b"".join(self._chunks)
        self.reset()
        return body
