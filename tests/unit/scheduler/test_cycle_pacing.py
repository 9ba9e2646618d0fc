"""When the scheduler service runs cycles: none at rest, every period while a pod waits, and
while changes keep coming no more than ``busy_fraction`` of its time."""

from __future__ import annotations

import asyncio

import msgspec

from services.scheduler.service import Scheduler, SchedulerSettings
from shared.bus import MemoryBus
from shared.config import KafkaSettings, ServiceSettings
from shared.events import Envelope
from shared.models import Pod
from shared.service import KubeSettings, ServiceShell
from tests.unit.scheduler.state_records import publish


def scheduler(bus: MemoryBus, *, busy_fraction: float = 0.5) -> Scheduler:
    shell = ServiceShell(
        service="scheduler",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory"),
        kube=KubeSettings(),
    )
    config = SchedulerSettings(
        standalone=True,
        period=0.05,
        min_interval=0.0,
        status_resend=0.05,
        busy_fraction=busy_fraction,
    )
    return Scheduler(shell=shell, bus=bus, settings=config)


def pending_pod() -> Pod:
    return msgspec.convert(
        {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"schedulerName": "volcano"}}, Pod
    )


async def test_no_cycles_at_rest_and_one_per_period_while_a_pod_waits() -> None:
    bus = MemoryBus(partitions=1)
    service = scheduler(bus)
    await bus.create_topics(service.state_topics())
    stopping = asyncio.Event()
    running = asyncio.create_task(service.run(stopping))
    try:
        await asyncio.sleep(0.5)
        at_rest = service.cycle
        assert at_rest <= 2  # the first cycle after start, then nothing to do
        assert service.shell.readiness.ready
        await publish(bus, service.topics, [pending_pod()])
        await asyncio.sleep(0.5)
        assert service.cycle - at_rest >= 4  # it waits (no PodGroup): decided every period
    finally:
        stopping.set()
        await asyncio.wait_for(running, 5)


async def cycles_under_changes(admission_seconds: float) -> int:
    """Cycles a scheduler with busy_fraction 0.25 and 20 ms cycles (``admission_seconds`` of
    each spent in Kueue admission) runs while a change arrives every 10 ms for 0.4 s."""
    bus = MemoryBus(partitions=1)
    service = scheduler(bus, busy_fraction=0.25)
    slow = service.run_cycle

    async def cycle_of_20ms() -> list[Envelope]:
        await asyncio.sleep(0.02)
        envelopes = list(await slow())
        service.admission_seconds = admission_seconds
        return envelopes

    service.run_cycle = cycle_of_20ms  # type: ignore[method-assign]
    await bus.create_topics(service.state_topics())
    stopping = asyncio.Event()
    running = asyncio.create_task(service.run(stopping))
    try:
        await asyncio.sleep(0.1)
        start = service.cycle
        for _ in range(40):  # a change every 10 ms
            service.changed.set()
            await asyncio.sleep(0.01)
        return service.cycle - start
    finally:
        stopping.set()
        await asyncio.wait_for(running, 5)


async def test_busy_fraction_leaves_a_rest_after_each_cycle() -> None:
    # Each 20 ms cycle is followed by a 60 ms rest: about 5 cycles in 0.4 s, not 20.
    assert 2 <= await cycles_under_changes(admission_seconds=0.0) <= 8


async def test_kueue_admission_earns_no_rest() -> None:
    """A cycle spent in Kueue admission is followed by the next at once: each waiting
    workload waits on the loop finished -> admitted, which a rest would lengthen."""
    # No 60 ms rests: a cycle every 20-30 ms, not about 5 in 0.4 s as above.
    assert await cycles_under_changes(admission_seconds=0.02) >= 10
