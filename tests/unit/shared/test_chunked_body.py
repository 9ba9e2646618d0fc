"""The chunked-body reader shared by the lean HTTP client and kubesim's server."""

from __future__ import annotations

import pytest

from shared.kube.chunked import ChunkedBody, ChunkedError


@pytest.mark.parametrize(
    ("arrivals", "body", "left"),
    [
        ([b"5\r\nhello\r\n0\r\n\r\n"], b"hello", b""),
        ([b"5\r\nhel", b"lo\r\n6;ext=1\r\n world\r\n", b"0\r\n\r\nNEXT"], b"hello world", b"NEXT"),
        ([b"3\r\nabc\r\n0\r\nX-Trailer: 1\r\n", b"\r\n"], b"abc", b""),
        ([b"0\r\n\r\n"], b"", b""),
    ],
    ids=["whole", "split-with-extension", "trailers", "empty"],
)
def test_reads_a_body_as_it_arrives(arrivals: list[bytes], body: bytes, left: bytes) -> None:
    reader = ChunkedBody()
    buffer = bytearray()
    got = None
    for i, data in enumerate(arrivals):
        buffer += data
        got = reader.read(buffer)
        if i < len(arrivals) - 1:
            assert got is None, "the body is not complete yet"
    assert got == body
    assert bytes(buffer) == left


@pytest.mark.parametrize(
    ("data", "max_size", "too_large"),
    [
        (b"zz\r\n", None, False),
        (b"+5\r\nhello\r\n", None, False),
        (b"1_0\r\n", None, False),
        (b"10000000000000000\r\n", None, False),
        (b"5\r\nhelloXY0\r\n\r\n", None, False),
        (b"5" + b" " * 5000, None, False),
        (b"4\r\nabcd\r\n4\r\nefgh\r\n", 6, True),
        # Refused on its size line: not one byte of the 2^63 - 1 declared is waited for.
        (b"7fffffffffffffff\r\n", 1024, True),
        (b"0\r\nX-Trailer: " + b"x" * 100, 64, True),
    ],
    ids=[
        "bad-size",
        "signed-size",
        "underscore-size",
        "size-over-16-digits",
        "garbage-instead-of-crlf",
        "size-line-too-long",
        "over-limit",
        "declared-over-limit",
        "trailers-over-limit",
    ],
)
def test_refuses(data: bytes, max_size: int | None, too_large: bool) -> None:
    with pytest.raises(ChunkedError) as error:
        ChunkedBody(max_size=max_size).read(bytearray(data))
    assert error.value.too_large is too_large


def test_reset_between_bodies() -> None:
    reader = ChunkedBody()
    buffer = bytearray(b"3\r\nabc\r\n")
    assert reader.read(buffer) is None
    reader.reset()
    buffer = bytearray(b"2\r\nxy\r\n0\r\n\r\n")
    assert reader.read(buffer) == b"xy"
