"""``shoal bench jobcontroller``: reconciles/s and pods created/s of the batch/v1 Job core.

Drives the pure reconcile loop against a cluster: every round syncs each unfinished job and
applies its actions, then the kubelet moves pods one step (Pending → Running → Succeeded),
until every job is Complete. The default target is the in-memory ``FakeCluster``;
``--target kubesim`` runs the deployed services end to end instead (``bench_kubesim``).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from typing import Any

from shared.errors import UserError

TARGETS = ("memory", "kubesim")
MAX_ROUNDS = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=1000, help="number of Jobs (default 1000)")
    parser.add_argument("--pods", type=int, default=10, help="pods per Job (default 10)")
    parser.add_argument("--target", choices=TARGETS, default="memory", help="cluster to drive")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


@dataclass(frozen=True, slots=True)
class Result:
    target: str
    jobs: int
    pods_per_job: int
    rounds: int
    reconciles: int
    pods_created: int
    reconcile_seconds: float  # time inside reconcile only
    total_seconds: float  # reconcile + applying actions + kubelet
    reconciles_per_s: float
    pods_created_per_s: float  # over total_seconds
    pods_created_per_s_reconcile_only: float


def run(args: argparse.Namespace) -> int:
    if args.jobs <= 0 or args.pods <= 0:
        raise UserError("--jobs and --pods must be positive")
    if args.target == "kubesim":
        from services.cli.bench.jobcontroller_kubesim import run_kubesim

        return run_kubesim(args)
    result = bench(jobs=args.jobs, pods=args.pods, target=args.target)
    if args.json:
        print(json.dumps(asdict(result), indent=2))
    else:
        print(_table(result))
    return 0


def bench(*, jobs: int, pods: int, target: str = "memory") -> Result:
    from services.jobcontroller.batchjob import reconcile

    cluster = _cluster(target, jobs, pods)
    now = 1_700_000_000.0
    reconciles = created = rounds = 0
    in_reconcile = 0.0
    started = time.perf_counter()
    while (pending := cluster.pending_jobs()) and rounds < MAX_ROUNDS:
        rounds += 1
        for job in pending:
            observed = cluster.observe(job)
            t0 = time.perf_counter()
            actions = reconcile(job, observed, now)
            in_reconcile += time.perf_counter() - t0
            reconciles += 1
            created += len(actions.create)
            cluster.apply(job, actions, now)
        now += 1.0
        cluster.run_kubelet(now)
    total = time.perf_counter() - started
    if cluster.pending_jobs():
        raise RuntimeError(f"jobs still unfinished after {MAX_ROUNDS} rounds")
    return Result(
        target=target,
        jobs=jobs,
        pods_per_job=pods,
        rounds=rounds,
        reconciles=reconciles,
        pods_created=created,
        reconcile_seconds=round(in_reconcile, 4),
        total_seconds=round(total, 4),
        reconciles_per_s=round(reconciles / total, 1),
        pods_created_per_s=round(created / total, 1),
        pods_created_per_s_reconcile_only=round(created / in_reconcile, 1),
    )


def _cluster(target: str, jobs: int, pods: int) -> Any:
    if target != "memory":
        raise UserError(f"bench() drives the in-memory cluster only, not {target!r}")
    from services.cli.bench.fakecluster import FakeCluster
    from shared.models import Job, convert

    cluster = FakeCluster()
    for i in range(jobs):
        cluster.add_job(convert(_job_manifest(i, pods), Job))
    return cluster


def _job_manifest(i: int, pods: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": f"bench-{i}", "namespace": "bench", "uid": f"job-uid-{i}"},
        "spec": {
            "completions": pods,
            "parallelism": pods,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                }
            },
        },
    }


def _table(result: Result) -> str:
    rows = [
        ("target", result.target),
        ("jobs x pods", f"{result.jobs} x {result.pods_per_job}"),
        ("rounds", str(result.rounds)),
        ("reconciles", str(result.reconciles)),
        ("pods created", str(result.pods_created)),
        ("time in reconcile (s)", f"{result.reconcile_seconds:.3f}"),
        ("total time (s)", f"{result.total_seconds:.3f}"),
        ("reconciles/s", f"{result.reconciles_per_s:,.0f}"),
        ("pods created/s", f"{result.pods_created_per_s:,.0f}"),
        ("pods created/s (reconcile only)", f"{result.pods_created_per_s_reconcile_only:,.0f}"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value:>14}" for name, value in rows)
