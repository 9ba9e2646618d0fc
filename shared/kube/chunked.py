"""HTTP/1.1 chunked transfer coding, read from a buffer that grows as bytes arrive: the lean
client's responses (`shared.kube.transport`) and kubesim's requests share one reader."""

from __future__ import annotations


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

    def read(self, buffer: bytearray) -> bytes | None:
        while True:
            end = buffer.find(b"\r\n")
            if end < 0:
                return None
            try:
                size = int(bytes(buffer[:end]).split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise ChunkedError("invalid chunk size") from None
            if size == 0:  # the last chunk, optional trailer lines, an empty line
                if buffer[end + 2 : end + 4] == b"\r\n":
                    done = end + 4
                else:
                    trailers = buffer.find(b"\r\n\r\n", end + 2)
                    if trailers < 0:
                        return None
                    done = trailers + 4
                del buffer[:done]
                body = b"".join(self._chunks)
                self.reset()
                return body
            if len(buffer) < end + 2 + size + 2:
                return None
            self._chunks.append(bytes(buffer[end + 2 : end + 2 + size]))
            self._size += size
            del buffer[: end + 2 + size + 2]
            if self._max_size is not None and self._size > self._max_size:
                raise ChunkedError("body too large", too_large=True)
