"""``shoal bench idle``: what the whole stack costs at rest, and how fast it wakes up.

Starts the local stack as ``shoal up --no-demo`` does (embedded broker, kubesim, the four
services), lets it settle, then measures the CPU time each process (the broker included) uses
over ``--seconds`` with nothing submitted. Then one Volcano Job is created and timed until its
last pod is seen bound: the first job after a quiet period must not pay for the saving.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from services.cli import controlplane
from services.cli.bench.e2e import NAMESPACE, Binding, job_manifest, watch_pods
from shared.errors import UserError

Json = dict[str, Any]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=60, help="length of the idle period")
    parser.add_argument("--settle", type=float, default=10, help="wait after start-up (s)")
    parser.add_argument("--pods", type=int, default=10, help="pods of the job after the period")
    controlplane.add_argument(parser)
    parser.add_argument("--workdir", type=Path, help="logs (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--profile", type=Path, help="write a sampled stack profile of each process here"
    )


async def bench(args: argparse.Namespace) -> Json:
    from services.cli.stack import Stack, StackConfig
    from shared.kube import KubeClient, resource_for

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-bench-idle-"))
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    config = StackConfig(
        workdir=workdir, control_plane=args.control_plane, profile_dir=args.profile
    )
    stack = Stack(config)
    try:
        await stack.start(timeout=300)
        kube = await KubeClient.connect(str(stack.kubeconfig))
        try:
            namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            await kube.create(resource_for("v1", "Namespace"), namespace)
            binding = Binding(pods_per_job=args.pods)
            watching = asyncio.create_task(watch_pods(kube, binding.observe))
            await asyncio.sleep(args.settle)
            if args.profile:  # the sampled profiles cover the idle period only
                stack.signal_all(signal.SIGUSR2)
            before, started = stack.cpu(), time.monotonic()
            await asyncio.sleep(args.seconds)
            after, seconds = stack.cpu(), time.monotonic() - started
            name = "after-idle"
            binding.waiters[name] = asyncio.Event()
            binding.created[name] = time.monotonic()
            vcjob = resource_for("batch.volcano.sh/v1alpha1", "Job")
            await kube.create(vcjob, job_manifest(name, args.pods))
            await asyncio.wait_for(binding.waiters[name].wait(), 60)
            first_job = binding.complete[name] - binding.created[name]
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watching
        finally:
            await kube.close()
        share = {k: 100 * (v - before.get(k, 0.0)) / seconds for k, v in after.items()}
        return {
            "control_plane": args.control_plane,
            "seconds": round(seconds, 1),
            "cpu_percent_of_one_core": {k: round(v, 2) for k, v in share.items()},
            "cpu_percent_total": round(sum(share.values()), 2),
            "first_job_after_idle_s": round(first_job, 3),
            "workdir": str(workdir),
        }
    finally:
        stack.stop(grace=10)


def render(result: Json) -> str:
    parts = ", ".join(f"{k} {v}%" for k, v in result["cpu_percent_of_one_core"].items())
    return "\n".join(
        [
            f"shoal bench idle: {result['seconds']} s at rest",
            f"  CPU          {result['cpu_percent_total']}% of one core in all (target <= 5%)",
            f"  per process  {parts}",
            f"  first job    bound {result['first_job_after_idle_s']} s after its creation "
            "(target <= 0.5 s)",
            f"  logs         {result['workdir']}/logs",
        ]
    )


def run(args: argparse.Namespace) -> int:
    if args.seconds <= 0 or args.pods < 1:
        raise UserError("--seconds must be positive and --pods at least 1")
    result = asyncio.run(bench(args))
    print(json.dumps(result) if args.json else render(result))
    return 0
