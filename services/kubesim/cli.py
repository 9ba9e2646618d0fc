"""``shoal run kubesim``: serve a simulated cluster until interrupted.

Prints ``KUBESIM_URL=<url>`` and ``KUBECONFIG=<path>`` on stdout once it listens, so scripts
and ``KubeSimProcess`` can find it.
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
from pathlib import Path
from typing import Any

from shared.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="listen port (0 = a free port)")
    parser.add_argument("--config", type=Path, help="YAML config file (node pools, faults, ...)")
    parser.add_argument("--nodes", type=int, default=0, help="number of simulated nodes")
    parser.add_argument("--node-prefix", default="node", help="node name prefix")
    parser.add_argument("--node-cpu", default="32", help="cpu per node (quantity)")
    parser.add_argument("--node-memory", default="128Gi", help="memory per node (quantity)")
    parser.add_argument("--node-pods", type=int, default=110, help="pods per node")
    parser.add_argument("--node-gpus", type=int, default=0, help="nvidia.com/gpu per node")
    parser.add_argument(
        "--node-label", action="append", default=[], metavar="K=V", help="label for every node"
    )
    parser.add_argument(
        "--node-taint", action="append", default=[], metavar="K=V:EFFECT", help="taint"
    )
    parser.add_argument("--start-delay", type=float, help="seconds from bind to Running")
    parser.add_argument("--watch-history", type=int, help="watch events kept per resource")
    parser.add_argument(
        "--event-ttl", type=float, help="seconds an Event lives after its last write (3600)"
    )
    parser.add_argument("--kubeconfig-out", type=Path, help="write a kubeconfig here")
    parser.add_argument("--faults", help="fault injection config as JSON (see README)")
    parser.add_argument(
        "--allow-missing-namespaces",
        action="store_true",
        help="accept objects in namespaces that do not exist",
    )
    parser.add_argument(
        "--no-default-queue", action="store_true", help="do not create the Volcano default Queue"
    )
    parser.add_argument(
        "--data-dir", type=Path, help="keep the objects here across restarts (journal.wal)"
    )
    parser.add_argument(
        "--repair",
        action="store_true",
        help="start from a damaged journal: keep every valid record, move the damaged bytes "
        "aside and report the objects lost",
    )
    parser.add_argument(
        "--journal-fsync-interval",
        type=float,
        help="seconds from a journal write to its fsync (1.0; 0 = every write)",
    )
    parser.add_argument(
        "--no-webhooks",
        action="store_true",
        help="do not run Volcano's and the training operator's validating webhooks",
    )
    parser.add_argument(
        "--optional-webhooks",
        default="",
        metavar="NAMES",
        help="register these optional webhooks too, comma-separated (mutatepod.volcano.sh, "
        "validatepod.volcano.sh: Volcano's pod webhooks, off in Volcano's chart)",
    )


def _parse_taint(text: str) -> dict[str, str]:
    spec, sep, effect = text.rpartition(":")
    if not sep or effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise UserError(f"--node-taint {text!r}: expected KEY[=VALUE]:NoSchedule|...")
    key, _, value = spec.partition("=")
    taint = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    return taint


def build_config(args: argparse.Namespace) -> Any:
    from services.kubesim.config import SimConfig, load_config_file, pool
    from services.kubesim.faults import parse_faults

    fields: dict[str, Any] = load_config_file(args.config) if args.config else {}
    if args.nodes:
        labels = {}
        for item in args.node_label:
            key, sep, value = item.partition("=")
            if not sep:
                raise UserError(f"--node-label {item!r}: expected KEY=VALUE")
            labels[key] = value
        extra = pool(
            args.nodes,
            prefix=args.node_prefix,
            cpu=args.node_cpu,
            memory=args.node_memory,
            pods=args.node_pods,
            gpus=args.node_gpus,
            labels=labels,
            taints=tuple(_parse_taint(t) for t in args.node_taint),
        )
        fields["node_pools"] = (*fields.get("node_pools", ()), extra)
    if args.faults:
        try:
            fields["faults"] = parse_faults(args.faults)
        except ValueError as exc:
            raise UserError(f"--faults: {exc}") from exc
    if args.start_delay is not None:
        fields["start_delay"] = args.start_delay
    if args.watch_history is not None:
        fields["watch_history"] = args.watch_history
    if args.journal_fsync_interval is not None:
        if args.journal_fsync_interval < 0:
            raise UserError(f"--journal-fsync-interval {args.journal_fsync_interval}: must be >= 0")
        fields["journal_fsync_interval"] = args.journal_fsync_interval
    if args.event_ttl is not None:
        if args.event_ttl <= 0:
            raise UserError(f"--event-ttl {args.event_ttl}: must be > 0")
        fields["event_ttl"] = args.event_ttl
    config = SimConfig(
        host=args.host,
        port=args.port,
        kubeconfig_out=args.kubeconfig_out,
        strict_namespaces=not args.allow_missing_namespaces,
        default_queue=not args.no_default_queue,
        webhooks=not args.no_webhooks,
        optional_webhooks=_optional_webhooks(args.optional_webhooks),
        data_dir=args.data_dir,
        journal_repair=args.repair,
    )
    return dataclasses.replace(config, **fields)


def _optional_webhooks(names: str) -> frozenset[str]:
    from services.webhook.core.webhooks import registered

    chosen = frozenset(n.strip() for n in names.split(",") if n.strip())
    try:
        registered(chosen)
    except ValueError as exc:
        raise UserError(f"--optional-webhooks: {exc}") from exc
    return chosen


def run(args: argparse.Namespace) -> int:
    import asyncio

    from services.kubesim.app import KubeSim
    from shared.config import ServiceSettings, load_settings
    from shared.runtime import run_loop

    config = build_config(args)
    event_loop = load_settings(ServiceSettings).event_loop

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with KubeSim(config) as sim:
            _tune_collector()
            print(f"KUBESIM_URL={sim.url}", flush=True)
            print(f"KUBECONFIG={sim.kubeconfig_path}", flush=True)
            await stop.wait()

    run_loop(serve(), loop=event_loop)
    return 0


def _tune_collector() -> None:
    """The cyclic collector for a long-lived store: what exists after the start (seeded nodes,
    registry, discovery documents) is frozen out of every collection; ``run_loop`` already
    set the thresholds every service runs at (``GC_THRESHOLDS``: per 50,000 net new objects,
    not 700). The store holds tens of thousands of JSON objects (no cycles: reference
    counting frees every replaced version), and each full collection walked all of them for
    no garbage: 0.9 of 5 CPU-s in a 10,000-pod burst."""
    import gc

    gc.collect()
    gc.freeze()
