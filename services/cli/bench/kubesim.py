"""``shoal bench kubesim``: what one kubesim process serves.

kubesim runs in its own process (``KubeSimProcess``) with N nodes; this process drives it over
HTTP with several concurrent aiohttp clients: create P pods, then bind them all (round-robin
over the nodes; the simulated kubelet then starts each one, a second write), while W watchers
stream every pod event. Reports creates/s, binds/s, watch events/s delivered, the time to list
all pods, and the server's RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nodes", type=int, default=5000, help="simulated nodes (default 5000)")
    parser.add_argument("--pods", type=int, default=50000, help="pods to create and bind")
    parser.add_argument("--clients", type=int, default=16, help="concurrent HTTP requests")
    parser.add_argument("--watchers", type=int, default=4, help="pod watch streams")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def _pod_body(i: int) -> bytes:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"bench-{i}", "labels": {"app": "bench", "shard": str(i % 16)}},
        "spec": {
            "schedulerName": "shoal",
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "main",
                    "image": "busybox",
                    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                }
            ],
        },
    }
    return json.dumps(pod).encode()


def _bind_body(i: int, node: str) -> bytes:
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": f"bench-{i}"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }
    return json.dumps(binding).encode()


async def _drive(
    count: int, clients: int, request: Callable[[int], Awaitable[int]]
) -> tuple[float, int]:
    """Run request(i) for i in range(count) with ``clients`` in flight; (seconds, failures)."""
    next_index = 0
    failures = 0

    async def worker() -> None:
        nonlocal next_index, failures
        while next_index < count:
            i = next_index
            next_index += 1
            if await request(i) >= 300:
                failures += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return time.perf_counter() - start, failures


async def _watch(session: Any, url: str, rv: str, counter: list[int], ready: asyncio.Event) -> None:
    async with session.get(url, params={"watch": "true", "resourceVersion": rv}) as resp:
        ready.set()
        async for chunk in resp.content.iter_any():
            counter[0] += chunk.count(b"\n")


async def _bench(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp

    from services.kubesim.process import KubeSimProcess

    async with KubeSimProcess(["--nodes", str(args.nodes)], start_timeout=300) as sim:
        base = f"{sim.url}/api/v1/namespaces/default/pods"
        headers = {"Content-Type": "application/json"}
        connector = aiohttp.TCPConnector(limit=args.clients + args.watchers + 4)
        timeout = aiohttp.ClientTimeout(total=None)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            rss_idle = sim.rss_bytes()
            bodies = [_pod_body(i) for i in range(args.pods)]

            async def create(i: int) -> int:
                async with session.post(base, data=bodies[i], headers=headers) as resp:
                    await resp.read()
                    return resp.status

            create_s, create_failures = await _drive(args.pods, args.clients, create)
            async with session.get(base, params={"limit": "1"}) as resp:
                rv = json.loads(await resp.read())["metadata"]["resourceVersion"]
            counters = [[0] for _ in range(args.watchers)]
            ready = [asyncio.Event() for _ in range(args.watchers)]
            watches = [
                asyncio.create_task(_watch(session, f"{sim.url}/api/v1/pods", rv, c, r))
                for c, r in zip(counters, ready, strict=True)
            ]
            await asyncio.gather(*(r.wait() for r in ready))
            nodes = [f"node-{i % args.nodes}" for i in range(args.pods)]
            binds = [_bind_body(i, nodes[i]) for i in range(args.pods)]

            async def bind(i: int) -> int:
                url = f"{base}/bench-{i}/binding"
                async with session.post(url, data=binds[i], headers=headers) as resp:
                    await resp.read()
                    return resp.status

            watch_start = time.perf_counter()
            bind_s, bind_failures = await _drive(args.pods, args.clients, bind)
            # Wait for the watchers to see every bind and every Running status (2 per pod).
            expected = 2 * args.pods
            while min(c[0] for c in counters) < expected:
                if time.perf_counter() - watch_start > bind_s + 120:
                    break
                await asyncio.sleep(0.05)
            watch_s = time.perf_counter() - watch_start
            delivered = sum(c[0] for c in counters)
            for task in watches:
                task.cancel()
            await asyncio.gather(*watches, return_exceptions=True)
            start = time.perf_counter()
            async with session.get(f"{sim.url}/api/v1/pods") as resp:
                listed = len(json.loads(await resp.read())["items"])
            list_s = time.perf_counter() - start
            rss_loaded = sim.rss_bytes()
    return {
        "nodes": args.nodes,
        "pods": args.pods,
        "clients": args.clients,
        "watchers": args.watchers,
        "creates_per_s": round(args.pods / create_s, 1),
        "create_failures": create_failures,
        "binds_per_s": round(args.pods / bind_s, 1),
        "bind_failures": bind_failures,
        "watch_events_per_s": round(delivered / watch_s, 1),
        "watch_events": delivered,
        "list_all_pods_s": round(list_s, 3),
        "listed": listed,
        "rss_idle_mib": round(rss_idle / 2**20, 1),
        "rss_loaded_mib": round(rss_loaded / 2**20, 1),
    }


def run(args: argparse.Namespace) -> int:
    results = asyncio.run(_bench(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"kubesim: {args.nodes} nodes, {args.pods} pods")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in results.items():
        table.add_row(key, str(value))
    Console().print(table)
    return 0
