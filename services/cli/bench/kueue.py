"""``shoal bench kueue``: Kueue's own scheduler baseline through the whole system.

The scenario is Kueue's ``test/performance/scheduler/configs/baseline/generator.yaml``: 5
cohorts of 6 ClusterQueues (nominal 20 CPU, borrowing limit 100, ``reclaimWithinCohort: Any``,
``withinClusterQueue: LowerPriority``), each ClusterQueue fed by three workload sets created at
fixed intervals — 350 small (1 CPU, 200 ms, priority 50, every 100 ms), 100 medium (5 CPU,
500 ms, priority 100, every 500 ms), 50 large (20 CPU, 1 s, priority 200, every 1.2 s).

As Kueue's runner does, Workloads are created directly, and a runner plays the jobs: an
admitted Workload is declared ``Finished`` once its runtime has passed, an evicted one gets its
quota reservation unset. Everything else is Shoal: kubesim, the watcher, the scheduler's live
admission, the binder. Reported as Kueue's checker reports it (``rangespec.yaml``): wall time
(Kueue's range ≤ 425 s, mean 351 s), ClusterQueue usage (CPU used over time / nominal quota times
elapsed; Kueue ≥ 50 %, mean 55.9 %), and per class the mean time to admission (Kueue's means:
small 215 s, medium 77 s, large 16.5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.errors import UserError

Json = dict[str, Any]
NAMESPACE = "kueue-bench"
KUEUE = "kueue.x-k8s.io/v1beta2"  # what Kueue's own runner writes
CLASS_LABEL = "kueue.x-k8s.io/bench-class"
RUNTIME_LABEL = "kueue.x-k8s.io/bench-runtime-ms"
KUEUE_MEANS_MS = {"small": 215_468, "medium": 76_768, "large": 16_501}


@dataclass(frozen=True)
class WorkloadSet:
    name: str
    count: int
    interval_ms: int
    runtime_ms: int
    priority: int
    cpu: int


BASELINE = (
    WorkloadSet("small", 350, 100, 200, 50, 1),
    WorkloadSet("medium", 100, 500, 500, 100, 5),
    WorkloadSet("large", 50, 1200, 1000, 200, 20),
)
COHORTS, QUEUES_PER_COHORT, NOMINAL, BORROWING = 5, 6, 20, 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cohorts", type=int, default=COHORTS, help="cohorts (Kueue: 5)")
    parser.add_argument(
        "--queues", type=int, default=QUEUES_PER_COHORT, help="ClusterQueues per cohort (6)"
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="fraction of each workload set (1.0: Kueue's)"
    )
    parser.add_argument("--timeout", type=float, default=900, help="deadline (s)")
    parser.add_argument("--workdir", type=Path, help="logs (default: a temporary directory)")
    parser.add_argument(
        "--profile", type=Path, help="sample every process's stacks into DIR/<process>.txt"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass
class Run:
    """What the runner saw of each Workload (monotonic seconds)."""

    created: dict[str, float] = field(default_factory=dict)
    admitted: dict[str, float] = field(default_factory=dict)
    finished: dict[str, float] = field(default_factory=dict)
    used: dict[str, float] = field(default_factory=dict)  # ClusterQueue → CPU·s used
    first_admitted: dict[str, float] = field(default_factory=dict)
    klass: dict[str, str] = field(default_factory=dict)
    evictions: int = 0
    first: float = 0.0
    last: float = 0.0
    queue_usage: QueueUsage = field(default_factory=lambda: QueueUsage())


@dataclass
class QueueUsage:
    """Kueue's recorder (``runner/recorder``): each ClusterQueue status event's admitted CPU
    (``flavorsUsage``) held until the next event, summed over the queues, over the nominal
    quota times the time from the first ClusterQueue event to the last one."""

    last: dict[str, tuple[float, float]] = field(default_factory=dict)  # CQ → (at, CPUs)
    used: float = 0.0  # CPU·s
    first_event: float | None = None
    last_event: float = 0.0

    def observe(self, name: str, status: Json, at: float) -> None:
        previous = self.last.get(name)
        if previous is not None:
            self.used += previous[1] * (at - previous[0])
        self.last[name] = (at, _cpu_used(status))
        self.first_event = at if self.first_event is None else self.first_event
        self.last_event = at

    def percent(self, nominal: float) -> float:
        elapsed = self.last_event - (self.first_event or 0.0)
        return 100 * self.used / (nominal * elapsed) if elapsed > 0 and nominal > 0 else 0.0


def _cpu_used(status: Json) -> float:
    from shared.quantities import parse_quantity

    flavors = status.get("flavorsUsage") or []
    resources = (flavors[0].get("resources") or []) if flavors else []
    return parse_quantity(resources[0].get("total", 0)).milli() / 1000 if resources else 0.0


def kueue_resource(kind: str) -> Any:
    """Kueue's ``kind`` at ``KUEUE``'s version."""
    from shared.kube import resource_for

    return resource_for(KUEUE, kind)


def cluster_queue(name: str, cohort: str, api_version: str = KUEUE) -> Json:
    """A ClusterQueue of the baseline (v1beta1 names its cohort ``cohort``)."""
    cohort_field = "cohort" if api_version.endswith("/v1beta1") else "cohortName"
    return {
        "apiVersion": api_version,
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            cohort_field: cohort,
            "namespaceSelector": {},
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {
                            "name": "rf",
                            "resources": [
                                {
                                    "name": "cpu",
                                    "nominalQuota": NOMINAL,
                                    "borrowingLimit": BORROWING,
                                }
                            ],
                        }
                    ],
                }
            ],
        },
    }


def workload(name: str, queue: str, spec: WorkloadSet, api_version: str = KUEUE) -> Json:
    return {
        "apiVersion": api_version,
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {CLASS_LABEL: spec.name, RUNTIME_LABEL: str(spec.runtime_ms)},
        },
        "spec": {
            "queueName": queue,
            "priority": spec.priority,
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                {
                                    "name": "c",
                                    "image": "pause",
                                    "resources": {"requests": {"cpu": str(spec.cpu)}},
                                }
                            ],
                        }
                    },
                }
            ],
        },
    }


class Runner:
    """Plays the jobs, as Kueue's performance runner does (``runner/controller``)."""

    def __init__(self, kube: Any, run: Run, sizes: dict[str, int]) -> None:
        self.kube = kube
        self.run = run
        self.sizes = sizes  # workload → CPUs
        self.rt = kueue_resource("Workload")
        self.tasks: set[asyncio.Task[None]] = set()
        self.seen: dict[str, Json] = {}

    async def watch(self) -> None:
        await self._watch(self.rt, NAMESPACE, self.observe)

    async def watch_queues(self) -> None:
        def observe(obj: Json) -> None:
            name = str(obj["metadata"]["name"])
            self.run.queue_usage.observe(name, obj.get("status") or {}, time.monotonic())

        await self._watch(kueue_resource("ClusterQueue"), None, observe)

    async def _watch(self, rt: Any, namespace: str | None, observe: Any) -> None:
        from shared.kube import ApiError

        while True:
            try:
                items, version = await self.kube.list_all(rt, namespace=namespace)
                for obj in items:
                    observe(obj)
                async for kind, obj in self.kube.watch(
                    rt, resource_version=version, namespace=namespace, inactivity_timeout=30
                ):
                    if kind in ("ADDED", "MODIFIED"):
                        observe(obj)
            except (ApiError, OSError, TimeoutError):
                await asyncio.sleep(0.2)

    def observe(self, obj: Json) -> None:
        from shared.kube.conditions import is_true

        name = str(obj["metadata"]["name"])
        self.seen[name] = obj
        conditions = (obj.get("status") or {}).get("conditions") or []
        now = time.monotonic()
        if is_true(conditions, "Finished"):
            return
        if is_true(conditions, "Evicted") and (obj.get("status") or {}).get("admission"):
            self._start(self._unreserve(name))
        elif is_true(conditions, "Admitted") and name not in self.run.admitted:
            self.run.admitted[name] = now
            self.run.first_admitted.setdefault(name, now)
            runtime = int(obj["metadata"]["labels"][RUNTIME_LABEL]) / 1000
            self._start(self._finish(name, runtime))

    def _start(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _account(self, name: str, until: float) -> None:
        admitted = self.run.admitted.pop(name, None)
        obj = self.seen[name]
        queue = ((obj.get("status") or {}).get("admission") or {}).get("clusterQueue", "")
        if admitted is not None and queue:
            cpu = self.sizes.get(name, 0)
            self.run.used[queue] = self.run.used.get(queue, 0.0) + cpu * (until - admitted)

    async def _patch(self, name: str, change: Any) -> None:
        from shared.kube import ApiError

        for _ in range(20):
            obj = self.seen[name]
            status = dict(obj.get("status") or {})
            conditions = [dict(c) for c in status.get("conditions") or []]
            patch = change(conditions)
            body = {
                "metadata": {"resourceVersion": obj["metadata"]["resourceVersion"]},
                "status": patch,
            }
            try:
                written = await self.kube.patch(
                    self.rt, name, body, namespace=NAMESPACE, subresource="status"
                )
            except ApiError as exc:
                if exc.status != 409:
                    raise
                self.seen[name] = await self.kube.get(self.rt, name, NAMESPACE)
                continue
            self.seen[name] = written
            return

    async def _finish(self, name: str, runtime: float) -> None:
        from shared.kube.conditions import set_condition
        from shared.kube.timefmt import format_rfc3339

        await asyncio.sleep(runtime)
        if name not in self.run.admitted:
            return  # evicted meanwhile
        now = time.monotonic()

        def finished(conditions: list[Json]) -> Json:
            set_condition(
                conditions,
                "Finished",
                "True",
                "ByTest",
                "By test runner",
                format_rfc3339(time.time()),
            )
            return {"conditions": conditions}

        self._account(name, now)
        await self._patch(name, finished)
        self.run.finished[name] = now
        self.run.last = max(self.run.last, now)

    async def _unreserve(self, name: str) -> None:
        """``UnsetQuotaReservationWithCondition(wl, "Pending", "Evicted by the test runner")``."""
        from shared.kube.conditions import set_condition
        from shared.kube.timefmt import format_rfc3339

        self.run.evictions += 1
        self._account(name, time.monotonic())

        def unreserved(conditions: list[Json]) -> Json:
            stamp = format_rfc3339(time.time())
            why = "Evicted by the test runner"
            set_condition(conditions, "QuotaReserved", "False", "Pending", why, stamp)
            set_condition(
                conditions,
                "Admitted",
                "False",
                "NoReservation",
                "The workload has no reservation",
                stamp,
            )
            return {"conditions": conditions, "admission": None}

        await self._patch(name, unreserved)


async def _create_set(
    kube: Any, run: Run, queue: str, index: str, spec: WorkloadSet, count: int
) -> None:
    rt = kueue_resource("Workload")
    for i in range(count):
        name = f"{spec.name}-{index}-{i}"
        run.created[name] = time.monotonic()
        run.klass[name] = spec.name
        await kube.create(rt, workload(name, queue, spec), namespace=NAMESPACE)
        await asyncio.sleep(spec.interval_ms / 1000)


async def create_queues(kube: Any, cohorts: int, per_cohort: int) -> list[str]:
    """The benchmark's namespace, ResourceFlavor, ClusterQueues and their LocalQueues."""
    from shared.kube import resource_for

    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    await kube.create(resource_for("v1", "Namespace"), namespace)
    flavor = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "rf"}}
    await kube.create(kueue_resource("ResourceFlavor"), flavor)
    queues: list[str] = []
    for c in range(cohorts):
        for q in range(per_cohort):
            name = f"cq-{c}-{q}"
            queues.append(name)
            await kube.create(kueue_resource("ClusterQueue"), cluster_queue(name, f"cohort-{c}"))
            local = {
                "apiVersion": KUEUE,
                "kind": "LocalQueue",
                "metadata": {"name": name, "namespace": NAMESPACE},
                "spec": {"clusterQueue": name},
            }
            await kube.create(kueue_resource("LocalQueue"), local, namespace=NAMESPACE)
    return queues


def counts_at(scale: float) -> dict[str, int]:
    return {s.name: max(1, round(s.count * scale)) for s in BASELINE}


async def play(
    kube: Any, queues: list[str], counts: dict[str, int], timeout: float, *, quiet: bool = False
) -> Run:
    """Create every workload set at its interval and play the jobs until all finished (or
    ``timeout`` from the first creation) and the queues' statuses show nothing reserved."""
    run = Run()
    sizes = {
        f"{s.name}-{queue}-{i}": s.cpu
        for queue in queues
        for s in BASELINE
        for i in range(counts[s.name])
    }
    runner = Runner(kube, run, sizes)
    watching = asyncio.create_task(runner.watch())
    watching_queues = asyncio.create_task(runner.watch_queues())
    total = len(sizes)
    run.first = time.monotonic()
    try:
        await asyncio.gather(
            *(
                _create_set(kube, run, queue, queue, spec, counts[spec.name])
                for queue in queues
                for spec in BASELINE
            )
        )
        if not quiet:
            print(f"  {total} workloads created; waiting for them to finish", flush=True)
        deadline = run.first + timeout
        while len(run.finished) < total and time.monotonic() < deadline:
            await asyncio.sleep(1)
            if not quiet:
                print(
                    f"  admitted {len(run.first_admitted)}, finished {len(run.finished)}",
                    flush=True,
                )
        # Kueue's recorder runs until no ClusterQueue reserves or has pending workloads:
        # wait for the queues' statuses to say all is released (counters are paced).
        while time.monotonic() < deadline and any(
            cpus > 0 for _, cpus in run.queue_usage.last.values()
        ):
            await asyncio.sleep(0.2)
    finally:
        watching_queues.cancel()
        watching.cancel()
    return run


async def bench(args: argparse.Namespace) -> Json:
    from services.cli.bench.hops import difference, hop_buckets, scrape, table
    from services.cli.stack import Stack, StackConfig
    from shared.kube import KubeClient

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-bench-kueue-"))
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    stack = Stack(StackConfig(workdir=workdir, nodes=1, profile_dir=args.profile))
    counts = counts_at(args.scale)
    try:
        await stack.start(timeout=300)
        kube = await KubeClient.connect(str(stack.kubeconfig))
        try:
            queues = await create_queues(kube, args.cohorts, args.queues)
            print(f"  {len(queues)} ClusterQueues created; creating workloads", flush=True)
            await asyncio.sleep(2)  # the queues reach the scheduler's cache before the workloads
            cpu_before = {**stack.cpu(), "bench (runner)": time.process_time()}
            ports = {n: p.health_port for n, p in stack.services.items() if p.health_port}
            hops_before = hop_buckets(await scrape(ports))
            run = await play(kube, queues, counts, args.timeout)
        finally:
            await kube.close()
        cpu_after = {**stack.cpu(), "bench (runner)": time.process_time()}
        texts = await scrape(ports)
        counters = _counters(texts)
        hops = table(difference(hops_before, hop_buckets(texts)), {})
        write_timeline(workdir / "timeline.json", run)
        cpu = {k: round(v - cpu_before.get(k, 0.0), 1) for k, v in sorted(cpu_after.items())}
        result = report(
            run,
            cohorts=args.cohorts,
            scale=args.scale,
            counts=counts,
            queues=len(queues),
            workdir=str(workdir),
            cpu=cpu,
        )
        return {**result, "counters": counters, "hops": [vars(h) for h in hops]}
    finally:
        stack.stop(grace=10)


# Service counters worth reading after a run: how many cycles, and what they wrote.
_COUNTERS = (
    "shoal_scheduler_cycles_total",
    "shoal_scheduler_admission_seconds_count",
    "shoal_scheduler_admission_seconds_sum",
    'shoal_scheduler_decisions_total{type="KueueStatusDecided"}',
    'shoal_binder_outcomes_total{outcome="Superseded"}',
)


def _counters(texts: dict[str, str]) -> dict[str, float]:
    found: dict[str, float] = {}
    for text in texts.values():
        for line in text.splitlines():
            name, _, value = line.rpartition(" ")
            if name in _COUNTERS:
                found[name] = round(float(value), 3)
    return found


def write_timeline(path: Path, run: Run) -> None:
    """Per workload: class, created, first admitted, finished (s since the first creation)."""

    def at(times: dict[str, float], name: str) -> float | None:
        return round(times[name] - run.first, 3) if name in times else None

    rows = {
        name: (
            run.klass.get(name),
            at(run.created, name),
            at(run.first_admitted, name),
            at(run.finished, name),
        )
        for name in run.created
    }
    path.write_text(json.dumps(rows))


def report(
    run: Run,
    *,
    cohorts: int,
    scale: float,
    counts: dict[str, int],
    queues: int,
    workdir: str,
    cpu: dict[str, float],
) -> Json:
    total = queues * sum(counts.values())
    wall = max(run.last - run.first, 1e-9)
    usage = 100 * sum(run.used.values()) / (NOMINAL * queues * wall)
    admission: dict[str, int] = {}
    for klass in counts:
        times = [
            at - run.created[name]
            for name, at in run.first_admitted.items()
            if run.klass.get(name) == klass
        ]
        admission[klass] = round(1000 * sum(times) / len(times)) if times else -1
    return {
        "cohorts": cohorts,
        "queues": queues,
        "workloads": total,
        "finished": len(run.finished),
        "wall_s": round(wall, 1),
        "usage_pct": round(usage, 1),
        "kueue_usage_pct": round(run.queue_usage.percent(NOMINAL * queues), 1),
        "mean_time_to_admission_ms": admission,
        "evictions": run.evictions,
        "scale": scale,
        "cpu_s": cpu,
        "workdir": workdir,
    }


def render(result: Json) -> str:
    means = result["mean_time_to_admission_ms"]
    lines = [
        f"shoal bench kueue: {result['cohorts']} cohorts x "
        f"{result['queues'] // max(result['cohorts'], 1)} ClusterQueues, "
        f"{result['workloads']} workloads (scale {result['scale']})",
        f"  finished     {result['finished']} of {result['workloads']}",
        f"  wall         {result['wall_s']} s (Kueue: <= 425 s, mean 351 s; target <= 120 s)",
        f"  CQ usage     {result['kueue_usage_pct']} % as Kueue's recorder measures it "
        "(admitted quota in ClusterQueue status; Kueue: >= 50 %, mean 55.9 %; target >= 80 %)",
        f"  jobs running {result['usage_pct']} % of the quota over the wall time "
        "(from the runner's admitted to its finished: stricter)",
        "  admission    "
        + ", ".join(
            f"{k} {means.get(k, -1) / 1000:.1f} s (Kueue {KUEUE_MEANS_MS[k] / 1000:.1f} s)"
            for k in KUEUE_MEANS_MS
        ),
        f"  evictions    {result['evictions']}",
        "  CPU seconds  " + ", ".join(f"{k} {v}" for k, v in result["cpu_s"].items()),
        "  counters     " + ", ".join(f"{k} {v:g}" for k, v in result["counters"].items()),
        f"  logs         {result['workdir']}/logs",
    ]
    if result.get("hops"):
        from services.cli.bench.hops import render_rows

        lines += ["  hops (whole run)", *render_rows(result["hops"])[:-1]]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.cohorts < 1 or args.queues < 1:
        raise UserError("--cohorts and --queues must be at least 1")
    if not 0 < args.scale <= 10:
        raise UserError("--scale must be in (0, 10]")
    result = asyncio.run(bench(args))
    print(json.dumps(result) if args.json else render(result))
    return 0 if result["finished"] == result["workloads"] else 1
