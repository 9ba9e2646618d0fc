"""The common shell of every Shoal service: settings, logging, health/metrics, bus, run loop.

A service builds its root tasks from a ``ServiceShell`` and hands them to ``shell.run``; the
shell serves ``/metrics`` ``/healthz`` ``/readyz`` for the whole life of the process and stops
everything on SIGTERM within ``SHOAL_SHUTDOWN_GRACE``. ``shell.per_generation`` wraps a service
body so that it is run afresh when the broker loses its log (``shared.recovery``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Mapping
from typing import Annotated, Protocol

import msgspec
import structlog
from msgspec import Meta
from prometheus_client import CollectorRegistry

from shared.bus import Bus
from shared.bus.generation import GenerationLog
from shared.config import KafkaSettings, ServiceSettings, load_settings
from shared.errors import UserError
from shared.health import Readiness, start_health_server
from shared.kube import KubeClient
from shared.logging import configure_logging
from shared.recovery import run_per_generation
from shared.runtime import RootTask, close_within, run_loop, run_service
from shared.topics import Topics


class KubeSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How a service reaches the API server."""

    kubeconfig: Annotated[
        str, Meta(description="kubeconfig path; empty means in-cluster or ~/.kube/config")
    ] = ""


class ServiceShell:
    """Everything a service needs before it can build its root tasks."""

    def __init__(
        self,
        *,
        service: str,
        settings: ServiceSettings,
        kafka: KafkaSettings,
        kube: KubeSettings,
    ) -> None:
        self.service = service
        self.settings = settings
        self.kafka = kafka
        self.kube = kube
        self.topics = Topics(prefix=kafka.topic_prefix)
        self.metrics_root = CollectorRegistry()  # what /metrics serves, for the whole process
        self.registry = CollectorRegistry()  # the current body's metrics
        self.metrics_root.register(self.registry)
        self.readiness = Readiness()
        self.log = structlog.get_logger().bind(service=service)
        self.generations: GenerationLog | None = None
        self.generation = ""

    def fresh_metrics(self) -> None:
        """A new registry for the next body (a re-run body registers its metrics again)."""
        self.metrics_root.unregister(self.registry)
        self.registry = CollectorRegistry()
        self.metrics_root.register(self.registry)

    def per_generation(self, bus: Bus, body: RootTask, *, waits_for_state: bool = True) -> RootTask:
        """``body`` as a root task that is re-run from scratch when the broker loses its log;
        ``waits_for_state``: after a loss, rebuild only once the watcher resynced the state."""
        generations = GenerationLog(bus, self.topics.generation, producer=self.service)
        self.generations = generations

        async def root(stopping: asyncio.Event) -> None:
            await run_per_generation(
                host=self,
                generations=generations,
                body=body,
                stopping=stopping,
                waits_for_state=waits_for_state,
                period=self.settings.broker_check_period,
                resync_timeout=self.settings.resync_timeout,
            )

        return root

    async def state_resynced(self) -> None:
        """Tell the other services that the state topics hold every object (the watcher, after
        listing everything). Retried with backoff for up to ``resync_timeout``: the others wait
        that long for the mark before they rebuild anyway, and a broker just back from a restart
        can refuse the first writes."""
        if self.generations is None or not self.generation:
            return
        deadline = time.monotonic() + self.settings.resync_timeout
        delay = 0.1
        while True:
            try:
                await self.generations.mark_resynced(self.generation)
                return
            except Exception as exc:
                if time.monotonic() + delay > deadline:
                    self.log.warning("cannot mark the state topics resynced", error=repr(exc))
                    return
                self.log.info("marking the state topics resynced again", error=repr(exc))
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    @classmethod
    def from_env(cls, service: str, environ: Mapping[str, str] = os.environ) -> ServiceShell:
        settings = load_settings(ServiceSettings, environ)
        kafka = load_settings(KafkaSettings, environ)
        kube = KubeSettings(kubeconfig=environ.get("KUBECONFIG", ""))
        if not kafka.bootstrap:
            raise UserError("KAFKA_BOOTSTRAP is not set: services need a Kafka bootstrap address")
        configure_logging(level=settings.log_level, fmt=settings.log_format)
        return cls(service=service, settings=settings, kafka=kafka, kube=kube)

    async def run(self, tasks: Mapping[str, RootTask]) -> int:
        server = await start_health_server(
            registry=self.metrics_root,
            readiness=self.readiness,
            port=self.settings.http_port,
            host=self.settings.http_host,
        )
        self.log.info(
            "service starting",
            http=f"{self.settings.http_host}:{server.port}",
            bootstrap=self.kafka.bootstrap,
        )
        try:
            return await run_service(
                service=self.service, tasks=tasks, grace_s=self.settings.shutdown_grace
            )
        finally:
            await close_within(server.stop(), what="health server stop")


class KubeServiceMain(Protocol):
    """The body of a service that talks to Kafka and the API server; returns when stopping."""

    def __call__(
        self, *, shell: ServiceShell, bus: Bus, kube: KubeClient, stopping: asyncio.Event
    ) -> Awaitable[None]: ...


def run_kube_service(
    shell: ServiceShell,
    body: KubeServiceMain,
    kubeconfig: str | None,
    *,
    waits_for_state: bool = True,
) -> int:
    """Run ``body`` as the service's one root task with a Kafka bus and an API client, afresh
    in each log generation (see ``ServiceShell.per_generation``)."""
    from shared.bus.kafka import KafkaBus

    async def main() -> int:
        kube = await KubeClient.connect(kubeconfig or shell.kube.kubeconfig or None)
        try:
            async with KafkaBus(settings=shell.kafka) as bus:

                async def once(stopping: asyncio.Event) -> None:
                    await body(shell=shell, bus=bus, kube=kube, stopping=stopping)

                root = shell.per_generation(bus, once, waits_for_state=waits_for_state)
                return await shell.run({shell.service: root})
        finally:
            await close_within(kube.close(), what="API client close")

    return run_loop(main(), loop=shell.settings.event_loop)
