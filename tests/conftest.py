"""Shared by every test area: a Kafka-protocol broker for the session, unique names per test.

The broker is `KAFKA_BOOTSTRAP` if set, else a testcontainers Kafka when a Docker engine
answers, else the embedded Tansu broker (one per session, SIGKILLed at the end). Tests give
`broker_kind` to their `KafkaSettings.broker`: kafka for the first two (an external broker is
what `SHOAL_BROKER` says, kafka unless set), tansu for the embedded one. The broker is shared,
so tests use `kafka_names` for topics and groups of their own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator

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


@pytest.fixture(scope="session")
def session_broker() -> Iterator[SessionBroker]:
    external = os.environ.get("KAFKA_BOOTSTRAP", "").strip()
    if external:
        yield SessionBroker(external, load_settings(KafkaSettings).broker)
    elif _docker_answers():
        from testcontainers.community.kafka import KafkaContainer

        with KafkaContainer() as kafka:
            yield SessionBroker(kafka.get_bootstrap_server(), "kafka")
    else:
        from shared.broker import EmbeddedBroker

        with EmbeddedBroker() as broker:
            yield SessionBroker(broker.bootstrap, EmbeddedBroker.kind)


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
