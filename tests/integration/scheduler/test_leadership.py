"""Scheduler leadership over Kafka group membership: one leader, a standby takes over with a
higher epoch when the leader goes away (the real broker, two members in one group)."""

from __future__ import annotations

import asyncio
from typing import Any

from services.scheduler.leadership import Leadership, run_group_leadership
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind, KafkaSettings


async def _until(predicate: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_one_leader_then_failover_with_a_higher_epoch(
    kafka_bootstrap: str, broker_kind: BrokerKind, kafka_names: Any
) -> None:
    settings = KafkaSettings(
        bootstrap=kafka_bootstrap,
        broker=broker_kind,
        topic_prefix=kafka_names.prefix,
        fetch_max_wait_ms=10,
        session_timeout_ms=6000,
        heartbeat_interval_ms=500,
    )
    topic, group = kafka_names.topic("leader"), kafka_names.group("scheduler")
    async with KafkaBus(settings=settings) as bus:
        first, second = Leadership(), Leadership()
        stop_first, stop_second = asyncio.Event(), asyncio.Event()

        def member(leadership: Leadership, stopping: asyncio.Event, name: str) -> Any:
            return asyncio.create_task(
                run_group_leadership(
                    bus=bus,
                    kafka=settings,
                    topic=topic,
                    group=group,
                    identity=name,
                    leadership=leadership,
                    stopping=stopping,
                )
            )

        task_first = member(first, stop_first, "a")
        await _until(lambda: first.leading)
        task_second = member(second, stop_second, "b")
        await asyncio.sleep(5)  # the standby has joined; the leader keeps partition 0
        assert first.leading and not second.leading
        epoch = first.epoch

        stop_first.set()  # the leader leaves the group
        await asyncio.wait_for(task_first, 20)
        assert not first.leading
        await _until(lambda: second.leading, timeout=40)
        assert second.epoch > epoch
        stop_second.set()
        await asyncio.wait_for(task_second, 20)
