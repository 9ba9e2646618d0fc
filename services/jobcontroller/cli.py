"""``shoal run jobcontroller``: reconcile batch/v1 Jobs, Volcano Jobs and PyTorchJobs."""

from __future__ import annotations

import argparse
import asyncio


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.jobcontroller.service import (
        JobControllerSettings,
        check_settings,
        run_jobcontroller,
    )
    from shared.bus.kafka import KafkaBus
    from shared.config import load_settings
    from shared.kube import KubeClient
    from shared.service import ServiceShell

    shell = ServiceShell.from_env("jobcontroller")
    settings = load_settings(JobControllerSettings, prefix="SHOAL_JOBCONTROLLER_")
    check_settings(settings)

    async def main() -> int:
        kube = await KubeClient.connect(args.kubeconfig or shell.kube.kubeconfig or None)
        try:
            async with KafkaBus(settings=shell.kafka) as bus:

                async def jobcontroller(stopping: asyncio.Event) -> None:
                    await run_jobcontroller(
                        shell=shell, bus=bus, kube=kube, settings=settings, stopping=stopping
                    )

                return await shell.run({"jobcontroller": jobcontroller})
        finally:
            await kube.close()

    return asyncio.run(main())
