"""``shoal simulate admit -f FILE``: one Kueue-style admission run on the manifests in FILE.

ResourceFlavors, ClusterQueues, LocalQueues, Workloads, Namespaces (for namespaceSelector)
and PriorityClasses are read from the file; Workloads with ``status.admission`` (or
QuotaReserved/Admitted=True) already hold quota. Output (architecture §5): ``admitted`` (admitted by
this run), ``pending`` and ``preempted`` (admitted workloads chosen for eviction). ``-o text``
adds why each pending workload waits. Bad input raises UserError/ManifestError (exit 2).
"""

from __future__ import annotations

import argparse
import json

from services.cli.debug.simulate_schedule import parse_now, read_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--filename", required=True, help="multi-document YAML ('-': stdin)")
    parser.add_argument("-o", "--output", choices=("json", "text"), default="json")
    parser.add_argument("--now", help="the clock, ISO 8601 (default: now); dates admissions")


def run(args: argparse.Namespace) -> int:
    from services.scheduler.kueue import admit
    from shared.models import load_manifests

    source = args.filename
    objects = load_manifests(read_source(source), source=source)
    result = admit(objects, parse_now(args.now), source=source)
    if args.output == "json":
        print(json.dumps(result.decisions(), sort_keys=True, indent=2))
        return 0
    for key, admitted in sorted(result.admitted.items()):
        flavors = "; ".join(
            f"{name} x{ps.count}: "
            + ", ".join(f"{res}={flavor}" for res, flavor in sorted(ps.flavors.items()))
            for name, ps in sorted(admitted.podsets.items())
        )
        print(f"admit {key} -> {admitted.cluster_queue} ({flavors})")
    for key, preemptor in sorted(result.preempted.items()):
        print(f"preempt {key} (for {preemptor})")
    for key, why in sorted(result.pending.items()):
        print(f"pending {key}: {why.reason}: {why.message}")
    return 0
