"""The real control plane on this machine: kube-apiserver + etcd, controllers, kwok, Kafka, and
the peers Shoal is measured against (Volcano, Kueue)."""

from __future__ import annotations

import argparse


def add_argument(parser: argparse.ArgumentParser) -> None:
    """``--control-plane kubesim|real``, as ``shoal up`` and the stack benchmarks take it."""
    parser.add_argument(
        "--control-plane",
        choices=("kubesim", "real"),
        default="kubesim",
        help="kubesim + the embedded broker (default, seconds to start), or the real parts "
        "built by `make control-plane`: etcd, kube-apiserver, kube-controller-manager, "
        "kube-scheduler, kwok nodes and Apache Kafka",
    )
