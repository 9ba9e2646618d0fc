"""The first list of a log generation is read back: what the broker acknowledged but does not
hold is published again before the state topics are marked resynced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

import msgspec
import pytest

from services.watcher.publishing import Publisher
from services.watcher.service import (
    VERIFY_ATTEMPTS,
    Metrics,
    ResourceWatch,
    StateReader,
    WatcherSettings,
    parse_resource,
)
from shared.bus import MemoryBus, Outgoing, Position
from shared.config import KafkaSettings, ServiceSettings
from shared.events import Envelope, ObjectEvent, state_decoder
from shared.service import KubeSettings, ServiceShell
from shared.topics import Topics

TOPICS = Topics()
TOPIC = TOPICS.state("ConfigMap")
LIMIT = 1 << 20


class ForgetfulBus(MemoryBus):
    """Acknowledges every record but keeps none of the first ``forget`` produce calls' records
    named in ``names`` (a broker that lost what it had just acknowledged)."""

    def __init__(self, names: set[str], forget: int) -> None:
        super().__init__(partitions=2)
        self.names = names
        self.forget = forget

    async def produce_many(self, topic: str, records: Iterable[Outgoing]) -> list[Position]:
        records = list(records)
        if self.forget > 0:
            self.forget -= 1
            kept = [r for r in records if _name(r.value) not in self.names]
            await super().produce_many(topic, kept)
            return [Position(topic, 0, 0) for _ in records]
        return await super().produce_many(topic, records)


def _name(value: bytes | None) -> str:
    event = state_decoder.decode(value or b"")
    if not isinstance(event, ObjectEvent):
        return ""
    return str(msgspec.json.decode(event.object)["metadata"]["name"])


class ListingKube:
    def __init__(self, names: list[str], padding: dict[str, int] | None = None) -> None:
        self.names = names
        self.padding = padding or {}

    async def list_all(self, rt: Any, **kwargs: Any) -> tuple[list[dict[str, Any]], str]:
        items = [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "ns", "resourceVersion": str(i + 1)},
                "data": {"padding": "x" * self.padding.get(name, 0)},
            }
            for i, name in enumerate(self.names)
        ]
        return items, str(len(items))

    async def watch_raw(self, rt: Any, **kwargs: Any) -> AsyncIterator[tuple[str, msgspec.Raw]]:
        await asyncio.sleep(3600)
        yield "BOOKMARK", msgspec.Raw(b"{}")


async def _first_list(
    bus: MemoryBus,
    names: list[str],
    *,
    padding: dict[str, int] | None = None,
    held: Any = None,
) -> list[str]:
    shell = ServiceShell(
        service="watcher",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory"),
        kube=KubeSettings(),
    )
    await bus.create_topics([TOPIC])

    async def ignore(event: Envelope, size: int) -> None:
        return None

    publisher = Publisher(bus, TOPIC, max_record_bytes=LIMIT, on_too_large=ignore)
    watch = ResourceWatch(
        rt=parse_resource("v1/ConfigMap"),
        kube=ListingKube(names, padding),  # type: ignore[arg-type]
        publisher=publisher,
        settings=WatcherSettings(),
        metrics=Metrics(shell),
        producer="watcher",
        held=held or StateReader(bus, TOPICS),
    )
    running = asyncio.create_task(publisher.run())
    try:
        await asyncio.wait_for(watch.relist(), 5)
    finally:
        running.cancel()
    assert watch.synced.is_set()
    return [name for r in bus.records(TOPIC) if (name := _name(r.value))]


@pytest.mark.parametrize(
    ("forgotten", "forget"),
    [(set(), 0), ({"b"}, 1), ({"a", "c"}, 2)],
    ids=["all-held-nothing-again", "one-lost-published-again", "lost-twice-published-again"],
)
async def test_what_the_broker_does_not_hold_is_published_again(
    forgotten: set[str], forget: int
) -> None:
    bus = ForgetfulBus(forgotten, forget)
    held = await _first_list(bus, ["a", "b", "c"])
    assert sorted(held) == ["a", "b", "c"], "each listed object held once: none lost, none again"


async def test_an_object_too_large_to_publish_is_not_looked_for() -> None:
    # It was skipped (with an Event), not lost: looking for it again would never find it.
    bus = ForgetfulBus(set(), 0)
    held = await _first_list(bus, ["a", "huge", "c"], padding={"huge": LIMIT})
    assert sorted(held) == ["a", "c"], "the huge object is neither published nor awaited"


class Unanswered:
    """A read-back the broker cannot answer: it fails, or never ends."""

    def __init__(self, failure: Exception | None) -> None:
        self.failure = failure
        self.calls = 0

    async def __call__(self, kind: str) -> dict[Any, int]:
        self.calls += 1
        if self.failure is not None:
            raise self.failure
        await asyncio.Event().wait()
        return {}


@pytest.mark.parametrize(
    "failure",
    [RuntimeError("UnknownError"), None],
    ids=["read-back-fails-list-stands", "read-back-hangs-list-stands"],
)
async def test_a_read_back_the_broker_cannot_answer_does_not_stop_the_list(
    failure: Exception | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("services.watcher.service.VERIFY_READ_TIMEOUT_S", 0.05)
    monkeypatch.setattr("services.watcher.service.asyncio.sleep", _no_wait)
    unanswered = Unanswered(failure)
    held = await _first_list(MemoryBus(partitions=2), ["a", "b"], held=unanswered)
    assert sorted(held) == ["a", "b"], "the list is published once, and the watch is synced"
    assert unanswered.calls == VERIFY_ATTEMPTS


_real_sleep = asyncio.sleep


async def _no_wait(delay: float, *args: Any) -> Any:
    return await _real_sleep(min(delay, 0.001), *args)
