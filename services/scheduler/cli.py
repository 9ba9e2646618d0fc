"""``shoal run scheduler``: the gang scheduler service (no API server access)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.scheduler.kueue import FairSharing
    from services.scheduler.service import SchedulerSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--standalone", action="store_true", help="lead without an election")


def run(args: argparse.Namespace) -> int:
    import msgspec

    from services.scheduler.service import Scheduler, SchedulerSettings
    from shared.bus.kafka import KafkaBus
    from shared.config import load_settings
    from shared.runtime import run_loop
    from shared.service import ServiceShell

    shell = ServiceShell.from_env("scheduler")
    settings = load_settings(SchedulerSettings, prefix="SHOAL_SCHEDULER_")
    if args.standalone:
        settings = msgspec.structs.replace(settings, standalone=True)
    fair = kueue_fair_sharing(settings)  # a bad Kueue Configuration stops the start

    async def main() -> int:
        async with KafkaBus(settings=shell.kafka) as bus:

            async def once(stopping: asyncio.Event) -> None:
                scheduler = Scheduler(shell=shell, bus=bus, settings=settings, fair_sharing=fair)
                await scheduler.run(stopping)

            return await shell.run({"scheduler": shell.per_generation(bus, once)})

    return run_loop(main(), loop=shell.settings.event_loop)


def kueue_fair_sharing(settings: SchedulerSettings) -> FairSharing | None:
    """Kueue's ``fairSharing``: from the Configuration file when one is set, else from the
    settings; a bad value raises UserError."""
    from services.scheduler.kueue.configuration import fair_sharing, from_configuration
    from shared.errors import UserError

    if settings.kueue_config:
        path = Path(settings.kueue_config)
        try:
            text = path.read_text()
        except OSError as exc:
            raise UserError(f"SHOAL_SCHEDULER_KUEUE_CONFIG={str(path)!r}: {exc.strerror}") from None
        return from_configuration(text, source=str(path))
    return fair_sharing(
        settings.kueue_fair_sharing,
        settings.kueue_fair_sharing_preemption_strategies,
        source="SHOAL_SCHEDULER_KUEUE_FAIR_SHARING_PREEMPTION_STRATEGIES",
    )
