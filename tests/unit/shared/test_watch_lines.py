"""How a watch stream is cut into lines: as chunks arrive, whatever their boundaries, with a
line limit and an inactivity timeout."""

from __future__ import annotations

import asyncio

import pytest

from shared.kube import watchlines


class Chunks:
    """A stream that returns the given chunks, then end of stream (or silence)."""

    def __init__(self, chunks: list[bytes], *, silent_at_end: bool = False) -> None:
        self.chunks = list(chunks)
        self.silent_at_end = silent_at_end

    async def readany(self) -> bytes:
        if self.chunks:
            return self.chunks.pop(0)
        if self.silent_at_end:
            await asyncio.sleep(3600)
        return b""


async def collect(stream: Chunks, timeout: float = 5.0) -> list[bytes]:
    return [line async for line in watchlines.lines(stream, timeout)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b"a\nb\n"], [b"a", b"b"]),
        ([b"a", b"bc\nd", b"e\n"], [b"abc", b"de"]),
        ([b"a\n", b"", b"x\n"], [b"a"]),
        ([b"a\nlast"], [b"a", b"last"]),
        ([b"\n\na\n"], [b"", b"", b"a"]),
    ],
    ids=[
        "many-lines-one-chunk",
        "lines-across-chunks",
        "end-of-stream",
        "last-line-unended",
        "empty-lines-kept",
    ],
)
async def test_lines_whatever_the_chunks(chunks: list[bytes], lines: list[bytes]) -> None:
    assert await collect(Chunks(chunks)) == lines


async def test_a_line_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watchlines, "MAX_WATCH_LINE", 8)
    with pytest.raises(ValueError, match="longer than"):
        await collect(Chunks([b"12345", b"67890", b"\n"]))
    with pytest.raises(ValueError, match="longer than"):
        await collect(Chunks([b"1234567890\n"]))


async def test_a_silent_stream_ends() -> None:
    assert await collect(Chunks([b"a\n"], silent_at_end=True), timeout=0.05) == [b"a"]
