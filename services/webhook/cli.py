"""``shoal run webhook`` (also ``python -m services.webhook`` and ``shoal-webhook``): serve the
admission and conversion webhooks over HTTPS. It needs no broker."""

from __future__ import annotations

import argparse
import asyncio
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.webhook.service import WebhookSettings, run_webhook
    from shared.config import KafkaSettings, ServiceSettings, load_settings
    from shared.kube import KubeClient
    from shared.logging import configure_logging
    from shared.runtime import run_loop
    from shared.service import KubeSettings, ServiceShell

    service = load_settings(ServiceSettings)
    settings = load_settings(WebhookSettings, prefix="SHOAL_WEBHOOK_")
    configure_logging(level=service.log_level, fmt=service.log_format)
    kubeconfig = args.kubeconfig or os.environ.get("KUBECONFIG", "")
    shell = ServiceShell(
        service="webhook",
        settings=service,
        kafka=KafkaSettings(),  # the webhook talks to no broker
        kube=KubeSettings(kubeconfig=kubeconfig),
    )

    async def main() -> int:
        kube = await KubeClient.connect(kubeconfig or None)
        try:

            async def body(stopping: asyncio.Event) -> None:
                await run_webhook(shell=shell, kube=kube, settings=settings, stopping=stopping)

            return await shell.run({"webhook": body})
        finally:
            await kube.close()

    return run_loop(main(), loop=service.event_loop)
