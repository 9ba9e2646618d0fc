"""``shoal run binder``: execute the scheduler's decisions against the API server."""

from __future__ import annotations

import argparse
from functools import partial


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.binder.service import BinderSettings, run_binder
    from shared.config import load_settings
    from shared.service import ServiceShell, run_kube_service

    shell = ServiceShell.from_env("binder")
    settings = load_settings(BinderSettings, prefix="SHOAL_BINDER_")
    # The binder reads no state topic: after a lost log it joins its new group at once,
    # while the watcher re-lists (a decision can only come once the scheduler rebuilt).
    return run_kube_service(
        shell, partial(run_binder, settings=settings), args.kubeconfig, waits_for_state=False
    )
