from __future__ import annotations

import aiohttp
from prometheus_client import CollectorRegistry, Counter

from shared.health import Readiness, start_health_server


async def test_endpoints_report_liveness_readiness_and_own_metrics() -> None:
    registry = CollectorRegistry()
    Counter("shoal_test_records", "records seen", registry=registry).inc(3)
    readiness = Readiness()
    server = await start_health_server(
        registry=registry, readiness=readiness, port=0, host="127.0.0.1"
    )
    base = f"http://127.0.0.1:{server.port}"
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base}/healthz") as r:
                assert r.status == 200
            async with http.get(f"{base}/readyz") as r:
                assert (r.status, await r.text()) == (503, "starting\n")
            readiness.mark_ready()
            async with http.get(f"{base}/readyz") as r:
                assert r.status == 200
            async with http.get(f"{base}/metrics") as r:
                body = await r.text()
            assert "shoal_test_records_total 3.0" in body
            assert "python_gc" not in body  # not the global default registry
    finally:
        await server.stop()
