"""``shoal bench broker-restart``: the broker killed in the middle of a burst, and back.

Starts the whole local stack, then creates ``--jobs`` Volcano Jobs of ``--pods-per-job`` pods at
``--rate`` jobs/s twice: once undisturbed (the baseline), and once with the broker SIGKILLed
when ``--kill-at`` of the jobs are created and started again on its port ``--down`` seconds
later. The embedded Tansu comes back empty (every service sees a new log generation and
rebuilds); Apache Kafka (``--broker kafka``, or the real control plane) comes back with its log.

It reports the time from the broker accepting connections again to the first pod bound after
it, each job's time from creation to its last pod bound in both bursts (how much longer the
slowest job waited than the baseline's slowest), and what a restart must never do: jobs that
never got all their pods bound (lost), pods created twice for one job or bound to two nodes
(doubled). Binding is observed through a pod watch, as a user sees it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.cli import controlplane
from services.cli.bench.e2e import NAMESPACE, job_manifest, percentile
from shared.errors import UserError

Json = dict[str, Any]
JOB_LABEL = "volcano.sh/job-name"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=100, help="Volcano Jobs in each burst")
    parser.add_argument("--pods-per-job", type=int, default=2, help="gang size of each job")
    parser.add_argument("--rate", type=float, default=20.0, help="jobs created per second")
    parser.add_argument(
        "--kill-at", type=float, default=0.5, help="share of the jobs created when it is killed"
    )
    parser.add_argument("--down", type=float, default=1.5, help="seconds the broker stays down")
    parser.add_argument("--nodes", type=int, default=16, help="simulated nodes")
    parser.add_argument(
        "--node-cpu", default="32", help="CPUs per node (pods request 1; both bursts keep running)"
    )
    parser.add_argument(
        "--broker",
        choices=("tansu", "kafka"),
        default="tansu",
        help="kubesim's broker: the embedded Tansu, or Apache Kafka from `make control-plane` "
        "(the real control plane always runs Kafka)",
    )
    controlplane.add_argument(parser)
    parser.add_argument("--timeout", type=float, default=240, help="deadline of a burst (s)")
    parser.add_argument("--workdir", type=Path, help="logs (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass
class Pods:
    """What the pod watch saw, per job: its pods (by uid), their nodes, when each was bound."""

    uids: dict[str, set[str]] = field(default_factory=dict)  # job → pod uids
    seen: dict[str, float] = field(default_factory=dict)  # job → its first pod seen
    nodes: dict[str, set[str]] = field(default_factory=dict)  # pod uid → nodes seen
    bound: dict[str, dict[str, float]] = field(default_factory=dict)  # job → uid → first bound

    def observe(self, pod: Json, now: float) -> None:
        meta = pod.get("metadata") or {}
        job = (meta.get("labels") or {}).get(JOB_LABEL)
        uid = str(meta.get("uid", ""))
        if not job or not uid:
            return
        self.uids.setdefault(job, set()).add(uid)
        self.seen.setdefault(job, now)
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            self.nodes.setdefault(uid, set()).add(node)
            self.bound.setdefault(job, {}).setdefault(uid, now)

    def complete_at(self, job: str, pods: int) -> float | None:
        times = sorted(self.bound.get(job, {}).values())
        return times[pods - 1] if len(times) >= pods else None


async def _watch(kube: Any, pods: Pods) -> None:
    from shared.kube import ApiError, resource_for

    pod_rt = resource_for("v1", "Pod")
    while True:
        try:
            items, version = await kube.list_all(pod_rt, namespace=NAMESPACE)
            for pod in items:
                pods.observe(pod, time.monotonic())
            async for _, pod in kube.watch(
                pod_rt, resource_version=version, namespace=NAMESPACE, inactivity_timeout=30
            ):
                pods.observe(pod, time.monotonic())
        except (ApiError, OSError, TimeoutError):
            await asyncio.sleep(0.2)


async def _burst(
    kube: Any, pods: Pods, args: argparse.Namespace, prefix: str, *, stack: Any = None
) -> Json:
    """Create the jobs at ``args.rate``; with ``stack``, kill its broker on the way. Returns
    per-job latencies and, with a kill, the times of the restart."""
    from shared.kube import resource_for

    vcjob = resource_for("batch.volcano.sh/v1alpha1", "Job")
    names = [f"{prefix}-{i}" for i in range(args.jobs)]
    created: dict[str, float] = {}
    times: dict[str, float] = {}
    kill_after = int(args.jobs * args.kill_at)

    async def restart() -> None:
        stack.kill_broker()
        times["killed"] = time.monotonic()
        await asyncio.sleep(args.down)
        stack.start_broker_again()
        await stack.broker_back()
        times["back"] = time.monotonic()

    restarting: asyncio.Task[None] | None = None
    started = time.monotonic()
    for index, name in enumerate(names):
        if stack is not None and index == kill_after:
            restarting = asyncio.create_task(restart())
        await asyncio.sleep(max(0.0, started + index / args.rate - time.monotonic()))
        created[name] = time.monotonic()
        await kube.create(vcjob, job_manifest(name, args.pods_per_job))
    if restarting is not None:
        await restarting
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if all(pods.complete_at(n, args.pods_per_job) is not None for n in names):
            break
        await asyncio.sleep(0.2)
    await asyncio.sleep(2.0)  # late duplicates, if any, show up in the watch
    items, _ = await kube.list_all(resource_for("v1", "Pod"), namespace=NAMESPACE)
    for pod in items:  # what the watch may have missed counts too (at its own, late, time)
        pods.observe(pod, time.monotonic())
    latencies = {
        n: at - created[n]
        for n in names
        if (at := pods.complete_at(n, args.pods_per_job)) is not None
    }
    uids = [uid for n in names for uid in pods.uids.get(n, set())]
    result: Json = {
        "lost": [n for n in names if n not in latencies],
        "doubled": [n for n in names if len(pods.uids.get(n, set())) > args.pods_per_job],
        "bound_twice": sum(1 for uid in uids if len(pods.nodes.get(uid, set())) > 1),
        "latency_p50_s": round(percentile(list(latencies.values()), 0.5), 2),
        "latency_max_s": round(max(latencies.values(), default=float("nan")), 2),
        # Where the slowest jobs waited: for their pods (job controller), then for the binds.
        "slowest": {
            n: [round(latencies[n], 2), round(pods.seen[n] - created[n], 2)]
            for n in sorted(latencies, key=lambda j: latencies[j])[-3:]
        },
    }
    if "back" in times:
        back, killed = times["back"], times["killed"]
        after = [t for n in names for t in pods.bound.get(n, {}).values() if t > back]
        during = [n for n in names if killed <= created[n] <= back]
        result |= {
            "down_s": round(back - killed, 2),
            "first_bind_after_back_s": round(min(after) - back, 2) if after else None,
            "jobs_created_while_down": len(during),
            "while_down_latency_max_s": round(
                max((latencies[n] for n in during if n in latencies), default=float("nan")), 2
            ),
        }
    return result


async def bench(args: argparse.Namespace) -> Json:
    from services.cli.stack import Stack, StackConfig
    from shared.kube import KubeClient, resource_for

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-bench-broker-restart-"))
    config = StackConfig(
        workdir=workdir,
        control_plane=args.control_plane,
        broker="kafka" if args.control_plane == "real" else args.broker,
        nodes=args.nodes,
        node_cpu=args.node_cpu,
    )
    stack = Stack(config)
    try:
        await stack.start(timeout=300)
        kube = await KubeClient.connect(str(stack.kubeconfig))
        pods = Pods()
        watching = asyncio.create_task(_watch(kube, pods))
        try:
            namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            await kube.create(resource_for("v1", "Namespace"), namespace)
            print(f"baseline: {args.jobs} jobs x {args.pods_per_job} pods at {args.rate}/s")
            baseline = await _burst(kube, pods, args, "base")
            print(f"the same with the {stack.broker_kind} broker killed for {args.down} s")
            restarted = await _burst(kube, pods, args, "kill", stack=stack)
        finally:
            watching.cancel()
            await kube.close()
        return {
            "control_plane": args.control_plane,
            "broker": stack.broker_kind,
            "jobs": args.jobs,
            "pods_per_job": args.pods_per_job,
            "rate": args.rate,
            "baseline": baseline,
            "restarted": restarted,
            "extra_wait_s": round(restarted["latency_max_s"] - baseline["latency_max_s"], 2),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "workdir": str(workdir),
        }
    finally:
        stack.stop(grace=10)


def render(result: Json) -> str:
    base, run = result["baseline"], result["restarted"]
    return "\n".join(
        [
            f"shoal bench broker-restart: {result['jobs']} jobs x {result['pods_per_job']} pods "
            f"at {result['rate']}/s, {result['broker']} on {result['control_plane']}",
            f"  down         {run.get('down_s')} s from the kill until it accepts connections",
            f"  first bind   {run.get('first_bind_after_back_s')} s after it is back "
            "(target <= 5 s)",
            f"  job waits    p50 {run['latency_p50_s']} s, max {run['latency_max_s']} s "
            f"(baseline p50 {base['latency_p50_s']} s, max {base['latency_max_s']} s): "
            f"{result['extra_wait_s']} s longer (target <= 10 s)",
            f"  while down   {run.get('jobs_created_while_down')} jobs created, the slowest "
            f"bound after {run.get('while_down_latency_max_s')} s",
            "  slowest      "
            + ", ".join(f"{n} {t} s (pods after {p} s)" for n, (t, p) in run["slowest"].items()),
            f"  lost         {len(run['lost'])}; doubled {len(run['doubled'])}; "
            f"bound twice {run['bound_twice']}",
            f"  load average {result['load_average']} (1, 5, 15 min) at the end",
            f"  logs         {result['workdir']}/logs",
        ]
    )


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1 or args.pods_per_job < 1 or args.rate <= 0:
        raise UserError("--jobs and --pods-per-job must be at least 1, --rate positive")
    if not 0 <= args.kill_at < 1 or args.down < 0:
        raise UserError("--kill-at must be in [0, 1) and --down not negative")
    result = asyncio.run(bench(args))
    print(json.dumps(result) if args.json else render(result))
    run_ = result["restarted"]
    return 0 if not (run_["lost"] or run_["doubled"] or run_["bound_twice"]) else 1
