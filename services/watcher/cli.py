"""``shoal run watcher``: mirror the API server into the state topics."""

from __future__ import annotations

import argparse
from functools import partial


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.watcher.service import WatcherSettings, run_watcher
    from shared.config import load_settings
    from shared.service import ServiceShell, run_kube_service

    shell = ServiceShell.from_env("watcher")
    settings = load_settings(WatcherSettings, prefix="SHOAL_WATCHER_")
    # The watcher fills the state topics after a lost log; it waits for nobody.
    return run_kube_service(
        shell, partial(run_watcher, settings=settings), args.kubeconfig, waits_for_state=False
    )
