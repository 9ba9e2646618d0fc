"""`shoal run broker`: run the embedded broker in the foreground until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=9092, help="loopback port to listen on (0: any free port)"
    )


def run(args: argparse.Namespace) -> int:
    from shared.broker import EmbeddedBroker
    from shared.errors import UserError

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0..65535, got {args.port}")
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    try:
        broker = EmbeddedBroker(port=args.port or None)
        broker.start()
    except (OSError, RuntimeError) as exc:
        raise UserError(f"cannot start the embedded broker on port {args.port}: {exc}") from exc
    try:
        print(broker.bootstrap, flush=True)
        print(f"broker pid {broker.pid}; stop with Ctrl-C", file=sys.stderr, flush=True)
        stop.wait()
    finally:
        broker.stop()
    return 0
