"""``shoal bench all`` (``make bench``): every benchmark, each in its own process.

Each runs with ``--json`` so the numbers can be collected into one document; a separate process
per benchmark keeps their peak-memory figures apart.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

BENCHES = ("bus", "kubesim", "scheduler", "restart", "jobcontroller", "e2e", "idle")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", nargs="*", choices=BENCHES, help="a subset, in this order")
    parser.add_argument("--out", help="also write the collected JSON here")


def run(args: argparse.Namespace) -> int:
    results: dict[str, object] = {}
    failed = 0
    for name in args.only or BENCHES:
        print(f"== shoal bench {name}", flush=True)
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "services.cli.main", "bench", name, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or not lines:
            failed += 1
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            print(f"   failed (exit {proc.returncode}): {' | '.join(tail)}", flush=True)
            continue
        results[name] = json.loads(lines[-1])
        print(f"   {lines[-1]}  ({time.monotonic() - started:.0f}s)", flush=True)
    if args.out:
        with open(args.out, "w") as out:
            json.dump(results, out, indent=2)
    return 1 if failed else 0
