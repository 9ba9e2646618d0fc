"""``explain``: why is this job where it is — every plugin's verdict and each failing task's
node histogram, as data (for the API and ``shoal explain``) or as text for a terminal.

    shoal explain -f FILE NAMESPACE/PODGROUP [-o text|json]      one session on manifests
    shoal explain -f FILE NAMESPACE/WORKLOAD                     one Kueue admission run
    shoal explain --bootstrap HOST:PORT [--cycle N | --last] NAMESPACE/PODGROUP|WORKLOAD

With ``-f`` the session is the one ``shoal simulate schedule`` runs; with ``--bootstrap`` (or
``--file LOG.jsonl``) it is a recorded cycle, rebuilt from the log as ``shoal replay`` does.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

import msgspec

from services.scheduler.result import JobReasons, SessionResult
from shared.errors import UserError
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.models import Condition

if TYPE_CHECKING:
    from services.cli.debug.replaying import Recorded
    from shared.bus import RawRecord


def explain(result: SessionResult, job: str) -> JobReasons:
    """The reasons the session kept for ``job``: ``namespace/podgroup``, or the job's own name
    (a Volcano Job's PodGroup is ``<job>-<uid>``)."""
    found = result.reasons.get(job)
    if found is not None:
        return found
    named = [key for key in result.reasons if _volcano_podgroup_of(key, job)]
    if len(named) == 1:
        return result.reasons[named[0]]
    known = ", ".join(sorted(result.reasons)[:10]) or "none"
    raise UserError(f"job {job!r} was not in the session (jobs: {known})")


_UID_LENGTH = 36


def _volcano_podgroup_of(key: str, job: str) -> bool:
    """``key`` is ``<job>-<uid>``, the PodGroup Volcano's job controller names after a job."""
    return key.startswith(job + "-") and len(key) == len(job) + 1 + _UID_LENGTH


def as_dict(reasons: JobReasons, conditions: list[Condition] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = msgspec.to_builtins(reasons)
    if conditions is not None:
        doc["conditions"] = msgspec.to_builtins(conditions)
    return doc


def render(reasons: JobReasons, conditions: list[Condition] | None = None) -> str:
    lines = [f"job {reasons.job} (queue {reasons.queue}): {reasons.phase}"]
    shown = {c.message for c in conditions or []}
    if reasons.message and reasons.message not in shown:
        lines.append(f"  {reasons.message}")
    for c in conditions or []:
        lines.append(f"  {c.type}={c.status} {c.reason}: {c.message}".rstrip(": "))
    for plugin, statuses in reasons.plugins.items():
        for status in statuses:
            lines.append(f"  [{plugin}] {status.reason}: {status.message}")
    for task, fit in reasons.tasks.items():
        lines.append(f"  task {task}: 0/{fit.total_nodes} nodes fit")
        for count in fit.histogram:
            s = count.status
            plural = "s" if count.nodes != 1 else ""
            lines.append(f"    {count.nodes} node{plural}: {s.message}  [{s.plugin} {s.reason}]")
    return "\n".join(lines)


# --- the command ---------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from services.cli.debug.replay import add_log_arguments

    parser.add_argument(
        "job", metavar="NAMESPACE/NAME", help="the job's PodGroup, or a Kueue Workload"
    )
    parser.add_argument("-f", "--filename", help="manifests (multi-document YAML; '-': stdin)")
    parser.add_argument("--now", help="-f: the session clock, ISO 8601 (default: now)")
    add_log_arguments(parser)
    parser.add_argument("-o", "--output", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    if "/" not in args.job:
        raise UserError(f"{args.job!r}: give the job as NAMESPACE/PODGROUP")
    if args.filename is not None:
        if args.bootstrap or args.file is not None:
            raise UserError("give -f FILE or a log (--bootstrap/--file), not both")
        if _explain_workload(args):
            return 0
        result, where = _from_manifests(args), f"one session on {args.filename}"
    elif args.bootstrap or args.file is not None or os.environ.get("KAFKA_BOOTSTRAP"):
        from services.cli.debug.replay import load_cycle

        records, recorded = load_cycle(args)
        if _explain_logged_workload(args, records, recorded):
            return 0
        result, where = _from_log(records, recorded)
    else:
        raise UserError("give -f FILE (manifests), --bootstrap HOST:PORT or --file LOG.jsonl")
    reasons = explain(result, args.job)
    update = result.pod_groups.get(args.job)
    conditions = list(update.conditions) if update is not None else []
    if args.output == "json":
        doc = {"source": where, "confWarnings": result.conf_warnings}
        print(json.dumps({**doc, **as_dict(reasons, conditions)}, indent=2))
    else:
        print("\n".join([where, *conf_warning_lines(result), render(reasons, conditions)]))
    return 0


def _explain_workload(args: argparse.Namespace) -> bool:
    """A Kueue Workload of the file named ``args.job``: explained, True; else False."""
    from services.cli.debug.explain_workload import (
        explain_workload,
        fair_sharing_from_environment,
        render_workload,
        workload_keys,
    )
    from services.cli.debug.simulate_schedule import parse_now, read_source
    from shared.models import load_manifests

    objects = load_manifests(read_source(args.filename), source=args.filename)
    if args.job not in workload_keys(objects):
        return False
    now, fair = parse_now(args.now), fair_sharing_from_environment()
    doc = explain_workload(objects, args.job, now, source=args.filename, fair_sharing=fair)
    print(json.dumps(doc, indent=2) if args.output == "json" else render_workload(doc))
    return True


def _explain_logged_workload(
    args: argparse.Namespace, records: list[RawRecord], recorded: Recorded
) -> bool:
    """A Kueue Workload in the cache of the logged cycle named ``args.job``: explained, True;
    else False."""
    from services.cli.debug.explain_workload import (
        explain_cached_workload,
        fair_sharing_from_environment,
        render_workload,
    )
    from services.cli.debug.replay import describe
    from services.cli.debug.replaying import inputs
    from services.scheduler.state import SchedulerState
    from shared.logging import configure_logging

    configure_logging(level="warning")
    cycle = recorded.cycle
    state = SchedulerState()
    state.apply_state(inputs(records, cycle))
    fair = fair_sharing_from_environment()
    doc = explain_cached_workload(state.cache, args.job, cycle.now, fair_sharing=fair)
    if doc is None:
        return False
    where = describe(recorded)
    if args.output == "json":
        print(json.dumps({"source": where, **doc}, indent=2))
    else:
        print("\n".join([where, render_workload(doc)]))
    return True


def conf_warning_lines(result: SessionResult) -> list[str]:
    """One line per conf key or plugin argument the session's conf ignored, as Volcano would."""
    return [f"conf warning: {warning}" for warning in result.conf_warnings]


def _from_manifests(args: argparse.Namespace) -> SessionResult:
    from services.cli.debug.simulate_schedule import parse_now, read_source, session

    names = frozenset(SHOAL_SCHEDULER_NAMES)
    text = read_source(args.filename)
    return session(text, source=args.filename, now=parse_now(args.now), names=names)


def _from_log(records: list[RawRecord], recorded: Recorded) -> tuple[SessionResult, str]:
    from services.cli.debug.replay import describe
    from services.cli.debug.replaying import restore
    from services.scheduler.cycle import Scheduling
    from services.scheduler.snapshot import DEFAULT_SCHEDULER_NAMES
    from shared.logging import configure_logging

    configure_logging(level="warning")
    cycle = recorded.cycle
    snapshot, _ = restore(records, cycle)
    names = cycle.scheduler_names or DEFAULT_SCHEDULER_NAMES
    result = Scheduling().session(snapshot, now=cycle.now, scheduler_names=names)
    return result, describe(recorded)
