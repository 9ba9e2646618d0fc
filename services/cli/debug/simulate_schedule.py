"""``shoal simulate schedule -f FILE``: one scheduling session on the manifests in FILE.

The conf comes from the ``volcano-scheduler-configmap`` ConfigMap in the file (key
``volcano-scheduler.conf``), the default conf when there is none. Bad input raises
UserError/ManifestError naming the document and field; the CLI prints it and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shared.errors import UserError
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES
from shared.kube.timefmt import parse_datetime

if TYPE_CHECKING:
    from services.scheduler.result import SessionResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--filename", required=True, help="multi-document YAML ('-': stdin)")
    parser.add_argument("-o", "--output", choices=("json", "yaml", "text"), default="json")
    parser.add_argument(
        "--now", help="the session clock, ISO 8601 (default: now); stamps conditions"
    )
    parser.add_argument(
        "--scheduler-name",
        action="append",
        dest="scheduler_names",
        help="schedulerName values handled (repeatable; default: volcano, shoal)",
    )


def read_source(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def parse_now(text: str | None) -> datetime:
    if text is None:
        return datetime.now(UTC)
    parsed = parse_datetime(text)
    if parsed is None:
        raise UserError(f"--now: not an ISO 8601 time: {text!r}")
    return parsed


def simulate(text: str, *, source: str, now: datetime, names: frozenset[str]) -> dict[str, Any]:
    return session(text, source=source, now=now, names=names).decisions()


def session(text: str, *, source: str, now: datetime, names: frozenset[str]) -> SessionResult:
    """The whole session result (decisions and every job's reasons) on the manifests."""
    from services.scheduler.actions import default_actions
    from services.scheduler.conf import CONFIGMAP_KEY, CONFIGMAP_NAME
    from services.scheduler.framework.loading import load_conf
    from services.scheduler.plugins import default_plugins
    from services.scheduler.runner import default_conf, run_session
    from services.scheduler.snapshot import Snapshot
    from shared.models import ConfigMap, load_manifests

    objects = load_manifests(text, source=source)
    plugins, actions = default_plugins(), default_actions()
    conf = default_conf(plugins, actions)
    for obj in objects:
        if isinstance(obj, ConfigMap) and obj.metadata.name == CONFIGMAP_NAME:
            if CONFIGMAP_KEY not in obj.data:
                raise UserError(f"{source}: ConfigMap {CONFIGMAP_NAME} has no {CONFIGMAP_KEY!r}")
            conf = load_conf(
                obj.data[CONFIGMAP_KEY],
                plugins=plugins,
                actions=actions,
                source=f"{source} ConfigMap {CONFIGMAP_NAME} data.{CONFIGMAP_KEY}",
            )
    return run_session(
        Snapshot.of(objects), conf, now, plugins=plugins, actions=actions, scheduler_names=names
    )


def _text(doc: dict[str, Any]) -> str:
    lines = [f"bind {pod} -> {node}" for pod, node in doc["binds"].items()]
    lines += [f"pipeline {pod} -> {node}" for pod, node in doc["pipelined"].items()]
    lines += [f"evict {pod}" for pod in doc["evictions"]]
    for key, group in doc["podGroups"].items():
        lines.append(f"podgroup {key}: {group['phase']}")
        for c in group["conditions"]:
            lines.append(
                f"  {c['type']}={c['status']} {c.get('reason', '')}: {c.get('message', '')}"
            )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    names = frozenset(args.scheduler_names or SHOAL_SCHEDULER_NAMES)
    doc = simulate(
        read_source(args.filename), source=args.filename, now=parse_now(args.now), names=names
    )
    if args.output == "json":
        print(json.dumps(doc, sort_keys=True, indent=2))
    elif args.output == "yaml":
        import yaml

        print(yaml.safe_dump(doc, sort_keys=True), end="")
    else:
        print(_text(doc))
    return 0
