"""``shoal up`` (``make run``): the whole system locally, the demo jobs, live progress.

Starts the embedded broker, kubesim with a few simulated nodes and the four services as separate
processes (with ``--control-plane real``: etcd, kube-apiserver, its controllers, kwok nodes and
Apache Kafka instead of kubesim and the embedded broker, ``services.cli.controlplane.real``);
submits deploy/examples; shows jobs, phases and pods until every demo job finished; prints a
summary. With ``--kubeconfig``/``--bootstrap`` it runs the services against a real
cluster and a real Kafka instead of the embedded ones. It supervises its children (``supervise``):
one that exits is restarted with back-off and reported; Ctrl-C or SIGTERM stops everything
cleanly, and the children die with it if it crashes. With ``--no-demo`` it stays up.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import sys
import time
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import TypeVar

from services.cli import controlplane
from services.cli.controlplane.real import MANAGED_BY
from services.cli.failures import check_kubeconfig
from services.cli.processes import die_with_parent
from services.cli.progress import JobProgress, progress
from services.cli.stack import Stack, StackConfig
from services.cli.submit import apply, load_documents, manifest_files
from services.cli.supervise import Supervisor
from shared.errors import QuantityError, UserError
from shared.kube import KubeClient, resource_for
from shared.quantities import parse_quantity

EXAMPLES = Path(__file__).resolve().parents[2] / "deploy" / "examples"
JOB_KINDS = (
    ("batch/v1", "Job"),
    ("batch.volcano.sh/v1alpha1", "Job"),
    ("kubeflow.org/v1", "PyTorchJob"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    controlplane.add_argument(parser)
    parser.add_argument(
        "--builtin-job-controller",
        action="store_true",
        help="--control-plane real: run kube-controller-manager's Job controller too; Shoal's "
        f"then runs only the Jobs with spec.managedBy: {MANAGED_BY}",
    )
    parser.add_argument("--kubeconfig", type=Path, help="use this cluster instead of kubesim")
    parser.add_argument("--bootstrap", help="use this Kafka instead of the embedded broker")
    parser.add_argument("--examples", type=Path, default=EXAMPLES, help="demo manifests")
    parser.add_argument("--no-demo", action="store_true", help="start the system only")
    parser.add_argument("--nodes", type=int, default=8, help="simulated nodes (kubesim)")
    parser.add_argument("--node-cpu", default="16", help="CPU of each simulated node")
    parser.add_argument("--node-memory", default="64Gi", help="memory of each simulated node")
    parser.add_argument("--node-gpus", type=int, default=4, help="GPUs of each simulated node")
    parser.add_argument("--workdir", type=Path, default=Path(".shoal"), help="logs, kubeconfig")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="kubesim keeps its objects here, so a crashed kubesim comes back with them "
        "(default: <workdir>/kubesim)",
    )
    parser.add_argument(
        "--keep-data",
        action="store_true",
        help="start from the objects an earlier `shoal up` left (default: start empty)",
    )
    parser.add_argument("--timeout", type=float, default=300, help="demo deadline (s)")
    parser.add_argument(
        "--stay",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep running after the demo (default: with --no-demo, or on a terminal)",
    )


async def snapshot(kube: KubeClient) -> list[JobProgress]:
    jobs = []
    for api_version, kind in JOB_KINDS:
        items, _ = await kube.list_all(resource_for(api_version, kind))
        jobs.extend(items)
    pods, _ = await kube.list_all(resource_for("v1", "Pod"))
    return progress(jobs, pods)


def render(
    rows: list[JobProgress], elapsed: float, restarts: Mapping[str, int] | None = None
) -> object:
    from rich.table import Table

    restarted = ", ".join(f"{name} x{n}" for name, n in sorted((restarts or {}).items()))
    table = Table(
        title=f"Shoal demo — {elapsed:5.1f}s",
        caption=f"restarted: {restarted}" if restarted else None,
        expand=False,
    )
    for column in ("kind", "job", "phase", "pods", "bound", "running", "succeeded", "failed"):
        table.add_column(column, justify="left" if column in ("kind", "job", "phase") else "right")
    for r in rows:
        style = "green" if r.succeeded_job else ("red" if r.done else "")
        table.add_row(
            r.kind,
            r.key,
            r.phase,
            str(r.pods),
            str(r.bound),
            str(r.running),
            str(r.succeeded),
            str(r.failed),
            style=style,
        )
    return table


async def demo(
    stack: Stack, examples: Path, timeout: float, restarts: Mapping[str, int]
) -> list[JobProgress]:
    from rich.console import Console
    from rich.live import Live

    console = Console()
    if not console.is_terminal:
        console = Console(width=110)
    kube = await KubeClient.connect(str(stack.kubeconfig))
    try:
        for obj in load_documents(manifest_files(examples)):
            outcome = await apply(kube, obj)
            console.print(f"  {obj['kind'].lower()}/{obj['metadata']['name']} {outcome}")
        started = time.monotonic()
        rows: list[JobProgress] = []
        with Live(console=console, refresh_per_second=4) as live:
            while time.monotonic() - started < timeout:
                rows = await snapshot(kube)
                elapsed = time.monotonic() - started
                live.update(render(rows, elapsed, restarts))  # type: ignore[arg-type]
                if rows and all(r.done for r in rows):
                    break
                await asyncio.sleep(0.5)
        return rows
    finally:
        await kube.close()


def summary(rows: list[JobProgress]) -> str:
    ok = sum(r.succeeded_job for r in rows)
    pods = sum(r.pods for r in rows)
    return f"{ok}/{len(rows)} demo jobs succeeded, {pods} pods" + (
        "" if all(r.done for r in rows) else " (some did not finish in time)"
    )


def _check_node_shape(args: argparse.Namespace) -> None:
    """Refuse a bad node shape here, in one line, rather than as a kubesim that never starts."""
    for flag, value in (("--node-cpu", args.node_cpu), ("--node-memory", args.node_memory)):
        try:
            parse_quantity(value)
        except QuantityError as exc:
            raise UserError(f"{flag} {value!r}: {exc}") from None
    if args.node_gpus < 0:
        raise UserError(f"--node-gpus {args.node_gpus}: must be >= 0")


T = TypeVar("T")


def stays_up(args: argparse.Namespace, *, terminal: bool) -> bool:
    """``--stay``/``--no-stay`` if given; else up without a demo, or after it on a terminal."""
    return bool(args.stay) if args.stay is not None else bool(args.no_demo or terminal)


async def _unless_stopped(stopping: asyncio.Event, work: Awaitable[T]) -> T | None:
    """``work``'s result, or None if ``stopping`` was set first (``work`` is cancelled)."""
    task = asyncio.ensure_future(work)
    stop = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return None
    finally:
        stop.cancel()


class _Report:
    """Supervisor news: printed (above the live view) and appended to logs/supervisor.log."""

    def __init__(self, workdir: Path) -> None:
        self._path = workdir / "logs" / "supervisor.log"

    def __call__(self, line: str) -> None:
        stamped = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}"
        print(f"shoal up: {line}", file=sys.stderr, flush=True)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("a") as log:
            log.write(stamped + "\n")


def kubesim_data_dir(args: argparse.Namespace) -> Path | None:
    """Where kubesim journals (none against a real cluster). Emptied first unless
    ``--keep-data``: a new ``shoal up`` (``make run``) starts from a fresh cluster, while a
    kubesim the supervisor restarts during the run gets every object back."""
    if args.kubeconfig is not None or args.control_plane == "real":
        return None
    data_dir: Path = args.data_dir or args.workdir / "kubesim"
    if data_dir.exists() and not data_dir.is_dir():
        raise UserError(f"--data-dir {data_dir}: not a directory")
    if not args.keep_data and data_dir.is_dir():
        shutil.rmtree(data_dir)
    return data_dir


async def up(args: argparse.Namespace) -> int:
    _check_node_shape(args)
    if args.kubeconfig is not None:
        check_kubeconfig(str(args.kubeconfig))
    config = StackConfig(
        kubesim_data_dir=kubesim_data_dir(args),
        workdir=args.workdir,
        control_plane=args.control_plane,
        builtin_job_controller=args.builtin_job_controller,
        bootstrap=args.bootstrap,
        kubeconfig=args.kubeconfig,
        nodes=args.nodes,
        node_cpu=args.node_cpu,
        node_memory=args.node_memory,
        node_gpus=args.node_gpus,
        preexec=die_with_parent(),
    )
    stack = Stack(config)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stopping.set)
    supervisor = Supervisor(stack, report=_Report(args.workdir))
    supervising: asyncio.Task[None] | None = None
    parts = (
        "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, Kafka"
        if args.control_plane == "real" and args.kubeconfig is None
        else "broker, kubesim"
    )
    print(f"starting Shoal: {parts}, watcher, jobcontroller, scheduler, binder ...")
    try:
        await _unless_stopped(stopping, stack.start(timeout=120))
        if stopping.is_set():
            return 130
        print(
            f"  Kafka {stack.bootstrap} (SHOAL_BROKER={stack.broker_kind}); "
            f"kubeconfig {stack.kubeconfig}; logs {args.workdir}/logs"
        )
        supervising = asyncio.create_task(supervisor.run(stopping))
        code = 0
        if not args.no_demo:
            rows = await _unless_stopped(
                stopping, demo(stack, args.examples, args.timeout, supervisor.restarts)
            )
            if rows is not None:
                print("\n" + summary(rows))
                code = 0 if rows and all(r.succeeded_job for r in rows) else 1
        if stays_up(args, terminal=sys.stdin.isatty()) and not stopping.is_set():
            print(
                f"Shoal is running. kubectl --kubeconfig {stack.kubeconfig} get pods -A; "
                "Ctrl-C stops everything.",
                flush=True,
            )
            await stopping.wait()
        return code
    finally:
        stopping.set()
        if supervising is not None:
            await supervising
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
        codes = await asyncio.to_thread(stack.stop)
        print("stopped: " + ", ".join(f"{k}={v}" for k, v in codes.items()), flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(up(args))
    except KeyboardInterrupt:
        return 130
