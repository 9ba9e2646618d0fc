"""``shoal run jobcontroller``: reconcile batch/v1 Jobs, Volcano Jobs and PyTorchJobs."""

from __future__ import annotations

import argparse
from functools import partial


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", help="kubeconfig path (default: $KUBECONFIG/in-cluster)")


def run(args: argparse.Namespace) -> int:
    from services.jobcontroller.service import (
        JobControllerSettings,
        check_settings,
        run_jobcontroller,
    )
    from shared.config import load_settings
    from shared.service import ServiceShell, run_kube_service

    shell = ServiceShell.from_env("jobcontroller")
    settings = load_settings(JobControllerSettings, prefix="SHOAL_JOBCONTROLLER_")
    check_settings(settings)
    return run_kube_service(shell, partial(run_jobcontroller, settings=settings), args.kubeconfig)
