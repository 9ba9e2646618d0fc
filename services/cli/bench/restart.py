"""``shoal bench restart``: how soon a restarted scheduler decides (architecture §7: < 10 s).

Publishes a cluster (default 5,000 nodes, 10,000 gangs of 5 = 50,000 pending pods) to the state
topics of a broker (embedded unless ``KAFKA_BOOTSTRAP``), then starts the scheduler service
in-process (standalone leadership) and times: cache rebuild from the log, the first cycle's
session, and start → first decision published. Peak RSS is the whole process's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
import uuid
from typing import Any

from shared.config import KafkaSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--size", type=int, default=5, help="pods per gang")
    parser.add_argument("--json", action="store_true")


def _records(nodes: int, jobs: int, size: int) -> dict[str, list[Any]]:
    import msgspec

    from services.cli.bench.scheduler import build
    from shared.bus import Outgoing
    from shared.events import ObjectAdded, encode, raw_object
    from shared.topics import record_key

    snap = build(nodes, jobs, size)
    out: dict[str, list[Any]] = {}
    rv = 0
    groups = (
        ("Node", "v1", snap.nodes),
        ("PodGroup", "scheduling.volcano.sh/v1beta1", snap.pod_groups),
        ("Pod", "v1", snap.pods),
    )
    for kind, api_version, objects in groups:
        for obj in objects:
            rv += 1
            body = msgspec.to_builtins(obj)
            body.update(apiVersion=api_version, kind=kind)
            body["metadata"].update(uid=uuid.uuid4().hex, resourceVersion=str(rv))
            event = ObjectAdded(
                key=record_key(body), kind=kind, resourceVersion=str(rv), object=raw_object(body)
            )
            out.setdefault(kind, []).append(Outgoing(value=encode(event), key=event.key.encode()))
    return out


async def _measure(broker: KafkaSettings, args: argparse.Namespace) -> dict[str, Any]:
    import msgspec

    from services.scheduler.service import Scheduler, SchedulerSettings
    from shared.bus.kafka import KafkaBus
    from shared.config import ServiceSettings
    from shared.service import KubeSettings, ServiceShell

    prefix = f"bench{uuid.uuid4().hex[:6]}."
    kafka = msgspec.structs.replace(broker, topic_prefix=prefix, fetch_max_wait_ms=10)
    shell = ServiceShell(
        service="scheduler", settings=ServiceSettings(http_port=0), kafka=kafka, kube=KubeSettings()
    )
    records = _records(args.nodes, args.jobs, args.size)
    async with KafkaBus(settings=kafka) as bus:
        scheduler = Scheduler(shell=shell, bus=bus, settings=SchedulerSettings(standalone=True))
        await bus.create_topics(
            [
                *scheduler.state_topics(),
                *shell.topics.decisions(),
                shell.topics.results,
                shell.topics.cycles,
            ]
        )
        published = time.perf_counter()
        for kind, batch in records.items():
            await bus.produce_many(shell.topics.state(kind), batch)
        publish_s = time.perf_counter() - published

        first = asyncio.get_running_loop().create_future()
        run_cycle = scheduler.run_cycle

        async def timed_cycle() -> list[Any]:
            started = time.perf_counter()
            envelopes = await run_cycle()
            if envelopes and not first.done():
                first.set_result(
                    (time.perf_counter(), time.perf_counter() - started, len(envelopes))
                )
            return envelopes

        scheduler.run_cycle = timed_cycle  # type: ignore[method-assign]
        stopping = asyncio.Event()
        start = time.perf_counter()
        task = asyncio.create_task(scheduler.run(stopping))
        ready_at = None
        while not first.done():
            if ready_at is None and shell.readiness.ready:
                ready_at = time.perf_counter()
            await asyncio.sleep(0.01)
        decided_at, cycle_s, decisions = first.result()
        stopping.set()
        await asyncio.wait_for(task, 30)
    pods = args.jobs * args.size
    return {
        "nodes": args.nodes,
        "pods": pods,
        "records": sum(len(b) for b in records.values()),
        "publish_s": round(publish_s, 2),
        "rebuild_s": round((ready_at or decided_at) - start, 2),
        "first_cycle_s": round(cycle_s, 2),
        "first_decision_s": round(decided_at - start, 2),
        "decisions": decisions,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "target_s": 10.0,
    }


def run(args: argparse.Namespace) -> int:
    from shared.broker import broker_settings

    with broker_settings() as broker:
        result = asyncio.run(_measure(broker, args))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>18}: {value}")
    return 0
