"""The scheduler follows its state topics and the results topic with one consumer: each record
reaches its topic's handler, and a record of the wrong family for its topic is dead-lettered."""

from __future__ import annotations

import asyncio

from services.scheduler.service import Scheduler, SchedulerSettings
from services.scheduler.state import Assumption
from shared.bus import MemoryBus, Outgoing
from shared.bus.delivery import HEADER_STAGE
from shared.config import KafkaSettings, ServiceSettings
from shared.events import PodBindFailed, encode
from shared.service import KubeSettings, ServiceShell
from tests.unit.scheduler.state_records import publish
from tests.unit.scheduler.test_cycle_pacing import pending_pod


async def test_state_and_results_on_one_follower() -> None:
    bus = MemoryBus(partitions=1)
    shell = ServiceShell(
        service="scheduler",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory"),
        kube=KubeSettings(),
    )
    service = Scheduler(shell=shell, bus=bus, settings=SchedulerSettings(standalone=True))
    topics = shell.topics
    await bus.create_topics([*service.state_topics(), topics.results, bus.dead_letter_topic])
    stopping = asyncio.Event()
    followers = await service.start(stopping)
    assert len(followers) == 1
    try:
        service.state.assumed["ns/q"] = Assumption(uid="u", node="n1", since=0.0)
        failed = PodBindFailed(key="ns/q", pod_uid="u", node="n1", reason="Conflict")
        await bus.produce_many(topics.results, [Outgoing(value=encode(failed), key=b"ns/q")])
        await bus.produce_many(  # a result where a pod's record belongs
            topics.state("Pod"), [Outgoing(value=encode(failed), key=b"ns/q")]
        )
        await publish(bus, topics, [pending_pod()])
        for _ in range(200):
            if (
                service.state.cache.get("v1/Pod", "ns/p") is not None
                and "ns/q" not in service.state.assumed
                and bus.records(bus.dead_letter_topic)
            ):
                break
            await asyncio.sleep(0.01)
    finally:
        stopping.set()
        await asyncio.gather(*followers)
    assert service.state.cache.get("v1/Pod", "ns/p") is not None, "state record applied"
    assert "ns/q" not in service.state.assumed, "bind failure applied"
    [dead] = bus.records(bus.dead_letter_topic)
    assert dict(dead.headers)[HEADER_STAGE] == b"decode"
