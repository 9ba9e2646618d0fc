"""Apache Kafka in KRaft single-node mode, from the jars ``make control-plane`` installs.

The broker of the real control plane, and the session broker of the tests when it is built.
Its data lives in ``<root>/data`` and survives a restart of the same ``root`` (the storage is
formatted once, as ``kafka-storage.sh format --ignore-formatted`` does).
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import ClassVar

from services.cli.processes import Process, die_with_parent, free_port
from shared.config import BrokerKind

_LOG4J = """\
Configuration:
  Appenders:
    Console:
      name: STDOUT
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: STDOUT
    Logger:
      - name: kafka
        level: WARN
      - name: org.apache.kafka
        level: WARN
"""


def _properties(root: Path, port: int, controller: int) -> str:
    bootstrap = f"127.0.0.1:{port}"
    return "\n".join(
        (
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{controller}",
            f"listeners=PLAINTEXT://{bootstrap},CONTROLLER://127.0.0.1:{controller}",
            f"advertised.listeners=PLAINTEXT://{bootstrap}",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"log.dirs={root / 'data'}",
            "num.partitions=4",
            "offsets.topic.replication.factor=1",
            "offsets.topic.num.partitions=8",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",  # Shoal creates its topics; a deleted one stays gone
            "",
        )
    )


class KafkaBroker:
    """One Kafka JVM on 127.0.0.1; ``start`` blocks until it accepts connections.

    ``preexec`` ties the JVM to its parent's life (a killed test run leaves no broker behind).
    Use ``with KafkaBroker(...) as broker:`` or ``start``/``stop``.
    """

    kind: ClassVar[BrokerKind] = "kafka"  # `KafkaSettings.broker` of its clients

    def __init__(
        self,
        root: Path,
        libs: Path,
        log_path: Path,
        *,
        heap: str = "1g",
        preexec: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        self.libs = libs
        self.log_path = log_path
        self.heap = heap
        self.preexec = preexec
        self.port = free_port()
        self.process: Process | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _java(self) -> list[str]:
        return [
            "java",
            "-cp",
            str(self.libs / "*"),
            f"-Dlog4j2.configurationFile={self.root / 'log4j2.yaml'}",
        ]

    def start(self, timeout: float = 120.0) -> None:
        """Format the storage if new, start the JVM and wait until it listens."""
        self.prepare()
        self.spawn()
        self.wait(timeout)

    def prepare(self) -> None:
        """Write the configuration and format the storage if new (seconds: a JVM runs)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        properties = self.root / "server.properties"
        properties.write_text(_properties(self.root, self.port, free_port()))
        (self.root / "log4j2.yaml").write_text(_LOG4J)
        if not (self.root / "data" / "meta.properties").exists():
            cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
            with self.log_path.open("ab") as log:
                formatting = subprocess.run(
                    [
                        *self._java(),
                        "kafka.tools.StorageTool",
                        "format",
                        f"--cluster-id={cluster_id}",  # an id may start with "-"
                        "-c",
                        str(properties),
                        "--ignore-formatted",
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=120,
                    check=False,
                )
            if formatting.returncode != 0:
                raise RuntimeError(f"formatting Kafka's storage failed; see {self.log_path}")

    def spawn(self) -> None:
        """Start the JVM, without waiting for it; from the thread ``preexec`` ties it to."""
        self.process = Process(
            "kafka",
            [
                *self._java(),
                "-Xms256m",
                f"-Xmx{self.heap}",
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20",
                "kafka.Kafka",
                str(self.root / "server.properties"),
            ],
            dict(os.environ),
            self.log_path,
            preexec=self.preexec,
        )
        self.process.start()

    def wait(self, timeout: float) -> None:
        """Block until the broker accepts connections; fail at once if the JVM exits."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or not self.process.alive():
                raise RuntimeError(f"kafka exited; see {self.log_path}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise TimeoutError(f"Kafka not listening on {self.bootstrap} after {timeout:.0f}s")

    def stop(self, grace: float = 10.0) -> int | None:
        return self.process.stop(grace) if self.process is not None else None

    def __enter__(self) -> KafkaBroker:
        if self.preexec is None:
            self.preexec = die_with_parent(signal.SIGKILL)
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
