"""``shoal bench scheduler``: in-process session throughput on synthetic clusters.

Scenarios (architecture §7): (a) 5,000 nodes x 10,000 pending single-pod jobs, (b) 1,000 gangs
x 10 identical pods on 1,000 nodes, (c) 5,000 nodes x 50,000 pending pods (10,000 gangs of
5). Each runs one full session (snapshot build included) with the default conf and reports
decisions/s, session seconds and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

SCENARIOS = {
    "a": {"nodes": 5000, "jobs": 10000, "size": 1, "target": 10000.0},
    "b": {"nodes": 1000, "jobs": 1000, "size": 10, "target": 20000.0},
    "c": {"nodes": 5000, "jobs": 10000, "size": 5, "target_seconds": 2.0},
}
# A few request shapes, as real workloads have (cpu millis, memory Gi).
SHAPES = ((1000, 2), (2000, 4), (500, 1), (4000, 8))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", choices=("a", "b", "c", "all"), default="all")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")


def build(nodes: int, jobs: int, size: int) -> Any:
    import msgspec

    from services.scheduler.snapshot import Snapshot
    from shared.models import Node, Pod, PodGroup

    snap = Snapshot()
    for i in range(nodes):
        snap.nodes.append(
            msgspec.convert(
                {
                    "metadata": {"name": f"node-{i:05d}", "labels": {"pool": "default"}},
                    "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}},
                },
                Node,
            )
        )
    for j in range(jobs):
        name = f"job-{j:05d}"
        snap.pod_groups.append(
            msgspec.convert(
                {
                    "metadata": {"name": name, "namespace": "bench"},
                    "spec": {"minMember": size, "queue": "default"},
                    "status": {"phase": "Pending"},
                },
                PodGroup,
            )
        )
        cpu, memory = SHAPES[j % len(SHAPES)] if size == 1 else SHAPES[0]
        for t in range(size):
            snap.pods.append(
                msgspec.convert(
                    {
                        "metadata": {
                            "name": f"{name}-{t}",
                            "namespace": "bench",
                            "annotations": {"scheduling.k8s.io/group-name": name},
                        },
                        "spec": {
                            "schedulerName": "volcano",
                            "containers": [
                                {
                                    "name": "main",
                                    "resources": {
                                        "requests": {"cpu": f"{cpu}m", "memory": f"{memory}Gi"}
                                    },
                                }
                            ],
                        },
                        "status": {"phase": "Pending"},
                    },
                    Pod,
                )
            )
    return snap


def run_scenario(name: str, *, profile: bool = False) -> dict[str, Any]:
    from datetime import UTC, datetime

    from services.scheduler.cycle import Scheduling
    from services.scheduler.snapshot import DEFAULT_SCHEDULER_NAMES

    spec = SCENARIOS[name]
    snap = build(int(spec["nodes"]), int(spec["jobs"]), int(spec["size"]))
    scheduling = Scheduling()
    now = datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    start = time.perf_counter()
    result = scheduling.session(snap, now=now, scheduler_names=DEFAULT_SCHEDULER_NAMES)
    seconds = time.perf_counter() - start
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    pods = len(snap.pods)
    report: dict[str, Any] = {
        "scenario": name,
        "nodes": spec["nodes"],
        "pods": pods,
        "binds": len(result.binds),
        "session_seconds": round(seconds, 3),
        "decisions_per_second": round(len(result.binds) / seconds, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if "target" in spec:
        report["target_per_second"] = spec["target"]
        report["meets_target"] = report["decisions_per_second"] >= spec["target"]
    else:
        report["target_seconds"] = spec["target_seconds"]
        report["meets_target"] = seconds < spec["target_seconds"]
    return report


def run(args: argparse.Namespace) -> int:
    names = ["a", "b", "c"] if args.scenario == "all" else [args.scenario]
    reports = [run_scenario(n, profile=args.profile) for n in names]
    if args.json:
        print(json.dumps({"scheduler": reports}, sort_keys=True))
    else:
        for r in reports:
            print(
                f"({r['scenario']}) {r['nodes']} nodes, {r['pods']} pods: {r['binds']} binds in"
                f" {r['session_seconds']}s = {r['decisions_per_second']:.0f} pods/s,"
                f" peak RSS {r['peak_rss_mib']} MiB, target met: {r['meets_target']}"
            )
    return 0
