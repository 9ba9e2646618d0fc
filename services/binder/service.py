"""The binder service: consume decisions, execute them, publish every outcome.

It is a consumer group over the decision topics, so it scales out by partition. A batch is
committed only after its decisions were executed and their results acknowledged by the broker
(at-least-once; execution is idempotent, see ``executor``). Before a batch that carries an epoch
it does not know, the binder re-reads the scheduler's leader log (``fencing``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Annotated

import msgspec
from msgspec import Meta
from prometheus_client import Counter, Histogram

from services.binder.executor import Executor, execute_all, superseded
from services.binder.fencing import EpochFence
from shared.bus import Bus, Outgoing, Record
from shared.bus.generation import generation_group
from shared.events import Decision, Envelope, decision_decoder, encode
from shared.hops import BIND_CALL, BINDER_STATUS_PATCH, KUEUE_STATUS_PATCH, HopMetrics
from shared.kube import KubeClient
from shared.service import ServiceShell


class BinderSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How the binder executes decisions."""

    concurrency: Annotated[int, Meta(ge=1, description="API calls in flight per batch")] = 64
    post_events: Annotated[
        bool, Meta(description="post Scheduled/Evict/Unschedulable Events like kube-scheduler")
    ] = True
    group: Annotated[
        str,
        Meta(
            description="Kafka consumer group of the binders; on the embedded broker, "
            "<group>.<log generation>"
        ),
    ] = "shoal-binder"


async def run_binder(
    *,
    shell: ServiceShell,
    bus: Bus,
    kube: KubeClient,
    settings: BinderSettings,
    stopping: asyncio.Event,
) -> None:
    topics = shell.topics
    fence = EpochFence(producer=shell.service)
    hops = HopMetrics(shell.registry)
    executing = [0]  # decisions of the batch in hand: the binder's queue depth
    for hop in (BIND_CALL, BINDER_STATUS_PATCH, KUEUE_STATUS_PATCH):
        hops.depth(hop, lambda: float(executing[0]))
    executor = Executor(
        kube, producer=shell.service, fence=fence, post_events=settings.post_events, hops=hops
    )
    outcomes = Counter(
        "shoal_binder_outcomes", "decision outcomes", ["outcome"], registry=shell.registry
    )
    latency = Histogram(
        "shoal_binder_batch_seconds", "time to execute one batch", registry=shell.registry
    )

    async def read_leader_log() -> None:
        snapshot = await bus.rebuild(topics=[topics.leader], decode=bytes)
        fence.learn(record.offset + 1 for record in snapshot.records)
        shell.log.info(
            "leader log read", epochs=len(fence.known), newest=max(fence.known, default=0)
        )

    async def handle(batch: Sequence[Record[Decision]]) -> None:
        with latency.time():
            decisions: list[Envelope] = [record.value for record in batch]
            skipped = superseded(decisions)
            if skipped:
                outcomes.labels("Superseded").inc(len(skipped))
                decisions = [d for i, d in enumerate(decisions) if i not in skipped]
            if fence.unknown(decisions):
                await read_leader_log()  # a new leader, or a forged epoch: the log decides
            executing[0] = len(decisions)
            try:
                results = await execute_all(executor, decisions, settings.concurrency)
            finally:
                executing[0] = 0
            if results:
                await bus.produce_many(
                    topics.results,
                    [Outgoing(value=encode(r), key=r.key.encode()) for r in results],
                )
        for result in results:
            outcomes.labels(type(result).__name__).inc()

    await bus.create_topics([*topics.decisions(), topics.results])
    await bus.create_topics([topics.leader], partitions=1)
    await read_leader_log()
    try:
        # Ready once the group gave us partitions (the embedded broker takes seconds to settle
        # a group): before that, a decision would wait for the join, not for the binder.
        await bus.consume(
            topics=topics.decisions(),
            group=binder_group(settings.group, shell),
            decode=decision_decoder.decode,
            handler=handle,
            stopping=stopping,
            on_assigned=shell.readiness.mark_ready,
            # Evictions follow a decision made while busy; they may wait ~1.5 s at rest.
            wake_topics=[topics.binds, topics.podgroup_status, topics.kueue_status],
        )
    finally:
        await executor.close()


def binder_group(base: str, shell: ServiceShell) -> str:
    """The binders' consumer group. Where a broker restart loses the log (the embedded broker)
    it is one group per log generation (``generation_group``: the old body's member would hold
    a group of the same name for its session), and nothing is lost by it: the offsets went
    with the log. Where the log survives (Kafka) the name stays, so that a generation change
    (a deleted topic) does not make a new group execute every retained decision again; Kafka
    counts group generations from 1, so the old member leaves with a LeaveGroup."""
    if shell.kafka.log_survives_restart:
        return base
    return generation_group(base, shell.generation)
