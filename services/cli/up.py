"""``shoal up`` (``make run``): the whole system locally, the demo jobs, live progress.

Starts the embedded broker, kubesim with a few simulated nodes and the four services as separate
processes; submits deploy/examples; shows jobs, phases and pods until every demo job finished;
prints a summary. With ``--kubeconfig``/``--bootstrap`` it runs the services against a real
cluster and a real Kafka instead of the embedded ones. Ctrl-C stops everything cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from services.cli.progress import JobProgress, progress
from services.cli.stack import Stack, StackConfig
from services.cli.submit import apply, load_documents, manifest_files
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
    parser.add_argument("--kubeconfig", type=Path, help="use this cluster instead of kubesim")
    parser.add_argument("--bootstrap", help="use this Kafka instead of the embedded broker")
    parser.add_argument("--examples", type=Path, default=EXAMPLES, help="demo manifests")
    parser.add_argument("--no-demo", action="store_true", help="start the system only")
    parser.add_argument("--nodes", type=int, default=8, help="simulated nodes (kubesim)")
    parser.add_argument("--node-cpu", default="16", help="CPU of each simulated node")
    parser.add_argument("--node-memory", default="64Gi", help="memory of each simulated node")
    parser.add_argument("--node-gpus", type=int, default=4, help="GPUs of each simulated node")
    parser.add_argument("--workdir", type=Path, default=Path(".shoal"), help="logs, kubeconfig")
    parser.add_argument("--timeout", type=float, default=300, help="demo deadline (s)")
    parser.add_argument(
        "--stay",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep running after the demo (default: when on a terminal)",
    )


async def snapshot(kube: KubeClient) -> list[JobProgress]:
    jobs = []
    for api_version, kind in JOB_KINDS:
        items, _ = await kube.list_all(resource_for(api_version, kind))
        jobs.extend(items)
    pods, _ = await kube.list_all(resource_for("v1", "Pod"))
    return progress(jobs, pods)


def render(rows: list[JobProgress], elapsed: float) -> object:
    from rich.table import Table

    table = Table(title=f"Shoal demo — {elapsed:5.1f}s", expand=False)
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


async def demo(stack: Stack, examples: Path, timeout: float) -> list[JobProgress]:
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
                live.update(render(rows, time.monotonic() - started))  # type: ignore[arg-type]
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


async def up(args: argparse.Namespace) -> int:
    _check_node_shape(args)
    config = StackConfig(
        workdir=args.workdir,
        bootstrap=args.bootstrap,
        kubeconfig=args.kubeconfig,
        nodes=args.nodes,
        node_cpu=args.node_cpu,
        node_memory=args.node_memory,
        node_gpus=args.node_gpus,
    )
    stack = Stack(config)
    print("starting Shoal: broker, kubesim, watcher, jobcontroller, scheduler, binder ...")
    try:
        await stack.start()
        print(f"  Kafka {stack.bootstrap}; kubeconfig {stack.kubeconfig}; logs {args.workdir}/logs")
        code = 0
        if not args.no_demo:
            rows = await demo(stack, args.examples, args.timeout)
            print("\n" + summary(rows))
            code = 0 if rows and all(r.succeeded_job for r in rows) else 1
        stay = sys.stdin.isatty() if args.stay is None else args.stay
        if stay:
            print(
                f"Shoal is running. kubectl --kubeconfig {stack.kubeconfig} get pods -A; "
                "Ctrl-C stops everything."
            )
            await asyncio.Event().wait()
        return code
    finally:
        codes = stack.stop()
        print("stopped: " + ", ".join(f"{k}={v}" for k, v in codes.items()))


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(up(args))
    except KeyboardInterrupt:
        return 130
