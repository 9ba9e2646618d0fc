"""One small aiohttp app per service: Prometheus `/metrics`, `/healthz`, `/readyz`.

The registry is the service's own `CollectorRegistry`, passed in (never the global default), so
tests and several in-process services do not share counters. `/readyz` answers 200 only once the
service has marked itself ready, i.e. after its cache was rebuilt from the log.
"""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest


class Readiness:
    """A flag the service flips once it can act (cache rebuilt) and back while it cannot."""

    def __init__(self) -> None:
        self._ready = False
        self.reason = "starting"

    @property
    def ready(self) -> bool:
        return self._ready

    def mark_ready(self) -> None:
        self._ready, self.reason = True, "ready"

    def mark_not_ready(self, reason: str) -> None:
        self._ready, self.reason = False, reason


def build_app(*, registry: CollectorRegistry, readiness: Readiness) -> web.Application:
    async def metrics(request: web.Request) -> web.Response:
        body = generate_latest(registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(request: web.Request) -> web.Response:
        status = 200 if readiness.ready else 503
        return web.Response(status=status, text=f"{readiness.reason}\n")

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    return app


class HealthServer:
    """The running app; `port` is the bound port (useful when started with port 0)."""

    def __init__(self, runner: web.AppRunner, port: int) -> None:
        self._runner = runner
        self.port = port

    async def stop(self) -> None:
        await self._runner.cleanup()


async def start_health_server(
    *,
    registry: CollectorRegistry,
    readiness: Readiness,
    port: int,
    host: str = "127.0.0.1",
) -> HealthServer:
    runner = web.AppRunner(build_app(registry=registry, readiness=readiness), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound: int = runner.addresses[0][1] if runner.addresses else port
    return HealthServer(runner, bound)
