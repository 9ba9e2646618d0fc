"""`shoal bench bus`: messages/s through the bus with realistic pod events.

Produces N `ObjectAdded` envelopes carrying a ~1.5 KB pod manifest (msgspec JSON), then reads
them back two ways: as a consumer-group member (decode + commit per batch) and as a rebuild
from the beginning to the high watermark. Uses `KAFKA_BOOTSTRAP` if set, else an embedded broker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import Sequence
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--messages", type=int, default=100_000, help="messages to send")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the topic")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from shared.errors import UserError
    from shared.logging import configure_logging

    configure_logging(level="warning")  # stderr; stdout carries only the results
    if args.messages < 1 or args.partitions < 1:
        raise UserError("--messages and --partitions must be at least 1")
    results = asyncio.run(_bench(messages=args.messages, partitions=args.partitions))
    if args.json:
        print(json.dumps(results))
    else:
        _print_table(results)
    return 0


def pod_manifest(index: int) -> dict[str, Any]:
    """A pod as the watcher would see it: labels, annotations, resources, status (~1.5 KB)."""
    name = f"train-{index // 8}-worker-{index % 8}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "team-research",
            "uid": str(uuid.UUID(int=index)),
            "resourceVersion": str(100_000 + index),
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "labels": {
                "app": "train",
                "volcano.sh/job-name": f"train-{index // 8}",
                "volcano.sh/task-spec": "worker",
            },
            "annotations": {
                "scheduling.k8s.io/group-name": f"train-{index // 8}-podgroup",
                "volcano.sh/job-version": "0",
                "volcano.sh/task-index": str(index % 8),
            },
            "ownerReferences": [
                {
                    "apiVersion": "batch.volcano.sh/v1alpha1",
                    "kind": "Job",
                    "name": f"train-{index // 8}",
                    "uid": str(uuid.UUID(int=index // 8)),
                    "controller": True,
                }
            ],
        },
        "spec": {
            "schedulerName": "volcano",
            "priorityClassName": "high",
            "restartPolicy": "OnFailure",
            "nodeSelector": {"node.kubernetes.io/instance-type": "gpu-a100"},
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
            "containers": [
                {
                    "name": "trainer",
                    "image": "registry.example.com/research/trainer:2025.01",
                    "command": ["python", "-m", "train", "--epochs", "10"],
                    "env": [
                        {"name": "MASTER_ADDR", "value": f"train-{index // 8}-master-0"},
                        {"name": "WORLD_SIZE", "value": "8"},
                        {"name": "RANK", "value": str(index % 8)},
                    ],
                    "resources": {
                        "requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "1"},
                        "limits": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "1"},
                    },
                }
            ],
        },
        "status": {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "lastTransitionTime": "2025-01-01T00:00:01Z",
                }
            ],
            "qosClass": "Guaranteed",
        },
    }


async def _bench(*, messages: int, partitions: int) -> dict[str, Any]:
    import msgspec

    from shared.broker import broker_settings, resolve_bootstrap
    from shared.bus import Outgoing, Record
    from shared.bus.kafka import KafkaBus
    from shared.events import ObjectAdded, StateEvent

    encoder = msgspec.json.Encoder()
    decoder: msgspec.json.Decoder[StateEvent] = msgspec.json.Decoder(StateEvent)
    payloads = [
        Outgoing(
            encoder.encode(
                ObjectAdded(
                    key=f"team-research/pod-{i}",
                    kind="Pod",
                    resourceVersion=str(i),
                    object=msgspec.Raw(encoder.encode(pod_manifest(i))),
                )
            ),
            key=f"team-research/train-{i // 8}".encode(),
        )
        for i in range(messages)
    ]
    size = sum(len(p.value or b"") for p in payloads) / messages
    with broker_settings() as settings:
        topic = f"{settings.topic_prefix}bench.{uuid.uuid4().hex[:8]}"
        async with KafkaBus(settings=settings) as bus:
            await bus.create_topics([topic], partitions=partitions)
            started = time.perf_counter()
            for chunk in range(0, messages, 10_000):
                await bus.produce_many(topic, payloads[chunk : chunk + 10_000])
            produce_s = time.perf_counter() - started

            stopping = asyncio.Event()
            seen = 0
            first_at = 0.0

            async def count(records: Sequence[Record[StateEvent]]) -> None:
                nonlocal seen, first_at
                first_at = first_at or time.perf_counter()
                seen += len(records)
                if seen >= messages:
                    stopping.set()

            joined = time.perf_counter()
            await bus.consume(
                topics=[topic],
                group=f"bench-{uuid.uuid4().hex[:8]}",
                decode=decoder.decode,
                handler=count,
                stopping=stopping,
            )
            consume_s = time.perf_counter() - first_at
            join_s = first_at - joined

            started = time.perf_counter()
            snapshot = await bus.rebuild(topics=[topic], decode=decoder.decode)
            rebuild_s = time.perf_counter() - started
    return {
        "messages": messages,
        "partitions": partitions,
        "message_bytes": round(size),
        "broker": "embedded" if resolve_bootstrap() is None else "external",
        "acks": settings.acks,
        "linger_ms": settings.linger_ms,
        "produce_msgs_per_s": round(messages / produce_s),
        "produce_mib_per_s": round(messages * size / produce_s / 2**20, 1),
        "consume_msgs_per_s": round(seen / consume_s),
        "group_join_s": round(join_s, 2),
        "rebuild_msgs_per_s": round(len(snapshot.records) / rebuild_s),
    }


def _print_table(results: dict[str, Any]) -> None:
    width = max(len(key) for key in results)
    for key, value in results.items():
        print(f"{key:<{width}}  {value}")
