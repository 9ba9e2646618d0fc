"""``shoal replay``: re-run a recorded scheduler cycle from the log and diff its decisions.

    shoal replay --bootstrap HOST:PORT [--topic-prefix shoal.] [--cycle N | --last] [-o text|json]
    shoal replay --file LOG.jsonl [--cycle N | --last]
    shoal replay export --bootstrap HOST:PORT --out LOG.jsonl

The records come from Kafka (the cycles topic, then the state topics the cycle names) or from a
file ``export`` wrote; either way they go through the same pure core (``replaying``). Exit 0 when
the decisions are identical, 1 when they differ (the differences are printed), 2 on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shared.errors import UserError

if TYPE_CHECKING:
    from services.cli.debug.replaying import Recorded, Replay
    from shared.bus import RawRecord

DEFAULT_PREFIX = "shoal."


def add_log_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the log is and which cycle to take (shared with ``shoal explain``)."""
    parser.add_argument(
        "--bootstrap",
        metavar="HOST:PORT",
        help="Kafka host:port to read the log from (default: $KAFKA_BOOTSTRAP)",
    )
    parser.add_argument(
        "--topic-prefix",
        metavar="PREFIX",
        default=os.environ.get("SHOAL_TOPIC_PREFIX", DEFAULT_PREFIX),
        help="prefix of the Shoal topics (default: $SHOAL_TOPIC_PREFIX or shoal.)",
    )
    parser.add_argument(
        "--file", type=Path, metavar="LOG.jsonl", help="an exported log (JSONL) instead of Kafka"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--cycle", type=int, metavar="N", help="the cycle number (the latest with that number)"
    )
    which.add_argument("--last", action="store_true", help="the last recorded cycle (default)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action", nargs="?", choices=("export",), help="export: dump the log to a JSONL file"
    )
    add_log_arguments(parser)
    parser.add_argument(
        "--out", type=Path, metavar="FILE.jsonl", help="export: the JSONL file to write"
    )
    parser.add_argument("-o", "--output", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from shared.logging import configure_logging

    configure_logging(level="warning")
    if args.action == "export":
        return _export(args)
    records, recorded = load_cycle(args)
    from services.cli.debug.replaying import replay

    result = replay(records, recorded)
    print(json.dumps(as_dict(result), indent=2) if args.output == "json" else render(result))
    return 0 if result.identical else 1


# --- reading the log -----------------------------------------------------------------------


def load_cycle(args: argparse.Namespace) -> tuple[list[RawRecord], Recorded]:
    """The records and the chosen cycle, from ``--file`` or ``--bootstrap``."""
    from services.cli.debug.replaying import pick, recorded_cycles
    from shared.topics import Topics

    cycles_topic = Topics(prefix=args.topic_prefix).cycles
    if args.file is not None:
        if args.bootstrap:
            raise UserError("give --file or --bootstrap, not both")
        from services.cli.debug.logfile import read_records

        records = read_records(args.file)
        return records, pick(recorded_cycles(records, topic=cycles_topic), args.cycle)
    bootstrap = _bootstrap(args)
    return asyncio.run(_read_cycle(bootstrap, args.topic_prefix, args.cycle))


def _bootstrap(args: argparse.Namespace) -> str:
    bootstrap = str(args.bootstrap or os.environ.get("KAFKA_BOOTSTRAP", "")).strip()
    if not bootstrap:
        raise UserError("give --bootstrap HOST:PORT (or $KAFKA_BOOTSTRAP) or --file LOG.jsonl")
    return bootstrap


async def _read_cycle(
    bootstrap: str, prefix: str, cycle: int | None
) -> tuple[list[RawRecord], Recorded]:
    from services.cli.debug.replaying import pick, recorded_cycles, state_topics
    from shared.topics import Topics

    cycles_topic = Topics(prefix=prefix).cycles
    async with _LogReader(bootstrap, prefix) as log:
        cycles = await log.read([cycles_topic])
        recorded = pick(recorded_cycles(cycles, topic=cycles_topic), cycle)
        return await log.read(state_topics(recorded.cycle)), recorded


class _LogReader:
    """Reads whole topics from the beginning, only topics that exist (the embedded broker
    creates any topic a client merely asks about)."""

    def __init__(self, bootstrap: str, prefix: str) -> None:
        import msgspec

        from shared.bus.kafka import KafkaBus
        from shared.config import KafkaSettings, load_settings

        self.bootstrap = bootstrap
        # TLS/SASL come from the environment, as the services' do (SHOAL_SECURITY_PROTOCOL...).
        self.settings = msgspec.structs.replace(
            load_settings(KafkaSettings),
            bootstrap=bootstrap,
            topic_prefix=prefix,
            client_id="shoal-replay",
        )
        self.bus = KafkaBus(settings=self.settings)
        self.existing: set[str] = set()

    async def __aenter__(self) -> _LogReader:
        from aiokafka import AIOKafkaConsumer
        from aiokafka.errors import KafkaError

        from shared.bus.security import client_options

        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap,
            client_id="shoal-replay",
            **client_options(self.settings),
        )
        try:
            await asyncio.wait_for(consumer.start(), timeout=15)
            self.existing = set(await consumer.topics())
            await self.bus.start()
        except (KafkaError, OSError, TimeoutError) as exc:
            raise UserError(f"cannot read the log from {self.bootstrap}: {exc!r}") from None
        finally:
            await consumer.stop()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bus.close()

    async def read(self, topics: list[str]) -> list[RawRecord]:
        missing = [t for t in topics if t not in self.existing]
        if missing and len(missing) == len(topics):
            raise UserError(f"no topic {', '.join(missing)} on {self.bootstrap} (--topic-prefix?)")
        present = [t for t in topics if t in self.existing]
        snapshot = await self.bus.rebuild(topics=present, decode=_undecoded)
        return snapshot.records


def _undecoded(value: bytes) -> bytes | None:
    return value


# --- export --------------------------------------------------------------------------------


def _export(args: argparse.Namespace) -> int:
    if args.out is None:
        raise UserError("export needs --out FILE.jsonl")
    if args.file is not None:
        raise UserError("export reads Kafka (--bootstrap), not --file")
    records = asyncio.run(_read_everything(_bootstrap(args), args.topic_prefix))
    try:
        with args.out.open("wb") as out:
            from services.cli.debug.logfile import write_records

            written, skipped = write_records(out, records)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write: {exc.strerror}") from None
    topics = len({r.topic for r in records})
    print(f"exported {written} records of {topics} topics to {args.out} ({skipped} skipped)")
    return 0


async def _read_everything(bootstrap: str, prefix: str) -> list[RawRecord]:
    """The cycles topic and every state topic the scheduler reads or a cycle names."""
    from services.cli.debug.replaying import recorded_cycles, state_topics
    from services.scheduler.service import STATE_KINDS
    from shared.topics import Topics

    names = Topics(prefix=prefix)
    async with _LogReader(bootstrap, prefix) as log:
        cycles = await log.read([names.cycles])
        topics = {names.state(kind) for kind in STATE_KINDS}
        for recorded in recorded_cycles(cycles, topic=names.cycles):
            topics.update(state_topics(recorded.cycle))
        return cycles + await log.read(sorted(topics))


# --- output --------------------------------------------------------------------------------


def as_dict(result: Replay) -> dict[str, Any]:
    import msgspec

    cycle = result.recorded.cycle
    replayed = result.decisions
    return {
        "cycle": cycle.cycle,
        "offset": result.recorded.offset,
        "producer": cycle.producer,
        "epoch": cycle.epoch,
        "now": cycle.now,
        "identical": result.identical,
        "differences": msgspec.to_builtins(result.differences),
        "recorded": {
            "binds": cycle.binds,
            "evictions": sorted(cycle.evictions),
            "pipelined": cycle.pipelined,
            "podGroups": cycle.podgroups,
        },
        "replayed": {
            "binds": dict(sorted(replayed.binds.items())),
            "evictions": sorted(replayed.evictions),
            "pipelined": dict(sorted(replayed.pipelined.items())),
            "podGroups": dict(sorted(replayed.phases().items())),
        },
    }


def describe(recorded: Recorded) -> str:
    """One line naming a recorded cycle."""
    cycle = recorded.cycle
    at = datetime.fromtimestamp(cycle.now, UTC).isoformat(timespec="milliseconds")
    return (
        f"cycle {cycle.cycle} (record {recorded.offset}, producer {cycle.producer or '?'},"
        f" epoch {cycle.epoch}, at {at})"
    )


def render(result: Replay) -> str:
    cycle = result.recorded.cycle
    lines = [
        describe(result.recorded),
        f"  recorded: {len(cycle.binds)} binds, {len(cycle.evictions)} evictions,"
        f" {len(cycle.pipelined)} pipelined, {len(cycle.podgroups)} podgroups",
    ]
    if result.identical:
        lines.append("  replayed: identical")
        return "\n".join(lines)
    lines.append(f"  replayed: {len(result.differences)} differences")
    for d in result.differences:
        lines.append(
            f"    {d.kind} {d.key}: recorded {d.recorded or '(none)'},"
            f" replayed {d.replayed or '(none)'}"
        )
    return "\n".join(lines)
