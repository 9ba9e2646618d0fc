"""The log generation: how a service notices that the broker lost its log, and when the state
topics have been filled again.

The embedded broker keeps everything in memory, and even a real cluster can lose a topic. Such a
loss is silent to a Kafka client: topics come back empty (or auto-created), committed offsets are
gone, and a reader parked past the end waits forever. So the log carries its own identity: the
first record of the one-partition ``bus.generation`` topic names the generation (a random id).
Every service reads it at start and re-reads it every few seconds; a different first record, or
none, means the log was lost. The first service to find none writes a new one; the first record
wins, so every service agrees on the new generation. A single topic deleted and created again is
found by its readers (``Bus.take_truncated``); the service that finds it marks the generation
``lost``, and the first ``started`` record after that mark is the new generation.

After a loss, consumers must not rebuild from half-filled state topics (a job seen without its
pods would get its pods again): the watcher marks the generation ``resynced`` once every resource
was listed and published, and the others wait for that mark before they rebuild.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from typing import Literal

import msgspec
import structlog

from shared.bus.protocol import Bus

KEY = b"generation"
_READ_TIMEOUT_S = 10.0
_log = structlog.get_logger()


def generation_group(base: str, generation: str) -> str:
    """The consumer group ``base`` of one log generation: ``<base>.<generation>``.

    A group per generation starts empty on the new log. Kept under one name, a group on the
    embedded broker stalls after a loss: the previous body's consumer rejoins the restarted
    broker's group before the loss is noticed, Tansu numbers a new group's first generation 0,
    aiokafka sends no LeaveGroup from generation 0, so the broker keeps that member for its
    whole session timeout, and the next body's member joins, waits, and joins again behind it
    (23 s from the broker's return to the binder's assignment, measured)."""
    return f"{base}.{generation[:12]}" if generation else base


class GenerationMark(msgspec.Struct, frozen=True, kw_only=True):
    """One record of the generation topic."""

    mark: Literal["started", "resynced", "lost"]
    generation: str
    producer: str = ""


_decoder = msgspec.json.Decoder(GenerationMark)


class GenerationLog:
    """Reads and writes the generation topic of one bus."""

    def __init__(self, bus: Bus, topic: str, *, producer: str) -> None:
        self._bus = bus
        self._topic = topic
        self._producer = producer

    async def read(self) -> tuple[str | None, set[str]]:
        """The current generation (its first record; None if the log has none) and the
        generations marked resynced."""
        snapshot = await self._bus.rebuild(
            topics=[self._topic], decode=_decoder.decode, keep_reader=True
        )
        marks = sorted(
            (r for r in snapshot.records if r.key == KEY), key=lambda r: (r.offset, r.partition)
        )
        current: str | None = None
        for record in marks:
            mark = record.value
            if mark.mark == "started" and current is None:
                current = mark.generation
            elif mark.mark == "lost" and mark.generation == current:
                current = None  # the next "started" is the new generation
        resynced = {r.value.generation for r in marks if r.value.mark == "resynced"}
        return current, resynced

    async def join(self) -> str:
        """The current generation, starting one if the log has none (retried while the broker
        is away)."""
        delay = 0.1
        while True:
            try:
                generation = await asyncio.wait_for(self._join_once(), _READ_TIMEOUT_S)
                if generation is not None:
                    return generation
            except Exception as exc:  # the broker is away or restarting: try again
                _log.warning("cannot read the log generation yet", error=repr(exc))
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    async def _join_once(self) -> str | None:
        await self._bus.create_topics([self._topic], partitions=1)
        generation, _ = await self.read()
        if generation is None:
            await self._write("started", uuid.uuid4().hex)
            generation, _ = await self.read()
        return generation

    async def lost(self, generation: str, *, period: float, confirmations: int = 2) -> None:
        """Return once the log's generation is no longer ``generation`` (seen ``confirmations``
        times in a row, so one odd read never costs every service a rebuild)."""
        seen = 0
        declare = False
        # What readers found before this generation began is the previous generation's loss
        # (its readers ran on until they were stopped), already handled: not this one's.
        self._bus.take_truncated()
        while True:
            await asyncio.sleep(period if seen == 0 else min(period, 0.5))
            truncated = self._bus.take_truncated()
            if truncated:
                _log.warning(
                    "a topic was deleted under us; declaring the log lost",
                    generation=generation,
                    partitions=sorted(f"{tp.topic}/{tp.partition}" for tp in truncated),
                )
                declare = True
            if declare:
                with contextlib.suppress(Exception):  # unreachable: the next round retries
                    await self._write("lost", generation)
                    declare = False
            try:
                current, _ = await asyncio.wait_for(self.read(), _READ_TIMEOUT_S)
            except Exception as exc:  # unreachable is not lost: wait until we can tell
                _log.debug("cannot read the log generation", error=repr(exc))
                continue
            seen = seen + 1 if current != generation else 0
            if seen >= confirmations:
                _log.warning("the broker lost its log", generation=generation, now=current)
                return

    async def mark_resynced(self, generation: str) -> None:
        """Say that every state topic holds the API server's objects in ``generation``."""
        await self._write("resynced", generation)

    async def wait_resynced(self, generation: str, *, timeout: float, period: float) -> bool:
        """Wait until ``generation`` is marked resynced; False after ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                current, resynced = await asyncio.wait_for(self.read(), _READ_TIMEOUT_S)
                if generation in resynced or current != generation:
                    return generation in resynced
            await asyncio.sleep(period)
        return False

    async def _write(self, mark: Literal["started", "resynced", "lost"], generation: str) -> None:
        record = GenerationMark(mark=mark, generation=generation, producer=self._producer)
        await self._bus.produce(self._topic, msgspec.json.encode(record), key=KEY)
