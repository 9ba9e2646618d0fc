"""``shoal run scheduler``: the gang scheduler service (no API server access)."""

from __future__ import annotations

import argparse
import asyncio


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--standalone", action="store_true", help="lead without an election")


def run(args: argparse.Namespace) -> int:
    import msgspec

    from services.scheduler.service import Scheduler, SchedulerSettings
    from shared.bus.kafka import KafkaBus
    from shared.config import load_settings
    from shared.service import ServiceShell

    shell = ServiceShell.from_env("scheduler")
    settings = load_settings(SchedulerSettings, prefix="SHOAL_SCHEDULER_")
    if args.standalone:
        settings = msgspec.structs.replace(settings, standalone=True)

    async def main() -> int:
        async with KafkaBus(settings=shell.kafka) as bus:

            async def once(stopping: asyncio.Event) -> None:
                await Scheduler(shell=shell, bus=bus, settings=settings).run(stopping)

            return await shell.run({"scheduler": shell.per_generation(bus, once)})

    return asyncio.run(main())
