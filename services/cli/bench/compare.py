"""``shoal bench compare``: one workload through an upstream peer and through Shoal, each on a
fresh real control plane (etcd, kube-apiserver, kube-controller-manager, kwok nodes) on this
machine, alternating run by run; a table of both and their ratio.

A ratio measured in one sitting on one machine against one API server is the only speed
comparison that holds: published figures come from other hardware and other API servers.

Workloads, each modelled on the peer's own performance test:

- ``basic``: kube-scheduler's ``scheduler_perf`` SchedulingBasic ``5000Nodes_10000Pods``
  (``test/integration/scheduler_perf/misc/performance-config.yaml``): 5,000 nodes of 4 CPUs,
  32 GiB and 110 pods; 1,000 pods placed first, then 10,000 measured pods requesting 100m CPU
  and 500 MiB (``templates/pod-default.yaml``). The peer is kube-scheduler with the client QPS
  and burst ``scheduler_perf`` gives it (5,000 and 5,000), not its defaults (50 and 100), so no
  side is held back by a client rate limit the other lacks. Shoal schedules the same pods by
  ``schedulerName: shoal``, with kube-scheduler not running.
- ``volcano``: the e2e workload, 1,000 Volcano Jobs of 10 pods (1 CPU, 1 GiB each) on 1,000
  nodes of Volcano's benchmark (32 CPUs, 256 GiB). The peer is Volcano v1.14.1's vc-scheduler
  and vc-controller-manager (``services.cli.controlplane.peers``) with the client QPS and burst
  Volcano's benchmark installs them with (5,000 / 10,000); the same manifests
  (``schedulerName: volcano``, queue ``default``, ``minAvailable``: no webhook defaults them
  on the peer's side) go to Shoal. Neither side runs kube-scheduler.
- ``kueue``: Kueue's scheduler performance baseline
  (``test/performance/scheduler/configs/baseline/generator.yaml``, ``shoal bench kueue``): 5
  cohorts of 6 ClusterQueues fed 15,000 Workloads at Kueue's intervals, created directly and
  played by the runner as Kueue's performance runner does. The peer is Kueue v0.17.0's manager
  with the Configuration upstream ships (client QPS/burst 50/100 and Workload concurrency 5,
  which minimalkueue, the binary of Kueue's performance test, copies from it). Measured as
  Kueue's checker does: wall time until every Workload finished, ClusterQueue usage, mean time
  to admission per class.

Pods are created by this process, ``--concurrency`` calls at a time, as fast as the API server
takes them; a pod watch sees each pod bound. On 2 cores the API server's create rate, not the
scheduler, sets the pace of that live run; ``--backlog`` measures the scheduler side itself, as
``scheduler_perf`` (whose in-process creates outrun any scheduler) does: the measured pods are
created with the scheduler side stopped (SIGSTOP; Shoal's webhook keeps serving), and the clock
starts when it continues. Measured, for the measured pods only: pods/s from the first create
call (backlog: the continue) to the last pod seen bound, create call (backlog: continue) → seen
bound p50/p99, and the CPU-seconds and peak RSS of the scheduler side (kube-scheduler; Shoal's
services, its webhook and its Kafka broker), of kube-apiserver and of etcd, each separately.
The peer's control plane runs no Kafka.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from services.cli.bench.e2e import JOB_LABEL, job_manifest, percentile, watch_pods
from shared.errors import UserError

Json = dict[str, Any]
NAMESPACE = "bench-compare"
SHOAL = "shoal"
# scheduler_perf's client QPS and burst for the scheduler it measures (util.go mustSetupCluster).
SCHEDULER_PERF_QPS = 5000
# Volcano's benchmark installs its scheduler and controller-manager with this client QPS and
# burst (benchmark/README.md: VOLCANO_*_KUBE_API_QPS / _BURST).
VOLCANO_BENCHMARK_QPS = (5000, 10000)
# The processes that are the control plane both sides share; everything else a side starts is
# its scheduler side, except these, which run on both sides alike.
SHARED = ("kube-apiserver", "etcd")
NEUTRAL = ("kwok", "kube-controller-manager")
READS = frozenset({"GET", "LIST", "WATCH", "CONNECT"})


@dataclass(frozen=True)
class Workload:
    """``init`` units placed first, then ``measure`` units timed; a unit is a pod, or a Volcano
    Job of ``pods_per_job`` pods (``jobs``)."""

    name: str
    peer: str
    nodes: int
    node_cpu: str
    node_memory: str
    init: int
    measure: int
    pod_cpu: str
    pod_memory: str
    model: str
    jobs: bool = False
    pods_per_job: int = 1
    peer_settings: str = ""

    @property
    def kueue(self) -> bool:
        return self.peer == "kueue"


WORKLOADS = {
    "basic": Workload(
        name="basic",
        peer="kube-scheduler",
        nodes=5000,
        node_cpu="4",
        node_memory="32Gi",
        init=1000,
        measure=10000,
        pod_cpu="100m",
        pod_memory="500Mi",
        model="scheduler_perf SchedulingBasic/5000Nodes_10000Pods",
        peer_settings=f"kube-scheduler, client QPS/burst {SCHEDULER_PERF_QPS} as scheduler_perf",
    ),
    "volcano": Workload(
        name="volcano",
        peer="volcano",
        nodes=1000,
        node_cpu="32",
        node_memory="256Gi",
        init=0,
        measure=1000,
        pod_cpu="1",
        pod_memory="1Gi",
        model="Volcano Jobs x 10 pods, Volcano's benchmark nodes (32 CPU, 256 GiB)",
        jobs=True,
        pods_per_job=10,
        peer_settings=(
            f"vc-scheduler + vc-controller-manager v1.14.1, client QPS/burst "
            f"{VOLCANO_BENCHMARK_QPS[0]}/{VOLCANO_BENCHMARK_QPS[1]} as Volcano's benchmark"
        ),
    ),
    "kueue": Workload(
        name="kueue",
        peer="kueue",
        nodes=1,
        node_cpu="32",
        node_memory="256Gi",
        init=0,
        measure=15000,
        pod_cpu="1",
        pod_memory="1Gi",
        model="Kueue's scheduler performance baseline: 5 cohorts x 6 ClusterQueues, Workloads",
        peer_settings=(
            "Kueue v0.17.0's manager, upstream's Configuration (client QPS/burst 50/100, "
            "Workload concurrency 5, as minimalkueue)"
        ),
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workload", choices=sorted(WORKLOADS), help="which workload")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side, alternating")
    parser.add_argument(
        "--sides",
        default="peer,shoal",
        help="which sides run, comma-separated: peer, shoal (default both)",
    )
    parser.add_argument("--nodes", type=int, help="nodes (default: the workload's)")
    parser.add_argument(
        "--init", type=int, help="pods (or jobs) placed first (default: the workload's)"
    )
    parser.add_argument(
        "--count", type=int, help="measured pods (or jobs) (default: the workload's)"
    )
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent create calls")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="kueue: fraction of each workload set (1.0)"
    )
    parser.add_argument(
        "--backlog",
        action="store_true",
        help="create the measured pods with the scheduler side stopped (SIGSTOP), then time it "
        "from SIGCONT: its own throughput, not the API server's create rate",
    )
    parser.add_argument("--timeout", type=float, default=900, help="deadline of a phase (s)")
    parser.add_argument("--workdir", type=Path, help="logs (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass
class Placement:
    """When each unit's create call started and when it was first seen with all its pods bound
    (a unit: a pod, or a Volcano Job by its pods' ``volcano.sh/job-name`` label)."""

    pods_per_unit: int = 1
    by_label: str = ""
    created: dict[str, float] = field(default_factory=dict)
    bound: dict[str, float] = field(default_factory=dict)
    pods: dict[str, set[str]] = field(default_factory=dict)  # unit → its pods seen bound
    waiting: set[str] = field(default_factory=set)  # the units ``wait`` still awaits
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def observe(self, pod: Json, now: float) -> None:
        meta = pod.get("metadata") or {}
        name = str(meta.get("name"))
        unit = (meta.get("labels") or {}).get(self.by_label) if self.by_label else name
        if not unit or not (pod.get("spec") or {}).get("nodeName"):
            return
        placed = self.pods.setdefault(unit, set())
        placed.add(name)
        if len(placed) >= self.pods_per_unit and unit not in self.bound:
            self.bound[unit] = now
            self.waiting.discard(unit)
            if not self.waiting:
                self.changed.set()

    async def wait(self, names: list[str], deadline: float) -> int:
        """Wait until every unit in ``names`` is bound or the deadline passes; how many are.
        The units still awaited are a set ``observe`` empties: no recount per bound pod (this
        client shares the cores with what it measures)."""
        self.waiting = {n for n in names if n not in self.bound}
        self.changed.clear()
        if self.waiting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.0, deadline - time.monotonic()))
        return len(names) - len(self.waiting)


def pod_manifest(name: str, workload: Workload, scheduler_name: str) -> Json:
    resources = {"cpu": workload.pod_cpu, "memory": workload.pod_memory}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "schedulerName": scheduler_name,
            "containers": [
                {
                    "name": "pause",
                    "image": "registry.k8s.io/pause:3.10.1",
                    "ports": [{"containerPort": 80}],
                    "resources": {"limits": resources, "requests": dict(resources)},
                }
            ],
        },
    }


def unit_manifest(name: str, workload: Workload, scheduler_name: str) -> Json:
    """A pod, or a Volcano Job as ``shoal bench e2e`` creates them."""
    if not workload.jobs:
        return pod_manifest(name, workload, scheduler_name)
    job = job_manifest(name, workload.pods_per_job)
    job["metadata"]["namespace"] = NAMESPACE
    task = job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]
    task["resources"]["requests"] = {"cpu": workload.pod_cpu, "memory": workload.pod_memory}
    return job


@dataclass
class Running:
    """A started side: its admin kubeconfig, the scheduler name its pods ask for, and how to
    read its processes' CPU seconds and RSS."""

    kubeconfig: Path
    scheduler_name: str
    cpu: Callable[[], Mapping[str, float]]
    rss: Callable[[], Mapping[str, float | None]]
    pause: Callable[[signal.Signals], None]  # SIGSTOP / SIGCONT to the scheduler side


@asynccontextmanager
async def _side(side: str, workload: Workload, nodes: int, workdir: Path) -> AsyncIterator[Running]:
    cpu, memory = workload.node_cpu, workload.node_memory
    if side == SHOAL:
        from services.cli.stack import SERVICES, Stack, StackConfig

        stack = Stack(
            StackConfig(
                workdir=workdir,
                control_plane="real",
                nodes=nodes,
                node_cpu=cpu,
                node_memory=memory,
                node_gpus=0,
                kube_scheduler=False,
            )
        )
        try:
            await stack.start(timeout=600)

            def pause(sig: signal.Signals) -> None:  # the webhook serves the API server: not it
                for name in SERVICES:
                    stack.services[name].signal(sig)

            name = "volcano" if workload.jobs else SHOAL
            yield Running(stack.kubeconfig, name, stack.cpu, stack.rss, pause)
        finally:
            stack.stop(grace=10)
        return
    from services.cli.controlplane.peers import KUEUE_PART, VOLCANO_PARTS, Peers
    from services.cli.controlplane.real import RealConfig, RealControlPlane

    real = RealControlPlane(
        RealConfig(
            workdir=workdir,
            nodes=nodes,
            node_cpu=cpu,
            node_memory=memory,
            node_gpus=0,
            kube_scheduler=workload.peer == "kube-scheduler",
            kube_scheduler_qps=SCHEDULER_PERF_QPS,
            kafka=False,
            shoal_admission=False,
        )
    )
    try:
        await real.start(timeout=600)
        if workload.peer == "volcano":
            await Peers(real).start_volcano(client_qps=VOLCANO_BENCHMARK_QPS)
            parts = [real.processes[name] for name in VOLCANO_PARTS]
            scheduler_name = "volcano"
        elif workload.kueue:
            await Peers(real).start_kueue()
            parts = [real.processes[KUEUE_PART]]
            scheduler_name = ""
        else:
            parts = [real.processes["kube-scheduler"]]
            scheduler_name = "default-scheduler"

        def pause(sig: signal.Signals) -> None:
            for part in parts:
                part.signal(sig)

        yield Running(real.kubeconfig, scheduler_name, real.cpu, real.rss, pause)
    finally:
        real.stop()


def _grouped(values: Mapping[str, float | None]) -> dict[str, float]:
    """Per process → scheduler side, kube-apiserver, etcd (the neutral parts left out)."""
    out = {"scheduler_side": 0.0, **{name: 0.0 for name in SHARED}}
    for name, value in values.items():
        if value is None or name in NEUTRAL:
            continue
        out[name if name in SHARED else "scheduler_side"] += value
    return out


async def api_requests(kube: Any) -> Counter[str]:
    """kube-apiserver's ``apiserver_request_total`` by ``VERB resource[/subresource]``, watches
    and the read-only verbs left out."""
    text = (await kube.get_path("/metrics")).decode()
    counts: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        if family.name != "apiserver_request":  # the parser drops the counter's _total
            continue
        for sample in family.samples:
            labels = sample.labels
            if not sample.name.endswith("_total") or labels.get("verb") in READS:
                continue
            what = labels.get("resource", "") + (
                f"/{s}" if (s := labels.get("subresource")) else ""
            )
            counts[f"{labels.get('verb')} {what}"] += int(sample.value)
    return counts


async def _create(kube: Any, names: list[str], manifest: Callable[[str], Json], n: int) -> None:
    from shared.kube import resource_for

    pending = iter(names)

    async def creator() -> None:
        for name in pending:
            obj = manifest(name)
            await kube.create_unread(resource_for(obj["apiVersion"], obj["kind"]), obj)

    await asyncio.gather(*(creator() for _ in range(n)))


async def _sample_rss(running: Running, peaks: dict[str, float]) -> None:
    """Keep each process's peak RSS (MiB), sampled every second."""
    while True:
        for name, mib in running.rss().items():
            if mib is not None:
                peaks[name] = max(peaks.get(name, 0.0), mib)
        await asyncio.sleep(1)


async def run_kueue_side(side: str, args: argparse.Namespace, workdir: Path) -> Json:
    """Kueue's baseline on one side: the queues, then every Workload played to its finish."""
    from services.cli.bench import kueue as baseline
    from shared.kube import KubeClient

    workload = WORKLOADS["kueue"]
    counts = baseline.counts_at(args.scale)
    async with _side(side, workload, workload.nodes, workdir) as running:
        kube = await KubeClient.connect(str(running.kubeconfig))
        peaks: dict[str, float] = {}
        sampling = asyncio.create_task(_sample_rss(running, peaks))
        try:
            queues = await baseline.create_queues(
                kube, baseline.COHORTS, baseline.QUEUES_PER_COHORT
            )
            await asyncio.sleep(2)  # the queues reach the scheduler's cache before the workloads
            cpu_before = running.cpu()
            requests_before = await api_requests(kube)
            run = await baseline.play(kube, queues, counts, args.timeout, quiet=args.json)
            cpu = {k: v - cpu_before.get(k, 0.0) for k, v in running.cpu().items()}
            requests = await api_requests(kube)
            requests.subtract(requests_before)
        finally:
            sampling.cancel()
            await kube.close()
    baseline.write_timeline(workdir / "timeline.json", run)
    result = baseline.report(
        run,
        cohorts=baseline.COHORTS,
        scale=args.scale,
        counts=counts,
        queues=len(queues),
        workdir=str(workdir),
        cpu={k: round(v, 1) for k, v in sorted(cpu.items())},
    )
    total = result["workloads"]
    means = result["mean_time_to_admission_ms"]
    return {
        "side": side,
        "unit": "workload",
        "count": total,
        "complete": result["finished"] == total,
        "wall_s": result["wall_s"],
        "kueue_usage_pct": result["kueue_usage_pct"],
        "usage_pct": result["usage_pct"],
        "admission_mean_s": {k: round(v / 1000, 1) for k, v in means.items()},
        "finished": result["finished"],
        "evictions": result["evictions"],
        "cpu_s": {k: round(v, 1) for k, v in _grouped(cpu).items()},
        "cpu_s_per_process": result["cpu_s"],
        "rss_mib_peak": {k: round(v, 1) for k, v in _grouped(peaks).items()},
        "writes_per_unit": {
            k: round(v / total, 2) for k, v in requests.most_common() if v / total >= 0.01
        },
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "workdir": str(workdir),
    }


async def run_side(side: str, args: argparse.Namespace, workload: Workload, workdir: Path) -> Json:
    from shared.kube import KubeClient, resource_for

    nodes = args.nodes or workload.nodes
    init = workload.init if args.init is None else args.init
    count = args.count or workload.measure
    async with _side(side, workload, nodes, workdir) as running:
        kube = await KubeClient.connect(str(running.kubeconfig))
        placement = Placement(workload.pods_per_job, JOB_LABEL if workload.jobs else "")
        peaks: dict[str, float] = {}
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        await kube.create(resource_for("v1", "Namespace"), namespace)
        watching = asyncio.create_task(watch_pods(kube, placement.observe, NAMESPACE))
        sampling = asyncio.create_task(_sample_rss(running, peaks))
        try:

            def manifest(name: str) -> Json:
                placement.created[name] = time.monotonic()
                return unit_manifest(name, workload, running.scheduler_name)

            first = [f"init-{i}" for i in range(init)]
            await _create(kube, first, manifest, args.concurrency)
            placed = await placement.wait(first, time.monotonic() + args.timeout)
            if placed < len(first):
                raise UserError(f"{side}: {placed} of {len(first)} initial units placed")
            measured = [f"{'job' if workload.jobs else 'pod'}-{i}" for i in range(count)]
            cpu_before = running.cpu()
            requests_before = await api_requests(kube)
            started = time.monotonic()
            if args.backlog:
                running.pause(signal.SIGSTOP)
            try:
                await _create(kube, measured, manifest, args.concurrency)
            finally:
                created_in = time.monotonic() - started
                if args.backlog:
                    running.pause(signal.SIGCONT)
            if args.backlog:  # timed from the moment the scheduler side may go on
                cpu_before, started = running.cpu(), time.monotonic()
                requests_before = await api_requests(kube)
            bound = await placement.wait(measured, started + args.timeout)
            cpu = {k: v - cpu_before.get(k, 0.0) for k, v in running.cpu().items()}
            requests = await api_requests(kube)
            requests.subtract(requests_before)
        finally:
            watching.cancel()
            sampling.cancel()
            await kube.close()
    last = max((placement.bound[n] for n in measured if n in placement.bound), default=started)
    waits = [
        placement.bound[n] - max(placement.created[n], started)
        for n in measured
        if n in placement.bound
    ]
    seconds = max(last - started, 1e-9)
    pods = count * workload.pods_per_job
    pods_bound = sum(min(len(placement.pods.get(n, ())), workload.pods_per_job) for n in measured)
    return {
        "side": side,
        "nodes": nodes,
        "unit": "job" if workload.jobs else "pod",
        "init": init,
        "count": count,
        "units_bound": bound,
        "pods": pods,
        "backlog": args.backlog,
        "pods_bound": pods_bound,
        "complete": pods_bound == pods,
        "seconds": round(seconds, 2),
        "created_in_s": round(created_in, 2),
        "pods_per_s": round(pods_bound / seconds, 1),
        "create_to_bound_p50_s": round(percentile(waits, 0.5), 3),
        "create_to_bound_p99_s": round(percentile(waits, 0.99), 3),
        "cpu_s": {k: round(v, 1) for k, v in _grouped(cpu).items()},
        "cpu_s_per_process": {k: round(v, 1) for k, v in sorted(cpu.items())},
        "rss_mib_peak": {k: round(v, 1) for k, v in _grouped(peaks).items()},
        # The API server's writes per measured pod by verb and resource: what the scheduler
        # side asks of the shared API server, with this measure's own creates (left out with
        # --backlog, made while the scheduler side is stopped).
        "writes_per_unit": {
            k: round(v / pods, 2) for k, v in requests.most_common() if v / pods >= 0.01
        },
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "workdir": str(workdir),
    }


# (label, how a run's value is read, whether higher is better)
ROWS: tuple[tuple[str, Callable[[Json], float], bool], ...] = (
    ("pods/s", lambda r: r["pods_per_s"], True),
    ("create -> bound p50 s", lambda r: r["create_to_bound_p50_s"], False),
    ("create -> bound p99 s", lambda r: r["create_to_bound_p99_s"], False),
    ("scheduler side CPU-s", lambda r: r["cpu_s"]["scheduler_side"], False),
    ("scheduler side peak RSS MiB", lambda r: r["rss_mib_peak"]["scheduler_side"], False),
    ("API writes per pod", lambda r: sum(r["writes_per_unit"].values()), False),
    ("kube-apiserver CPU-s", lambda r: r["cpu_s"]["kube-apiserver"], False),
    ("etcd CPU-s", lambda r: r["cpu_s"]["etcd"], False),
)
# Kueue's checker's measures (rangespec.yaml), then the same costs.
KUEUE_ROWS: tuple[tuple[str, Callable[[Json], float], bool], ...] = (
    ("wall s (all finished)", lambda r: r["wall_s"], False),
    ("ClusterQueue usage %", lambda r: r["kueue_usage_pct"], True),
    ("admission mean small s", lambda r: r["admission_mean_s"]["small"], False),
    ("admission mean medium s", lambda r: r["admission_mean_s"]["medium"], False),
    ("admission mean large s", lambda r: r["admission_mean_s"]["large"], False),
    ("scheduler side CPU-s", lambda r: r["cpu_s"]["scheduler_side"], False),
    ("scheduler side peak RSS MiB", lambda r: r["rss_mib_peak"]["scheduler_side"], False),
    ("API writes per workload", lambda r: sum(r["writes_per_unit"].values()), False),
    ("kube-apiserver CPU-s", lambda r: r["cpu_s"]["kube-apiserver"], False),
    ("etcd CPU-s", lambda r: r["cpu_s"]["etcd"], False),
)


def summarize(workload: Workload, results: list[Json]) -> Json:
    """Per side and row: every run's value and the median; the ratio of medians (Shoal's over
    the peer's)."""
    sides = sorted({r["side"] for r in results}, key=lambda s: s == SHOAL)
    rows = []
    for label, read, higher_is_better in KUEUE_ROWS if workload.kueue else ROWS:
        row: Json = {"row": label, "higher_is_better": higher_is_better}
        for side in sides:
            values = [float(read(r)) for r in results if r["side"] == side]
            row[side] = {"runs": values, "median": statistics.median(values)}
        if len(sides) == 2 and row[sides[0]]["median"]:
            row["ratio"] = round(row[SHOAL]["median"] / row[sides[0]]["median"], 2)
        rows.append(row)
    return {
        "workload": workload.name,
        "model": workload.model,
        "peer": workload.peer,
        "peer_settings": workload.peer_settings,
        "sides": sides,
        "rows": rows,
        "runs": results,
    }


def render(summary: Json) -> str:
    first = summary["runs"][0]
    sides = summary["sides"]
    unit = first["unit"]
    if unit == "workload":
        size = f"{first['count']} workloads"
    else:
        size = (
            f"{first['count']} {unit}s ({first['pods']} pods) on {first['nodes']} nodes, "
            f"{first['init']} {unit}s placed first"
            f"{', backlog' if first.get('backlog') else ', created live'}"
        )
    lines = [
        f"shoal bench compare {summary['workload']} ({summary['model']}): {size}; "
        f"{len(summary['runs']) // max(len(sides), 1)} run(s) per side, medians",
        f"  {'':<30}"
        + "".join(f"{s:>18}" for s in sides)
        + ("   shoal / peer" if "ratio" in summary["rows"][0] else ""),
    ]
    for row in summary["rows"]:
        cells = "".join(f"{row[s]['median']:>18g}" for s in sides)
        ratio = f"   {row['ratio']:g}" if "ratio" in row else ""
        lines.append(f"  {row['row']:<30}{cells}{ratio}")
    lines.append(f"  peer: {summary['peer_settings']}")
    for r in summary["runs"]:
        if unit == "workload":
            done = f"{r['finished']}/{r['count']} workloads finished in {r['wall_s']} s"
        else:
            done = (
                f"{r['pods_bound']}/{r['pods']} pods bound in {r['seconds']} s "
                f"(created in {r['created_in_s']} s)"
            )
        lines.append(
            f"  run {r['side']:<15} {done}; CPU-s {r['cpu_s_per_process']}; "
            f"load {r['load_average']}; logs {r['workdir']}/logs"
        )
        lines.append(f"    API writes per {unit}: {r['writes_per_unit']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    workload = WORKLOADS[args.workload]
    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    unknown = sorted(set(sides) - {"peer", SHOAL})
    if unknown or not sides:
        raise UserError(f"--sides takes peer and shoal, not {','.join(unknown) or 'nothing'}")
    for name in ("runs", "concurrency"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name} must be at least 1")
    for name in ("nodes", "count"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UserError(f"--{name} must be at least 1")
    if args.init is not None and args.init < 0:
        raise UserError("--init must not be negative")
    if not 0 < args.scale <= 10:
        raise UserError("--scale must be in (0, 10]")
    from services.cli.controlplane.real import built

    if not built():
        raise UserError("the real control plane is not built: run `make control-plane`")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-bench-compare-"))
    results: list[Json] = []
    for index in range(args.runs):
        for side in sides:
            name = workload.peer if side == "peer" else SHOAL
            workdir = root / f"{index + 1}-{name}"
            if workload.kueue:
                result = asyncio.run(run_kueue_side(name, args, workdir))
                said = f"wall {result['wall_s']} s, {result['finished']}/{result['count']} finished"
            else:
                result = asyncio.run(run_side(name, args, workload, workdir))
                said = (
                    f"{result['pods_per_s']} pods/s, {result['pods_bound']}/{result['pods']} bound"
                )
            results.append(result)
            if not args.json:
                print(f"run {index + 1}, {name}: {said}", flush=True)
    summary = summarize(workload, results)
    print(json.dumps(summary) if args.json else render(summary))
    return 0 if all(r["complete"] for r in results) else 1
