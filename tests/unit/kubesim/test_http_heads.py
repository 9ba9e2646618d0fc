"""Reading a request's head: the request line, headers (lower-case names, repeats joined),
the body's framing, keep-alive by version and ``Connection``, and what is refused."""

from __future__ import annotations

import pytest

from services.kubesim.http_messages import BadRequest, parse_head


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"GET /api HTTP/1.1\r\nHost: x", ("GET", "/api", 0, False, False, True)),
        (b"GET /api HTTP/1.1\r\nConnection: Close", ("GET", "/api", 0, False, False, False)),
        (b"GET /api HTTP/1.0", ("GET", "/api", 0, False, False, False)),
        (b"GET /api HTTP/1.0\r\nConnection: keep-alive", ("GET", "/api", 0, False, False, True)),
        (
            b"POST /p HTTP/1.1\r\nContent-Length: 12\r\nExpect: 100-Continue",
            ("POST", "/p", 12, False, True, True),
        ),
        (
            b"POST /p HTTP/1.1\r\nTransfer-Encoding: gzip, chunked",
            ("POST", "/p", 0, True, False, True),
        ),
    ],
    ids=["http-1.1", "close", "http-1.0", "http-1.0-keep-alive", "length-and-expect", "chunked"],
)
def test_parse_head(raw: bytes, expected: tuple[str, str, int, bool, bool, bool]) -> None:
    head = parse_head(raw)
    got = (head.method, head.target, head.length, head.chunked, head.expects_continue)
    assert (*got, head.keep_alive) == expected


def test_headers_are_case_insensitive_and_repeats_joined() -> None:
    head = parse_head(b"GET / HTTP/1.1\r\nAccept: a\r\nACCEPT:  b \r\nX-Empty:")
    assert head.headers.get("Accept") == "a, b"
    assert head.headers.get("x-empty") == ""
    assert head.headers.get("Missing", "d") == "d"


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"GET /", 400),
        (b"GET / HTTP/2.0", 400),
        (b"GET  / HTTP/1.1", 400),
        (b"GET / HTTP/1.1\r\n folded: x", 400),
        (b"GET / HTTP/1.1\r\nno-colon", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 1e3", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip", 501),
        (b"POST / HTTP/1.1\r\nContent-Length: 999999999999", 413),
    ],
    ids=[
        "no-version",
        "http-2",
        "double-space",
        "folded-line",
        "no-colon",
        "bad-length",
        "not-chunked",
        "too-large",
    ],
)
def test_refused(raw: bytes, status: int) -> None:
    with pytest.raises(BadRequest) as info:
        parse_head(raw)
    assert info.value.status == status
