"""The watcher never dies of one object: an object too large for a Kafka record is skipped (and
told about), and a watch line the client cannot read makes it re-list instead of crashing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from services.watcher.publishing import Publisher
from services.watcher.service import Metrics, ResourceWatch, WatcherSettings, parse_resource
from shared.bus import MemoryBus
from shared.config import KafkaSettings, ServiceSettings
from shared.events import Envelope, ObjectAdded, raw_object, state_decoder
from shared.service import KubeSettings, ServiceShell

LIMIT = 64 * 1024


def added(name: str, pad: int) -> ObjectAdded:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}}
    obj["data"] = {"pad": "x" * pad}
    return ObjectAdded(
        key=f"ns/{name}", kind="ConfigMap", resourceVersion="1", object=raw_object(obj)
    )


@pytest.mark.parametrize(
    ("pads", "published", "skipped"),
    [
        ([10, 10], ["a", "b"], []),
        ([10, 2 * LIMIT, 10], ["a", "c"], ["b"]),
        ([LIMIT - 500], [], ["a"]),
    ],
    ids=[
        "small-objects-published",
        "huge-object-skipped-others-kept-in-order",
        "limit-counts-key-and-framing",
    ],
)
async def test_too_large_objects_are_skipped_not_fatal(
    pads: list[int], published: list[str], skipped: list[str]
) -> None:
    bus = MemoryBus(partitions=1)
    await bus.create_topics(["state"])
    told: list[tuple[str, int]] = []

    async def on_too_large(event: Envelope, size: int) -> None:
        told.append((event.key.split("/")[1], size))

    publisher = Publisher(bus, "state", max_record_bytes=LIMIT, on_too_large=on_too_large)
    running = asyncio.create_task(publisher.run())
    for name, pad in zip("abc", pads, strict=False):
        publisher.put(added(name, pad))
    await asyncio.wait_for(publisher.flushed(), 5)
    running.cancel()
    names = [state_decoder.decode(r.value or b"").key.split("/")[1] for r in bus.records("state")]
    assert names == published
    assert [name for name, _ in told] == skipped
    assert all(size > LIMIT for _, size in told)


class LineTooLongKube:
    """LIST works; the first WATCH fails as aiohttp does on a line over its limit."""

    def __init__(self) -> None:
        self.lists = 0
        self.watches = 0

    async def list_all(self, rt: Any, **kwargs: Any) -> tuple[list[dict[str, Any]], str]:
        self.lists += 1
        return [], str(self.lists)

    async def watch_raw(self, rt: Any, **kwargs: Any) -> AsyncIterator[tuple[str, msgspec.Raw]]:
        self.watches += 1
        if self.watches == 1:
            raise ValueError("watch line longer than the limit")
        await asyncio.sleep(3600)
        yield "BOOKMARK", msgspec.Raw(b"{}")


async def test_unreadable_watch_line_means_relist_not_crash() -> None:
    shell = ServiceShell(
        service="watcher",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory"),
        kube=KubeSettings(),
    )
    bus = MemoryBus(partitions=1)
    await bus.create_topics(["state"])

    async def ignore(event: Envelope, size: int) -> None:
        return None

    publisher = Publisher(bus, "state", max_record_bytes=LIMIT, on_too_large=ignore)
    kube = LineTooLongKube()
    watch = ResourceWatch(
        rt=parse_resource("v1/ConfigMap"),
        kube=kube,  # type: ignore[arg-type]
        publisher=publisher,
        settings=WatcherSettings(),
        metrics=Metrics(shell),
        producer="watcher",
    )
    tasks = [asyncio.create_task(publisher.run()), asyncio.create_task(watch.run())]
    for _ in range(200):
        if kube.watches >= 2:
            break
        await asyncio.sleep(0.01)
    assert not tasks[1].done(), "the watch loop survived"
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert (kube.lists, kube.watches) == (2, 2), "re-listed after the unreadable line"
