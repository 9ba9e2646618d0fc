"""A cycle whose decisions the broker did not take (it is restarting) leaves nothing assumed:
the next cycle decides them again at once, instead of after the assumptions expire (60 s)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import pytest

from services.scheduler.service import Scheduler, SchedulerSettings
from shared.bus import MemoryBus, Outgoing, Position
from shared.config import KafkaSettings, ServiceSettings
from shared.events import PodBindDecided, PodGroupStatusDecided, decision_decoder
from shared.service import KubeSettings, ServiceShell
from tests.unit.scheduler.builders import group, node, pod, queue
from tests.unit.scheduler.state_records import publish


class BrokerAway(Exception):
    """What a produce to a restarting broker raises."""


class FlakyBus(MemoryBus):
    """A MemoryBus whose produce to the ``failing`` topic fails while ``away`` is set."""

    def __init__(self) -> None:
        super().__init__(partitions=1)
        self.failing = ""
        self.away = False

    async def produce_many(self, topic: str, records: Iterable[Outgoing]) -> list[Position]:
        if self.away and topic == self.failing:
            raise BrokerAway(topic)
        return await super().produce_many(topic, records)


def scheduler(bus: MemoryBus) -> Scheduler:
    shell = ServiceShell(
        service="scheduler",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory"),
        kube=KubeSettings(),
    )
    return Scheduler(shell=shell, bus=bus, settings=SchedulerSettings(standalone=True))


def decided(bus: MemoryBus, topic: str) -> list[object]:
    return [decision_decoder.decode(r.value) for r in bus.records(topic) if r.value is not None]


@pytest.mark.parametrize(
    ("failing", "phase", "kind"),
    [("binds", "Inqueue", PodBindDecided), ("podgroup_status", "Pending", PodGroupStatusDecided)],
    ids=["bind-not-taken", "podgroup-status-not-taken"],
)
async def test_decisions_the_broker_did_not_take_are_decided_again_next_cycle(
    failing: str, phase: str, kind: type
) -> None:
    bus = FlakyBus()
    service = scheduler(bus)
    topics = service.topics
    topic = bus.failing = getattr(topics, failing)
    await bus.create_topics([*service.state_topics(), *topics.decisions(), topics.cycles])
    stopping = asyncio.Event()
    followers = await service.start(stopping)
    try:
        await publish(
            bus,
            topics,
            [node("n1"), queue("default"), group("pg", phase=phase), pod("p", "pg")],
        )
        for _ in range(200):
            if service.state.cache.get("v1/Pod", "default/p") is not None:
                break
            await asyncio.sleep(0.01)
        bus.away = True
        with pytest.raises(BrokerAway):
            await service.run_cycle()
        assert not [d for d in decided(bus, topic) if isinstance(d, kind)]
        bus.away = False
        await service.run_cycle()
        assert [d for d in decided(bus, topic) if isinstance(d, kind)], "decided again"
    finally:
        stopping.set()
        await asyncio.gather(*followers)
