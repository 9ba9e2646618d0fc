"""``shoal compare decisions``: replay scenarios under a peer and under Shoal on the real
control plane and diff what each decided (``services.cli.decisions``).

Both sides run at once, each on its own plane, each taking the scenarios one after another.
Exit 0 when at least ``--threshold`` of the scenarios give the same determined decisions and
every scenario ran on both sides, else 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from services.cli.decisions.generating import volcano_scenario
from services.cli.decisions.kueue import KueueScenario, kueue_scenario
from services.cli.decisions.outcome import Outcome
from services.cli.decisions.report import THRESHOLD, Report, compare, render
from services.cli.decisions.scenario import Scenario
from shared.errors import UserError

if TYPE_CHECKING:
    from services.cli.decisions.running import Side


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--peer", choices=("volcano", "kueue", "all"), default="volcano", help="which peer"
    )
    parser.add_argument("--seed", type=int, help="only the random scenario of this seed")
    parser.add_argument(
        "--count", type=int, default=100, help="random scenarios per peer (seeds from --first)"
    )
    parser.add_argument("--first", type=int, default=0, help="the first seed of --count")
    parser.add_argument(
        "--corpus", choices=("random", "examples", "all"), default="random", help="which scenarios"
    )
    parser.add_argument(
        "--threshold", type=float, default=THRESHOLD, help="share of scenarios that must agree"
    )
    parser.add_argument("--workdir", type=Path, help="planes' logs (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def scenarios(peer: str, args: argparse.Namespace) -> list[Scenario | KueueScenario]:
    """The corpus of ``peer`` the arguments select."""
    seeds = [args.seed] if args.seed is not None else range(args.first, args.first + args.count)
    out: list[Scenario | KueueScenario] = []
    if peer == "kueue":
        if args.corpus in ("random", "all"):
            out += [kueue_scenario(seed) for seed in seeds]
        if args.corpus in ("examples", "all") and args.seed is None:
            from services.cli.decisions.examples import kueue_examples

            out += kueue_examples()
        return out
    if args.corpus in ("random", "all"):
        out += [volcano_scenario(seed) for seed in seeds]
    if args.corpus in ("examples", "all") and args.seed is None:
        from services.cli.decisions.examples import volcano_examples

        out += volcano_examples()
    return out


async def run_sides(
    peer: str,
    corpus: Sequence[Scenario | KueueScenario],
    workdir: Path,
    *,
    progress: Callable[[str], None] = lambda _: None,
    preexec: Callable[[], None] | None = None,
) -> tuple[list[Outcome], list[Outcome]]:
    """Every scenario on the peer's plane and on Shoal's, both planes at once; the order is by
    conf, so each side reloads its conf as seldom as it can."""
    from services.cli.decisions.running import (
        kueue_side,
        run_scenario,
        shoal_side,
        volcano_side,
    )

    ordered = sorted(corpus, key=lambda s: s.conf if isinstance(s, Scenario) else "")

    def start(name: str) -> AbstractAsyncContextManager[Side]:
        folder = workdir / name
        if name == "shoal":
            return shoal_side(folder, preexec=preexec, kube_scheduler=peer == "kueue")
        return (kueue_side if peer == "kueue" else volcano_side)(folder, preexec=preexec)

    async def one(name: str) -> list[Outcome]:
        outcomes = []
        async with start(name) as side:
            for scenario in ordered:
                outcome = await run_scenario(side, scenario)
                progress(f"{name} {scenario.name}: {outcome.seconds} s {outcome.error}".rstrip())
                outcomes.append(outcome)
        return outcomes

    left, right = await asyncio.gather(one(peer), one("shoal"))
    return left, right


def _progress(started: float, *, quiet: bool) -> Callable[[str], None]:
    def say(line: str) -> None:
        if not quiet:
            print(f"  [{time.monotonic() - started:6.0f} s] {line}", flush=True)

    return say


def run(args: argparse.Namespace) -> int:
    from services.cli.controlplane.real import built
    from services.cli.processes import die_with_parent

    if args.count < 1:
        raise UserError("--count must be at least 1")
    if not built():
        raise UserError("the real control plane is not built: run `make control-plane`")
    peers = ["volcano", "kueue"] if args.peer == "all" else [args.peer]
    root = args.workdir or Path(tempfile.mkdtemp(prefix="shoal-compare-decisions-"))
    preexec = die_with_parent() if threading.current_thread() is threading.main_thread() else None
    reports: list[Report] = []
    for peer in peers:
        corpus = scenarios(peer, args)
        started = time.monotonic()
        progress = _progress(started, quiet=args.json)

        left, right = asyncio.run(
            run_sides(peer, corpus, root / peer, progress=progress, preexec=preexec)
        )
        report = compare(peer, corpus, left, right, threshold=args.threshold)
        reports.append(report)
        if not args.json:
            print(render(report))
            print(f"wall {time.monotonic() - started:.0f} s; logs in {root / peer}", flush=True)
    if args.json:
        print(json.dumps([msgspec.to_builtins(r) for r in reports]))
    return 0 if all(r.passed for r in reports) else 1
