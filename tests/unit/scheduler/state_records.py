"""State-topic records for scheduler tests: models as the watcher would publish them, and the
log the real Scheduler service writes when it runs cycles over them (on a MemoryBus)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

import msgspec

from services.scheduler.service import Scheduler, SchedulerSettings
from shared.bus import Bus, MemoryBus, Outgoing, RawRecord
from shared.config import KafkaSettings, ServiceSettings
from shared.events import ObjectAdded, ObjectDeleted, ObjectModified, encode, raw_object
from shared.models import (
    ClusterQueue,
    ConfigMap,
    LocalQueue,
    Model,
    Node,
    Pod,
    PodGroup,
    PriorityClass,
    Queue,
    ResourceFlavor,
    Workload,
)
from shared.service import KubeSettings, ServiceShell
from shared.topics import Topics, record_key

_KINDS: dict[type[Model], tuple[str, str]] = {
    Pod: ("v1", "Pod"),
    Node: ("v1", "Node"),
    PodGroup: ("scheduling.volcano.sh/v1beta1", "PodGroup"),
    Queue: ("scheduling.volcano.sh/v1beta1", "Queue"),
    PriorityClass: ("scheduling.k8s.io/v1", "PriorityClass"),
    ConfigMap: ("v1", "ConfigMap"),
    ResourceFlavor: ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"),
    ClusterQueue: ("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
    LocalQueue: ("kueue.x-k8s.io/v1beta2", "LocalQueue"),
    Workload: ("kueue.x-k8s.io/v1beta2", "Workload"),
}
_versions = itertools.count(1)


def manifest(obj: Model) -> dict[str, Any]:
    """The API dict of a model, with apiVersion, kind, a uid and a fresh resourceVersion."""
    api_version, kind = _KINDS[type(obj)]
    doc: dict[str, Any] = msgspec.to_builtins(obj)
    meta = doc.setdefault("metadata", {})
    meta.setdefault("uid", f"uid-{meta.get('namespace', '')}-{meta['name']}")
    meta["resourceVersion"] = str(next(_versions))
    return {"apiVersion": api_version, "kind": kind, **doc}


def conf_map(text: str) -> ConfigMap:
    return msgspec.convert(
        {
            "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
            "data": {"volcano-scheduler.conf": text},
        },
        ConfigMap,
    )


async def publish(bus: Bus, topics: Topics, objects: list[Model], *, event: str = "added") -> None:
    """Publish each object on its state topic (added, modified or deleted)."""
    cls = {"added": ObjectAdded, "modified": ObjectModified, "deleted": ObjectDeleted}[event]
    for obj in objects:
        doc = manifest(obj)
        key = record_key(doc)
        record = cls(
            key=key,
            kind=doc["kind"],
            resourceVersion=doc["metadata"]["resourceVersion"],
            object=raw_object(doc),
        )
        await bus.produce_many(
            topics.state(doc["kind"]), [Outgoing(value=encode(record), key=key.encode())]
        )


async def recorded_log(
    batches: Sequence[Sequence[Model]], *, prefix: str, conf_path: str = ""
) -> list[RawRecord]:
    """Run the Scheduler service over a MemoryBus: publish each batch, let the service apply it,
    run one cycle. Returns the state and cycles topics, as ``shoal replay export`` writes them."""
    bus = MemoryBus(partitions=2, topic_prefix=prefix, clock=lambda: 1_700_000_000.0)
    shell = ServiceShell(
        service="scheduler",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory", topic_prefix=prefix),
        kube=KubeSettings(),
    )
    settings = SchedulerSettings(standalone=True, conf=conf_path)
    scheduler = Scheduler(shell=shell, bus=bus, settings=settings)
    await bus.create_topics(scheduler.state_topics())
    stopping = asyncio.Event()
    followers = await scheduler.start(stopping)
    try:
        for batch in batches:
            before = dict(scheduler.state.positions)
            await publish(bus, shell.topics, list(batch))
            while batch and scheduler.state.positions == before:
                await asyncio.sleep(0.005)
            await scheduler.run_cycle()
    finally:
        stopping.set()
        await asyncio.gather(*followers)
    topics = [*scheduler.state_topics(), shell.topics.cycles]
    return [r for t in topics for r in bus.records(t)]
