"""``shoal bench client``: what one API call costs the client, per HTTP stack.

Starts only the API server of the chosen control plane (kubesim over HTTP, or etcd +
kube-apiserver over TLS with client certificates) and drives it from this process with
``KubeClient``: ``--calls`` calls (ConfigMap creates and gets, ``--concurrency`` at a time),
once through aiohttp's session and once through the lean pool (``shared.kube.transport``),
``--rounds`` times alternating. Reports the client's CPU per call (``time.process_time``: this
process only, the server excluded) and calls/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from services.cli import controlplane
from shared.errors import UserError

Json = dict[str, Any]
NAMESPACE = "bench-client"
STACKS = ("aiohttp", "lean")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--calls", type=int, default=3000, help="API calls per stack and round")
    parser.add_argument("--concurrency", type=int, default=16, help="calls in flight")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both stacks")
    controlplane.add_argument(parser)
    parser.add_argument("--workdir", type=Path, help="logs (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@asynccontextmanager
async def _api_server(plane: str, workdir: Path) -> AsyncIterator[Path]:
    """The kubeconfig of a running API server of ``plane``, stopped on exit."""
    if plane == "real":
        from services.cli.controlplane.real import RealConfig, RealControlPlane

        real = RealControlPlane(RealConfig(workdir=workdir, nodes=1, etcd_fsync=False))
        try:
            await real.start(timeout=300)
            yield real.kubeconfig
        finally:
            real.stop()
    else:
        from services.kubesim.process import KubeSimProcess  # its own process: not our CPU

        async with KubeSimProcess(["--nodes", "1"]) as sim:
            yield sim.kubeconfig_path


async def _round(kube: Any, label: str, calls: int, concurrency: int) -> tuple[float, float]:
    """(client CPU µs per call, calls/s) of ``calls`` creates-and-gets named ``label-*``."""
    from shared.kube import resource_for

    configmap = resource_for("v1", "ConfigMap")
    slots = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with slots:
            body = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"{label}-{i}", "namespace": NAMESPACE},
                "data": {"key": "v" * 200},
            }
            await kube.create(configmap, body, namespace=NAMESPACE)
            await kube.get(configmap, f"{label}-{i}", NAMESPACE)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls // 2)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    done = 2 * (calls // 2)
    return 1e6 * cpu / done, done / wall


async def bench(args: argparse.Namespace) -> Json:
    from shared.kube import KubeClient, resource_for

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-bench-client-"))
    results: dict[str, list[tuple[float, float]]] = {stack: [] for stack in STACKS}
    async with _api_server(args.control_plane, workdir) as kubeconfig:
        kube = await KubeClient.connect(str(kubeconfig))
        lean = kube.lean_pool
        if lean is None:
            raise UserError("this API server is reached through a proxy: no lean pool")
        try:
            namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            await kube.create(resource_for("v1", "Namespace"), namespace)
            for n in range(args.rounds):
                for stack in STACKS:
                    kube.lean_pool = lean if stack == "lean" else None
                    label = f"{stack}-{n}"
                    results[stack].append(await _round(kube, label, args.calls, args.concurrency))
        finally:
            kube.lean_pool = lean
            await kube.close()
    return {
        "control_plane": args.control_plane,
        "calls": args.calls,
        "concurrency": args.concurrency,
        "stacks": {
            stack: {
                "cpu_us_per_call": [round(cpu) for cpu, _ in rounds],
                "calls_per_s": [round(rate) for _, rate in rounds],
                "median_cpu_us_per_call": round(statistics.median(c for c, _ in rounds)),
            }
            for stack, rounds in results.items()
        },
        "workdir": str(workdir),
    }


def render(result: Json) -> str:
    lines = [
        f"shoal bench client: {result['calls']} calls per round, "
        f"{result['concurrency']} in flight, {result['control_plane']} API server"
    ]
    for stack, figures in result["stacks"].items():
        lines.append(
            f"  {stack:8} client CPU per call {figures['cpu_us_per_call']} µs "
            f"(median {figures['median_cpu_us_per_call']}), calls/s {figures['calls_per_s']}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.calls < 2 or args.concurrency < 1 or args.rounds < 1:
        raise UserError("--calls must be at least 2, --concurrency and --rounds at least 1")
    result = asyncio.run(bench(args))
    print(json.dumps(result) if args.json else render(result))
    return 0
