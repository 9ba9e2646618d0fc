"""Shared by every test area: a Kafka-protocol broker for the session, unique names per test.

The broker is `KAFKA_BOOTSTRAP` if set, else a testcontainers Kafka when a Docker engine
answers, else Apache Kafka from the real control plane's jars when they are built (`make
control-plane`; required with `SHOAL_REQUIRE_REAL`), else the embedded Tansu broker.
`SHOAL_TEST_BROKER=tansu` picks Tansu whatever is built. Apache Kafka is the broker Shoal is
proven on; Tansu, `make run`'s embedded default, is proven by the bus tests (run on both) and the
end-to-end suites on kubesim. Tests give `broker_kind` to their `KafkaSettings.broker`. The
broker is shared, so tests use `kafka_names` for topics and groups of their own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from shared.config import BrokerKind, KafkaSettings, load_settings


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        probe = subprocess.run(["docker", "info"], capture_output=True, timeout=3, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


class SessionBroker(msgspec.Struct, frozen=True):
    """The session's broker: where it is and what it is (`KafkaSettings.broker`)."""

    bootstrap: str
    kind: BrokerKind


@contextlib.contextmanager
def local_broker(kind: BrokerKind, workdir: Path) -> Iterator[SessionBroker]:
    """A broker of this machine's own: Apache Kafka from the built jars, or embedded Tansu."""
    if kind == "kafka":
        from services.cli.controlplane.kafka import KafkaBroker
        from services.cli.controlplane.real import tools_dir

        libs = tools_dir() / "kafka" / "libs"
        with KafkaBroker(workdir / "kafka", libs, workdir / "kafka.log", heap="512m") as kafka:
            yield SessionBroker(kafka.bootstrap, KafkaBroker.kind)
    else:
        from shared.broker import EmbeddedBroker

        with EmbeddedBroker() as tansu:
            yield SessionBroker(tansu.bootstrap, EmbeddedBroker.kind)


def apache_kafka_built() -> bool:
    """Whether the session broker is Apache Kafka (see the module docstring)."""
    if os.environ.get("SHOAL_TEST_BROKER", "").strip() == "tansu":
        return False
    from services.cli.controlplane.real import built

    if os.environ.get("SHOAL_REQUIRE_REAL") and not built():
        pytest.fail("SHOAL_REQUIRE_REAL is set but the real control plane is not built")
    return built()


@pytest.fixture(scope="session")
def session_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionBroker]:
    external = os.environ.get("KAFKA_BOOTSTRAP", "").strip()
    if external:
        yield SessionBroker(external, load_settings(KafkaSettings).broker)
    elif _docker_answers():
        from testcontainers.community.kafka import KafkaContainer

        with KafkaContainer() as kafka:
            yield SessionBroker(kafka.get_bootstrap_server(), "kafka")
    else:
        kind: BrokerKind = "kafka" if apache_kafka_built() else "tansu"
        with local_broker(kind, tmp_path_factory.mktemp("broker")) as broker:
            yield broker


@pytest.fixture(scope="session")
def kafka_bootstrap(session_broker: SessionBroker) -> str:
    """host:port of a Kafka-protocol broker shared by the whole session."""
    return session_broker.bootstrap


@pytest.fixture(scope="session")
def broker_kind(session_broker: SessionBroker) -> BrokerKind:
    """What the session's broker is, for `KafkaSettings.broker`."""
    return session_broker.kind


class KafkaNames(msgspec.Struct, frozen=True):
    """Names unique to one test on the shared broker."""

    suffix: str

    def topic(self, name: str) -> str:
        return f"test.{name}.{self.suffix}"

    def group(self, name: str) -> str:
        return f"group.{name}.{self.suffix}"

    @property
    def prefix(self) -> str:
        """A topic prefix (dead-letter topic and friends) of this test's own."""
        return f"test.{self.suffix}."


@pytest.fixture
def kafka_names() -> KafkaNames:
    return KafkaNames(uuid.uuid4().hex[:10])
