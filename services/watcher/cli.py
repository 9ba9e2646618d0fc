"""``shoal run watcher``: mirror the API server into the state topics."""

from __future__ import annotations

import argparse
import asyncio


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.watcher.service import WatcherSettings, run_watcher
    from shared.bus.kafka import KafkaBus
    from shared.config import load_settings
    from shared.kube import KubeClient
    from shared.service import ServiceShell

    shell = ServiceShell.from_env("watcher")
    settings = load_settings(WatcherSettings, prefix="SHOAL_WATCHER_")

    async def main() -> int:
        kube = await KubeClient.connect(args.kubeconfig or shell.kube.kubeconfig or None)
        try:
            async with KafkaBus(settings=shell.kafka) as bus:

                async def watcher(stopping: asyncio.Event) -> None:
                    await run_watcher(
                        shell=shell, bus=bus, kube=kube, settings=settings, stopping=stopping
                    )

                return await shell.run({"watcher": watcher})
        finally:
            await kube.close()

    return asyncio.run(main())
