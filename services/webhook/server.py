"""The HTTPS server: one POST route per webhook path and the conversion path.

It never fails on what it is sent: a body over ``MAX_BODY_BYTES`` is 413 (aiohttp's
``client_max_size``), a body that is not JSON or not a review is 400, an unknown path is 404, a
review its webhook does not serve is answered ``allowed: false``. A cluster read that fails is
answered ``allowed: false`` too (the write fails, as with ``failurePolicy: Fail``).
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Histogram

from services.webhook.core.queues import ClusterView
from services.webhook.core.review import (
    ReviewError,
    admission_request_of,
    deny_admission,
    review_admission,
    review_conversion,
)
from services.webhook.core.webhooks import CONVERSION_PATH, WEBHOOKS, Webhook

Obj = dict[str, Any]
# kube-apiserver's own limit on a request body (3 MiB) bounds what it sends a webhook.
MAX_BODY_BYTES = 3 * 1024 * 1024
Reader = Callable[[Webhook, Obj], Awaitable[ClusterView]]
log = structlog.get_logger()


class _Metrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.reviews = Counter(
            "shoal_webhook_reviews",
            "reviews answered, by webhook and verdict",
            ["webhook", "allowed"],
            registry=registry,
        )
        self.rejected = Counter(
            "shoal_webhook_bad_requests",
            "requests refused before review",
            ["code"],
            registry=registry,
        )
        self.seconds = Histogram(
            "shoal_webhook_review_seconds",
            "time to answer one review",
            ["webhook"],
            registry=registry,
        )


def _bad_request(metrics: _Metrics, message: str) -> web.Response:
    metrics.rejected.labels(code="400").inc()
    return web.json_response({"message": message}, status=400)


async def _body(request: web.Request, metrics: _Metrics) -> Any:
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        metrics.rejected.labels(code="413").inc()
        raise
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReviewError(f"the body is not JSON: {error}") from error


def _admission_handler(
    webhook: Webhook, read: Reader, metrics: _Metrics
) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        started = time.perf_counter()
        try:
            review = await _body(request, metrics)
            admission = admission_request_of(review)
            try:
                cluster = await read(webhook, admission)
            except Exception as error:  # the API server unreachable, a denied read, ...
                log.warning("cannot read the cluster", webhook=webhook.name, error=repr(error))
                message = f"webhook {webhook.name} cannot read the cluster: {error}"
                answer = deny_admission(review, message, code=500)
            else:
                answer = review_admission(webhook, review, cluster)
        except ReviewError as error:
            return _bad_request(metrics, str(error))
        allowed = bool(answer["response"].get("allowed"))
        metrics.reviews.labels(webhook=webhook.name, allowed=str(allowed).lower()).inc()
        metrics.seconds.labels(webhook=webhook.name).observe(time.perf_counter() - started)
        return web.json_response(answer)

    return handle


def _conversion_handler(metrics: _Metrics) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        started = time.perf_counter()
        try:
            answer = review_conversion(await _body(request, metrics))
        except ReviewError as error:
            return _bad_request(metrics, str(error))
        ok = answer["response"]["result"]["status"] == "Success"
        metrics.reviews.labels(webhook="conversion", allowed=str(ok).lower()).inc()
        metrics.seconds.labels(webhook="conversion").observe(time.perf_counter() - started)
        return web.json_response(answer)

    return handle


def build_app(*, read: Reader, registry: CollectorRegistry) -> web.Application:
    metrics = _Metrics(registry)
    app = web.Application(client_max_size=MAX_BODY_BYTES)
    for webhook in WEBHOOKS:
        app.router.add_post(webhook.path, _admission_handler(webhook, read, metrics))
    app.router.add_post(CONVERSION_PATH, _conversion_handler(metrics))
    return app


def server_ssl_context(cert_file: str, key_file: str) -> ssl.SSLContext:
    """TLS 1.2+ with the serving certificate (kube-apiserver speaks TLS 1.2 and 1.3)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert_file, key_file)
    return context


class WebhookServer:
    """The running HTTPS server; ``port`` is the bound port (useful when started on port 0)."""

    def __init__(self, runner: web.AppRunner, port: int) -> None:
        self._runner = runner
        self.port = port

    async def stop(self) -> None:
        await self._runner.cleanup()


async def start_server(
    app: web.Application, *, host: str, port: int, context: ssl.SSLContext
) -> WebhookServer:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=context)
    await site.start()
    bound: int = runner.addresses[0][1] if runner.addresses else port
    return WebhookServer(runner, bound)
