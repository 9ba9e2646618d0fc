"""``shoal run binder``: execute the scheduler's decisions against the API server."""

from __future__ import annotations

import argparse
import asyncio


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.binder.service import BinderSettings, run_binder
    from shared.bus.kafka import KafkaBus
    from shared.config import load_settings
    from shared.kube import KubeClient
    from shared.service import ServiceShell

    shell = ServiceShell.from_env("binder")
    settings = load_settings(BinderSettings, prefix="SHOAL_BINDER_")

    async def main() -> int:
        kube = await KubeClient.connect(args.kubeconfig or shell.kube.kubeconfig or None)
        try:
            async with KafkaBus(settings=shell.kafka) as bus:

                async def binder(stopping: asyncio.Event) -> None:
                    await run_binder(
                        shell=shell, bus=bus, kube=kube, settings=settings, stopping=stopping
                    )

                return await shell.run({"binder": binder})
        finally:
            await kube.close()

    return asyncio.run(main())
