"""How a watch stream is read: a chunk at a time, cut into lines, each line one event.

Reading line by line with a deadline per line (``asyncio.wait_for`` around ``readline``) made a
task per event; here one timer covers each chunk, which in a burst holds many events. The line
limit is aiohttp's ``readline`` limit on the client's session, so an oversized event still
raises ValueError (the watcher re-lists).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import msgspec

READ_BUFSIZE = 2**21  # the aiohttp session's read buffer (``load_api_client``)
# aiohttp's readline refuses a line over twice the session's read buffer; a watch keeps that.
MAX_WATCH_LINE = 2 * READ_BUFSIZE


class WatchLine(msgspec.Struct):
    """One line of a watch stream, its object left as JSON."""

    type: str = ""
    object: msgspec.Raw = msgspec.Raw(b"{}")


watch_line_decoder = msgspec.json.Decoder(WatchLine)


async def lines(content: aiohttp.StreamReader, inactivity_timeout: float) -> AsyncIterator[bytes]:
    """The lines of a stream as they arrive (a last line without newline included); stops
    when the stream ends or nothing arrives for ``inactivity_timeout``."""
    partial: list[bytes] = []
    size = 0
    while True:
        try:
            async with asyncio.timeout(inactivity_timeout):
                chunk = await content.readany()
        except TimeoutError:
            return
        if not chunk:
            if partial:
                yield b"".join(partial)
            return
        end = chunk.rfind(b"\n")
        if end < 0:
            partial.append(chunk)
            size += len(chunk)
            if size > MAX_WATCH_LINE:
                raise ValueError(f"watch line longer than {MAX_WATCH_LINE} bytes")
            continue
        if partial:
            partial.append(chunk[: end + 1])
            head = b"".join(partial)
        else:
            head = chunk[: end + 1]
        for line in head.split(b"\n")[:-1]:
            if len(line) > MAX_WATCH_LINE:
                raise ValueError(f"watch line longer than {MAX_WATCH_LINE} bytes")
            yield line
        rest = chunk[end + 1 :]
        partial = [rest] if rest else []
        size = len(rest)
