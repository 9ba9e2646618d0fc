"""The `shoal` command: one entry point that dispatches to each service's commands.

Each command lives in the package that owns it, as a module exposing
``add_arguments(parser)`` and ``run(args) -> int``; this module only knows where they are.
Only the CLI may import every service (import-linter enforces the rest).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from shared.errors import UserError

# (words, module, help). Order is the order `shoal --help` lists them.
COMMANDS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("up",), "services.cli.up", "start the whole system (embedded broker + kubesim + services)"),
    (("run", "broker"), "services.cli.broker", "run the embedded Kafka-protocol broker"),
    (("run", "kubesim"), "services.kubesim.cli", "run the simulated Kubernetes API server"),
    (("run", "watcher"), "services.watcher.cli", "run the watcher service"),
    (("run", "jobcontroller"), "services.jobcontroller.cli", "run the job-controller service"),
    (("run", "scheduler"), "services.scheduler.cli", "run the scheduler service"),
    (("run", "binder"), "services.binder.cli", "run the binder service"),
    (("run", "webhook"), "services.webhook.cli", "run the admission and conversion webhook"),
    (("simulate", "schedule"), "services.cli.debug.simulate_schedule", "one scheduling session"),
    (("simulate", "reconcile"), "services.cli.debug.simulate_reconcile", "one sync of every job"),
    (("simulate", "admit"), "services.cli.debug.simulate_admit", "one Kueue admission cycle"),
    (("replay",), "services.cli.debug.replay", "re-run a recorded scheduler cycle, diff decisions"),
    (("explain",), "services.cli.debug.explain", "why a job is pending: each plugin's verdict"),
    (("submit",), "services.cli.submit", "create or update manifests on the API server"),
    (("bench", "all"), "services.cli.bench.all", "every benchmark, one process each"),
    (("bench", "bus"), "services.cli.bench.bus", "bus throughput through the broker"),
    (("bench", "client"), "services.cli.bench.client", "client CPU per API call, per HTTP stack"),
    (
        ("bench", "kubesim"),
        "services.cli.bench.kubesim",
        "kubesim creates/binds/watches per s",
    ),
    (("bench", "scheduler"), "services.cli.bench.scheduler", "scheduler decisions/s, session time"),
    (
        ("bench", "restart"),
        "services.cli.bench.restart",
        "scheduler restart to first decision",
    ),
    (
        ("bench", "jobcontroller"),
        "services.cli.bench.jobcontroller",
        "reconciles/s, pods created/s",
    ),
    (("bench", "e2e"), "services.cli.bench.e2e", "job created → all pods bound, whole stack"),
    (
        ("bench", "idle"),
        "services.cli.bench.idle",
        "CPU of the whole stack at rest, first job after",
    ),
    (
        ("bench", "broker-restart"),
        "services.cli.bench.broker_restart",
        "the broker killed mid-burst: first bind after it is back, lost and doubled jobs",
    ),
    (("bench", "kueue"), "services.cli.bench.kueue", "Kueue's scheduler baseline, whole stack"),
    (
        ("bench", "compare"),
        "services.cli.bench.compare",
        "one workload through an upstream peer and through Shoal, on the real control plane",
    ),
    (
        ("compare", "decisions"),
        "services.cli.decisions.command",
        "replay scenarios under an upstream peer and under Shoal, diff the decisions",
    ),
    (
        ("bench", "kueue-replay"),
        "services.cli.bench.kueue_replay",
        "Kueue's scheduler baseline through the admission alone, in-process, fake clock",
    ),
)


def _load(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            return None  # not built yet in this checkout
        raise


def _selected(words: tuple[str, ...], lead: Sequence[str] | None) -> bool:
    """Whether the command ``words`` may be the one ``lead`` (argv's leading words) names."""
    if lead is None:
        return True
    n = min(len(words), len(lead))
    return tuple(lead[:n]) == words[:n]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole CLI; given ``argv``, only the command it names is imported (the others are
    listed by their help text), so ``shoal run kubesim`` does not import the Kubernetes
    client, numpy and every other command: each service and kubesim start seconds sooner."""
    lead = (
        None if argv is None else list(itertools.takewhile(lambda a: not a.startswith("-"), argv))
    )
    parser = argparse.ArgumentParser(prog="shoal", description=__doc__.splitlines()[0])
    groups: dict[tuple[str, ...], argparse._SubParsersAction[argparse.ArgumentParser]] = {}
    groups[()] = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parsers: dict[tuple[str, ...], argparse.ArgumentParser] = {}
    for words, module_name, help_text in COMMANDS:
        module = _load(module_name) if _selected(words, lead) else None
        if module is None and _selected(words, lead):
            continue  # not built yet in this checkout
        for depth in range(1, len(words)):
            prefix = words[:depth]
            if prefix not in groups:
                sub = groups[words[: depth - 1]].add_parser(
                    words[depth - 1], help=f"{words[0]} ..."
                )
                parsers[prefix] = sub
                groups[prefix] = sub.add_subparsers(
                    dest="_".join(prefix), metavar="WHAT", required=True
                )
        leaf = groups[words[:-1]].add_parser(words[-1], help=help_text, description=help_text)
        if module is not None:
            module.add_arguments(leaf)
            leaf.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(words).parse_args(words)
    if args.command != "run":
        # A tool's failure to reach Kafka is reported once, in its own words (see failures);
        # aiokafka's own error lines would repeat it. Services keep them in their logs.
        logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    try:
        code: int = args._run(args)
    except UserError as exc:
        print(f"shoal: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from services.cli.failures import describe

        message = describe(exc)
        if message is None:
            raise  # a bug: keep the traceback
        print(f"shoal: {message}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
