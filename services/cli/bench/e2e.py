"""``shoal bench e2e``: job created → all pods bound, through Kafka, kubesim and the four services.

Starts the whole local stack (embedded broker, kubesim with ``--nodes`` simulated nodes, the
four services as processes), then measures two things against architecture §7:

- light load: jobs submitted one by one (each after the previous one's gang is bound); the
  latency from the job's create call to the moment its last pod was seen with a nodeName;
- throughput: ``--jobs`` Volcano Jobs of ``--pods-per-job`` pods created as fast as the API
  takes them; pods/s from the first create call to the last pod bound, and the same per-job
  latency (p50/p99), which then includes queueing behind the other jobs.

Pods carry no duration, so they keep running: the benchmark measures binding, not completion.
Binding is observed through a pod watch, as a user would see it. RSS per process is sampled.
Per hop of the chain (``shared.hops``), the services' own histograms give the p50/p99 time
spent and their gauges the queue depth, for the light-load run and for the burst.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from services.cli import controlplane
from services.cli.bench.hops import (
    DepthSampler,
    difference,
    hop_buckets,
    render_rows,
    scrape,
    slowest,
    table,
)
from shared.errors import UserError

Json = dict[str, Any]
NAMESPACE = "bench"
JOB_LABEL = "volcano.sh/job-name"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=1000, help="Volcano Jobs in the burst")
    parser.add_argument("--pods-per-job", type=int, default=10, help="gang size of each job")
    parser.add_argument("--nodes", type=int, default=1000, help="simulated nodes")
    parser.add_argument("--node-cpu", default="32", help="CPUs per node (pods request 1)")
    parser.add_argument("--light-jobs", type=int, default=20, help="jobs of the light-load run")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent create calls")
    parser.add_argument("--timeout", type=float, default=600, help="deadline of the burst (s)")
    controlplane.add_argument(parser)
    parser.add_argument("--workdir", type=Path, help="logs (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--runs", type=int, default=1, help="runs in a row, each on a fresh stack (min/median/max)"
    )
    parser.add_argument(
        "--profile", type=Path, help="write a sampled stack profile of each process here"
    )


@dataclass
class Binding:
    """Per job: when its create call started and when each of its pods was first seen bound."""

    pods_per_job: int
    created: dict[str, float] = field(default_factory=dict)
    seen: dict[str, float] = field(default_factory=dict)  # pod name → first seen (created)
    bound: dict[str, dict[str, float]] = field(default_factory=dict)
    complete: dict[str, float] = field(default_factory=dict)
    waiters: dict[str, asyncio.Event] = field(default_factory=dict)

    def observe(self, pod: Json, now: float) -> None:
        meta = pod.get("metadata") or {}
        job = (meta.get("labels") or {}).get(JOB_LABEL)
        if not job:
            return
        self.seen.setdefault(str(meta.get("name")), now)
        if not (pod.get("spec") or {}).get("nodeName"):
            return
        pods = self.bound.setdefault(job, {})
        pods.setdefault(str(meta.get("name")), now)
        if len(pods) >= self.pods_per_job and job not in self.complete:
            self.complete[job] = now
            if job in self.waiters:
                self.waiters[job].set()

    def latencies(self, jobs: list[str]) -> list[float]:
        return [self.complete[j] - self.created[j] for j in jobs if j in self.complete]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def job_manifest(name: str, pods: int) -> Json:
    container = {
        "name": "work",
        "image": "busybox:1.36",
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
    }
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "minAvailable": pods,
            "schedulerName": "volcano",
            "queue": "default",
            "tasks": [
                {
                    "name": "w",
                    "replicas": pods,
                    "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
                }
            ],
        },
    }


async def watch_pods(
    kube: Any, observe: Callable[[Json, float], None], namespace: str = NAMESPACE
) -> None:
    """Show ``observe`` every pod of ``namespace`` and each change to one, with when it was
    seen, until cancelled (re-listing after a broken watch)."""
    from shared.kube import ApiError, resource_for

    pod_rt = resource_for("v1", "Pod")
    while True:
        try:
            items, version = await kube.list_all(pod_rt, namespace=namespace)
            for pod in items:
                observe(pod, time.monotonic())
            async for _, pod in kube.watch(
                pod_rt, resource_version=version, namespace=namespace, inactivity_timeout=30
            ):
                observe(pod, time.monotonic())
        except (ApiError, OSError, TimeoutError):
            await asyncio.sleep(0.2)


async def _light(kube: Any, binding: Binding, count: int, pods: int) -> list[float]:
    from shared.kube import resource_for

    vcjob = resource_for("batch.volcano.sh/v1alpha1", "Job")
    names = [f"light-{i}" for i in range(count)]
    for name in names:
        binding.waiters[name] = asyncio.Event()
        binding.created[name] = time.monotonic()
        await kube.create(vcjob, job_manifest(name, pods))
        await asyncio.wait_for(binding.waiters[name].wait(), 60)
        await asyncio.sleep(0.2)  # light load: the system is idle when the next job arrives
    return binding.latencies(names)


async def _burst(kube: Any, binding: Binding, args: argparse.Namespace) -> tuple[float, float]:
    """Create every job; (first create time, last pod bound time)."""
    from shared.kube import resource_for

    vcjob = resource_for("batch.volcano.sh/v1alpha1", "Job")
    names = [f"job-{i}" for i in range(args.jobs)]
    queue: asyncio.Queue[str] = asyncio.Queue()
    for name in names:
        queue.put_nowait(name)

    async def creator() -> None:
        while not queue.empty():
            name = queue.get_nowait()
            binding.created[name] = time.monotonic()
            await kube.create(vcjob, job_manifest(name, args.pods_per_job))

    started = time.monotonic()
    await asyncio.gather(*(creator() for _ in range(args.concurrency)))
    created_in = time.monotonic() - started
    deadline = started + args.timeout
    while time.monotonic() < deadline and not all(n in binding.complete for n in names):
        await asyncio.sleep(0.1)
    done = [binding.complete[n] for n in names if n in binding.complete]
    print(f"  created {args.jobs} jobs in {created_in:.1f}s; {len(done)} fully bound")
    return started, max(done, default=started)


async def bench(args: argparse.Namespace) -> Json:
    from services.cli.stack import Stack, StackConfig
    from shared.kube import KubeClient, resource_for

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-bench-e2e-"))
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    config = StackConfig(
        workdir=workdir,
        control_plane=args.control_plane,
        nodes=args.nodes,
        node_cpu=args.node_cpu,
        profile_dir=args.profile,
    )
    stack = Stack(config)
    rss_peak: dict[str, float] = {}
    try:
        await stack.start(timeout=300)
        kube = await KubeClient.connect(str(stack.kubeconfig))
        binding = Binding(pods_per_job=args.pods_per_job)
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        await kube.create(resource_for("v1", "Namespace"), namespace)
        watching = asyncio.create_task(watch_pods(kube, binding.observe))

        async def sample_rss() -> None:
            while True:
                for name, mib in stack.rss().items():
                    if mib is not None:
                        rss_peak[name] = max(rss_peak.get(name, 0.0), mib)
                await asyncio.sleep(1)

        sampling = asyncio.create_task(sample_rss())
        ports = {n: p.health_port for n, p in stack.services.items() if p.health_port}
        light_depths = DepthSampler(ports)
        burst_depths = DepthSampler(ports)
        try:
            print(f"light load: {args.light_jobs} jobs of {args.pods_per_job} pods, one by one")
            at_start = hop_buckets(await scrape(ports))
            depth_task = asyncio.create_task(light_depths.run())
            light = await _light(kube, binding, args.light_jobs, args.pods_per_job)
            depth_task.cancel()
            after_light = hop_buckets(await scrape(ports))
            print(f"burst: {args.jobs} jobs x {args.pods_per_job} pods on {args.nodes} nodes")
            depth_task = asyncio.create_task(burst_depths.run())
            if args.profile:  # the sampled profiles start here (services.cli.bench.sampling)
                stack.signal_all(signal.SIGUSR2)
            cpu_before, client_before = stack.cpu(), time.process_time()
            started, last_bound = await _burst(kube, binding, args)
            cpu_burst = {k: v - cpu_before.get(k, 0.0) for k, v in stack.cpu().items()}
            client_cpu = time.process_time() - client_before
            depth_task.cancel()
            after_burst = hop_buckets(await scrape(ports))
        finally:
            watching.cancel()
            sampling.cancel()
            await kube.close()
        light_hops = table(difference(at_start, after_light), light_depths.samples)
        burst_hops = table(difference(after_light, after_burst), burst_depths.samples)
        burst = [f"job-{i}" for i in range(args.jobs)]
        bound_pods = sum(len(binding.bound.get(n, {})) for n in burst)
        latencies = binding.latencies(burst)
        seconds = max(last_bound - started, 1e-9)
        # Where the time goes: pods appearing (job controller) vs pod appeared → bound (scheduler,
        # binder). Both through the same watch, so they share its delay.
        appeared = [t for name, t in binding.seen.items() if name.startswith("job-")]
        waits = [
            bound - binding.seen[pod]
            for job in burst
            for pod, bound in binding.bound.get(job, {}).items()
            if pod in binding.seen
        ]
        created_for = max(max(appeared, default=started) - started, 1e-9)
        return {
            "control_plane": args.control_plane,
            "nodes": args.nodes,
            "jobs": args.jobs,
            "pods_per_job": args.pods_per_job,
            "pods_bound": bound_pods,
            "seconds": round(seconds, 2),
            "pods_per_s": round(bound_pods / seconds, 1),
            "job_to_bound_p50_s": round(percentile(latencies, 0.5), 3),
            "job_to_bound_p99_s": round(percentile(latencies, 0.99), 3),
            "pods_created_per_s": round(len(appeared) / created_for, 1),
            "pod_created_to_bound_p50_s": round(percentile(waits, 0.5), 3),
            "pod_created_to_bound_p99_s": round(percentile(waits, 0.99), 3),
            "light_jobs": args.light_jobs,
            "light_p50_s": round(statistics.median(light), 3) if light else None,
            "light_max_s": round(max(light), 3) if light else None,
            "light_first_s": round(light[0], 3) if light else None,
            "hops_light": [asdict(r) for r in light_hops],
            "hops_burst": [asdict(r) for r in burst_hops],
            "slowest_hop_burst": slowest(burst_hops),
            "cpu_s_burst": {k: round(v, 1) for k, v in cpu_burst.items()},
            # The client (creates, the pod watch) shares the cores: not the stack's, but not free.
            "client_cpu_s_burst": round(client_cpu, 1),
            "rss_mib_at_end": {k: round(v or 0.0, 1) for k, v in stack.rss().items()},
            "rss_mib_peak": {k: round(v, 1) for k, v in rss_peak.items()},
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "workdir": str(workdir),
        }
    finally:
        stack.stop(grace=10)


def render(result: Json) -> str:
    lines = [
        f"shoal bench e2e: {result['jobs']} jobs x {result['pods_per_job']} pods "
        f"on {result['nodes']} nodes ({result.get('control_plane', 'kubesim')} control plane)",
        f"  throughput   {result['pods_per_s']:>9} pods/s "
        f"({result['pods_bound']} pods bound in {result['seconds']} s; target >= 1000)",
        f"  burst        p50 {result['job_to_bound_p50_s']} s, p99 {result['job_to_bound_p99_s']} s"
        " (job created -> last pod bound)",
        f"  stages       pods created {result['pods_created_per_s']}/s (job controller); pod "
        f"created -> bound p50 {result['pod_created_to_bound_p50_s']} s, "
        f"p99 {result['pod_created_to_bound_p99_s']} s (scheduler + binder)",
        f"  light load   p50 {result['light_p50_s']} s, max {result['light_max_s']} s over "
        f"{result['light_jobs']} jobs; first job after start {result['light_first_s']} s "
        "(targets: p50 <= 0.2 s, first <= 1 s)",
        "  per hop, light load:",
        *render_rows(result["hops_light"]),
        f"  per hop, burst (slowest: {result['slowest_hop_burst']}):",
        *render_rows(result["hops_burst"]),
        f"  CPU s burst  {sum(result['cpu_s_burst'].values()):.1f} in all: "
        + ", ".join(f"{k} {v}" for k, v in result["cpu_s_burst"].items())
        + f"; this client {result.get('client_cpu_s_burst')}",
        "  RSS MiB      "
        + ", ".join(
            f"{k} {result['rss_mib_peak'].get(k, v)} (end {v})"
            for k, v in result["rss_mib_at_end"].items()
        ),
        f"  load average {result.get('load_average')} (1, 5, 15 min) at the end",
        f"  logs         {result['workdir']}/logs",
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    for name in ("jobs", "pods_per_job", "nodes", "concurrency"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name.replace('_', '-')} must be at least 1")
    if args.light_jobs < 0:
        raise UserError("--light-jobs must not be negative")
    if args.runs < 1:
        raise UserError("--runs must be at least 1")
    results: list[Json] = []
    for index in range(args.runs):
        results.append(asyncio.run(bench(args)))
        if args.runs > 1 and not args.json:
            print(f"run {index + 1} of {args.runs}:\n{render(results[-1])}", flush=True)
    if args.runs == 1:
        print(json.dumps(results[0]) if args.json else render(results[0]))
    else:
        summary = summarize(results)
        print(json.dumps(summary) if args.json else render_summary(summary))
    complete = all(r["pods_bound"] == args.jobs * args.pods_per_job for r in results)
    return 0 if complete else 1


SUMMARIZED = (
    "pods_per_s",
    "job_to_bound_p50_s",
    "job_to_bound_p99_s",
    "pods_created_per_s",
    "light_p50_s",
    "light_first_s",
)


def summarize(results: list[Json]) -> Json:
    """Min / median / max of the headline numbers over runs; the median run (by pods/s) whole,
    per-hop table included, and each run's load average when it was recorded."""
    by_rate = sorted(results, key=lambda r: float(r["pods_per_s"]))
    spread: Json = {}
    for name in SUMMARIZED:
        values = sorted(float(r[name]) for r in results if r.get(name) is not None)
        if values:
            spread[name] = {
                "min": values[0],
                "median": statistics.median(values),
                "max": values[-1],
            }
    return {"runs": len(results), "spread": spread, "median_run": by_rate[len(by_rate) // 2]}


def render_summary(summary: Json) -> str:
    lines = [f"{summary['runs']} runs (min / median / max):"]
    for name, s in summary["spread"].items():
        lines.append(f"  {name:<22}{s['min']:>10g}{s['median']:>10g}{s['max']:>10g}")
    lines.append("the median run:")
    lines.append(render(summary["median_run"]))
    return "\n".join(lines)
