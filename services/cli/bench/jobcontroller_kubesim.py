"""``shoal bench jobcontroller --target kubesim``: pods created/s end to end, as deployed.

kubesim, the watcher and the job controller each run as a child process (``shoal run ...``),
over the embedded broker (or ``KAFKA_BOOTSTRAP``), as in a cluster; this process only creates
the Jobs (concurrently) and watches the pods appear. The clock runs from the first Job
creation to the moment all jobs x pods Pods exist in kubesim. No scheduler runs: the Jobs use
``default-scheduler``, so they need no PodGroup and their pods stay Pending.

Children are started by argv, not imported: services never import each other.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import aiohttp
import msgspec
from prometheus_client.parser import text_string_to_metric_families

from shared.broker import EmbeddedBroker, resolve_bootstrap
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind, KafkaSettings, load_settings
from shared.kube import KubeClient, resource_for
from shared.models import Json
from shared.topics import Topics

NAMESPACE = "bench"
BATCH_JOB = resource_for("batch/v1", "Job")
POD = resource_for("v1", "Pod")
# What the job controller consumes; the watcher mirrors only these.
WATCHED = "v1/Pod,v1/Service,batch/v1/Job,scheduling.volcano.sh/v1beta1/PodGroup,"
WATCHED += "scheduling.volcano.sh/v1beta1/Queue,bus.volcano.sh/v1alpha1/Command"
CREATE_CONCURRENCY = 64
SERVICES = ("watcher", "jobcontroller")
SYNC_METRICS = (
    "shoal_jobcontroller_syncs_total",
    "shoal_jobcontroller_sync_seconds_sum",
    "shoal_jobcontroller_sync_seconds_count",
    "shoal_jobcontroller_created_total",
)
# `shoal run NAME` without building the parser of every other command (fewer imports, and a
# half-edited command elsewhere cannot break the bench).
_LAUNCH = (
    "import argparse, importlib, sys; m = importlib.import_module(sys.argv[1]); "
    "p = argparse.ArgumentParser(); m.add_arguments(p); sys.exit(m.run(p.parse_args(sys.argv[2:])))"
)


@dataclass(frozen=True, slots=True)
class KubesimResult:
    target: str
    jobs: int
    pods_per_job: int
    pods_created: int
    job_create_seconds: float  # first → last Job create answered
    total_seconds: float  # first Job create → last Pod seen in kubesim
    first_pod_seconds: float  # first Job create → first Pod seen
    reconciles: int  # jobcontroller syncs (its /metrics) once its last Pod creation returned
    reconciles_per_s: float  # over first Job create → that moment
    mean_sync_seconds: float  # one job's sync, API calls included
    pods_created_per_s: float
    rss_mib: dict[str, float]  # peak (VmHWM) per process (the bench itself and its children)
    cpu_seconds: dict[str, float]  # user+system CPU per process while measuring


def run_kubesim(args: argparse.Namespace) -> int:
    result = asyncio.run(bench_kubesim(jobs=args.jobs, pods=args.pods))
    print(json.dumps(asdict(result), indent=2) if args.json else table(result))
    return 0


async def bench_kubesim(
    *,
    jobs: int,
    pods: int,
    bootstrap: str | None = None,
    broker: BrokerKind | None = None,
    timeout: float | None = None,
) -> KubesimResult:
    """Start the children, create the Jobs, wait for every Pod; stop everything. ``broker`` is
    what an external ``bootstrap`` is (else ``SHOAL_BROKER``); the embedded one is Tansu."""
    deadline = timeout if timeout is not None else 60.0 + jobs * pods / 100
    pids: dict[str, int] = {"bench": os.getpid()}
    with contextlib.ExitStack() as stack:
        bootstrap = bootstrap or resolve_bootstrap()
        kind = broker or load_settings(KafkaSettings).broker
        if bootstrap is None:
            embedded = stack.enter_context(EmbeddedBroker())
            bootstrap, pids["broker"] = embedded.bootstrap, embedded.pid or 0
            kind = EmbeddedBroker.kind
        # The services are told what the broker is; on Tansu they park fetches briefly, as
        # in the local stack.
        kafka: dict[str, str] = {"SHOAL_BROKER": kind}
        if kind == "tansu":
            kafka["SHOAL_FETCH_MAX_WAIT_MS"] = "10"
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-jc-")))
        prefix = f"bench.{uuid.uuid4().hex[:8]}."
        await _create_topics(
            load_settings(KafkaSettings, {**os.environ, **kafka}), bootstrap, prefix
        )
        children: dict[str, Child] = {}
        try:
            kubesim_argv = ["--nodes", "4", "--allow-missing-namespaces"]
            children["kubesim"] = await Child.start("kubesim", workdir, kubesim_argv, {})
            await children["kubesim"].wait_ready(30.0)
            env = {
                "KAFKA_BOOTSTRAP": bootstrap,
                "KUBECONFIG": str(children["kubesim"].kubeconfig),
                "SHOAL_TOPIC_PREFIX": prefix,
                "SHOAL_LOG_FORMAT": "json",
                "SHOAL_WATCHER_RESOURCES": WATCHED,
                **kafka,
            }
            for name in SERVICES:
                children[name] = await Child.start(name, workdir, [], env)
            for name in SERVICES:
                await children[name].wait_ready(60.0)
            pids.update((name, child.proc.pid) for name, child in children.items())
            return await _measure(children, pids, jobs=jobs, pods=pods, timeout=deadline)
        finally:
            for child in reversed(children.values()):
                await child.stop()


async def _create_topics(services: KafkaSettings, bootstrap: str, prefix: str) -> None:
    """Before any service starts: racing creates of one topic upset the embedded broker."""
    settings = msgspec.structs.replace(services, bootstrap=bootstrap, topic_prefix=prefix)
    async with KafkaBus(settings=settings) as bus:
        await bus.create_topics(Topics(prefix=prefix).everything())


async def _measure(
    children: dict[str, Child], pids: dict[str, int], *, jobs: int, pods: int, timeout: float
) -> KubesimResult:
    kube = await KubeClient.connect(str(children["kubesim"].kubeconfig))
    try:
        _, version = await kube.list_all(POD, namespace=NAMESPACE)
        seen = PodCounter(jobs * pods)
        watching = asyncio.create_task(seen.follow(kube, version))
        cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        started = time.perf_counter()
        gate = asyncio.Semaphore(CREATE_CONCURRENCY)

        async def create(i: int) -> None:
            async with gate:
                await kube.create(BATCH_JOB, job_manifest(i, pods))

        await asyncio.gather(*(create(i) for i in range(jobs)))
        created = time.perf_counter() - started
        finished = asyncio.create_task(seen.done.wait())
        await asyncio.wait({watching, finished}, timeout=timeout, return_when="FIRST_COMPLETED")
        watching.cancel()
        finished.cancel()
        if not seen.done.is_set():
            if watching.done() and not watching.cancelled() and watching.exception():
                raise RuntimeError("watching pods failed") from watching.exception()
            raise RuntimeError(
                f"{len(seen.names)} of {jobs * pods} pods after {timeout:.0f}s; "
                f"jobcontroller log: {children['jobcontroller'].tail()}"
            )
        total = seen.last - started
        syncs = await _settled_syncs(children["jobcontroller"], jobs * pods)
        synced = time.perf_counter() - started
        cpu = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
    finally:
        await kube.close()
    reconciles, sync_sum, sync_count, _ = (syncs[name] for name in SYNC_METRICS)
    return KubesimResult(
        target="kubesim",
        jobs=jobs,
        pods_per_job=pods,
        pods_created=len(seen.names),
        job_create_seconds=round(created, 3),
        total_seconds=round(total, 3),
        first_pod_seconds=round(seen.first - started, 3),
        reconciles=int(reconciles),
        reconciles_per_s=round(reconciles / synced, 1),
        mean_sync_seconds=round(sync_sum / max(sync_count, 1.0), 4),
        pods_created_per_s=round(len(seen.names) / total, 1),
        rss_mib={name: round(peak_rss_mib(pid), 1) for name, pid in pids.items()},
        cpu_seconds={name: round(seconds, 2) for name, seconds in cpu.items()},
    )


async def _settled_syncs(controller: Child, pods: int) -> dict[str, float]:
    """The sync metrics once every sync that created a Pod has finished (and counted it):
    a Pod's ADDED event can reach us before the sync that created it returns."""
    async with asyncio.timeout(30.0):
        while (found := await controller.metrics(*SYNC_METRICS))[SYNC_METRICS[-1]] < pods:
            await asyncio.sleep(0.05)
        return found


class PodCounter:
    """Counts distinct Pods ADDED in the bench namespace; ``done`` once all are there."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.names: set[str] = set()
        self.first = self.last = 0.0
        self.done = asyncio.Event()

    async def follow(self, kube: KubeClient, version: str) -> None:
        while not self.done.is_set():  # a stream that ends is re-watched from where it was
            async for kind, obj in kube.watch(POD, resource_version=version, namespace=NAMESPACE):
                meta = obj.get("metadata") or {}
                version = str(meta.get("resourceVersion", version))
                if kind == "ADDED":
                    self._add(str(meta.get("name")))

    def _add(self, name: str) -> None:
        now = time.perf_counter()
        if not self.names:
            self.first = now
        self.names.add(name)
        self.last = now
        if len(self.names) >= self.expected:
            self.done.set()


def job_manifest(i: int, pods: int) -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": f"bench-{i}", "namespace": NAMESPACE},
        "spec": {
            "completions": pods,
            "parallelism": pods,
            "template": {
                "spec": {
                    "schedulerName": "default-scheduler",
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                }
            },
        },
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Child:
    """One ``shoal run NAME`` process, its log file in the work dir."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process, log: Path, port: int) -> None:
        self.name = name
        self.proc = proc
        self.log = log
        self.port = port  # kubesim's API port, or a service's /metrics /readyz port
        self.kubeconfig = log.parent / "kubeconfig"

    @classmethod
    async def start(cls, name: str, workdir: Path, argv: list[str], env: dict[str, str]) -> Child:
        port = _free_port()
        if name == "kubesim":
            argv = [*argv, "--port", str(port), "--kubeconfig-out", str(workdir / "kubeconfig")]
        else:
            env = {**env, "SHOAL_HTTP_PORT": str(port)}
        log = workdir / f"{name}.log"
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                *(sys.executable, "-c", _LAUNCH, f"services.{name}.cli", *argv),
                env={**os.environ, **env},
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )
        return cls(name, proc, log, port)

    async def wait_ready(self, timeout: float) -> None:
        path = "/version" if self.name == "kubesim" else "/readyz"
        url = f"http://127.0.0.1:{self.port}{path}"
        async with asyncio.timeout(timeout), aiohttp.ClientSession() as session:
            while True:
                if self.proc.returncode is not None:
                    raise RuntimeError(f"{self.name} exited: {self.tail()}")
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(url) as response:
                        if response.status == 200:
                            break
                await asyncio.sleep(0.1)
            while self.name == "kubesim" and not self.kubeconfig.exists():
                await asyncio.sleep(0.05)

    async def metrics(self, *names: str) -> dict[str, float]:
        """Each sample name's value summed over all labels, from the child's /metrics."""
        url = f"http://127.0.0.1:{self.port}/metrics"
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            text = await response.text()
        sums = dict.fromkeys(names, 0.0)
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name in sums:
                    sums[sample.name] += sample.value
        return sums

    def tail(self, lines: int = 5) -> str:
        return " | ".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


def peak_rss_mib(pid: int) -> float:
    """VmHWM of /proc/PID/status in MiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def table(result: KubesimResult) -> str:
    rows = [
        ("target", result.target),
        ("jobs x pods", f"{result.jobs} x {result.pods_per_job}"),
        ("pods created", str(result.pods_created)),
        ("job creates (s)", f"{result.job_create_seconds:.3f}"),
        ("first pod after (s)", f"{result.first_pod_seconds:.3f}"),
        ("all pods after (s)", f"{result.total_seconds:.3f}"),
        ("pods created/s", f"{result.pods_created_per_s:,.0f}"),
        ("reconciles", str(result.reconciles)),
        ("reconciles/s", f"{result.reconciles_per_s:,.0f}"),
        ("mean sync (ms)", f"{result.mean_sync_seconds * 1000:.1f}"),
    ]
    for name in result.rss_mib:
        rows.append((f"{name} peak RSS (MiB)", f"{result.rss_mib[name]:.0f}"))
        rows.append((f"{name} CPU (s)", f"{result.cpu_seconds[name]:.1f}"))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value:>14}" for name, value in rows)
