"""Shared by every test area: a Kafka-protocol broker for the session, unique names per test.

The broker is `KAFKA_BOOTSTRAP` if set, else a testcontainers Kafka when a Docker engine
answers, else the embedded Tansu broker (one per session, SIGKILLed at the end). The broker is
shared, so tests use `kafka_names` for topics and groups of their own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator

import msgspec
import pytest


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        probe = subprocess.run(["docker", "info"], capture_output=True, timeout=3, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """host:port of a Kafka-protocol broker shared by the whole session."""
    external = os.environ.get("KAFKA_BOOTSTRAP", "").strip()
    if external:
        yield external
    elif _docker_answers():
        from testcontainers.community.kafka import KafkaContainer

        with KafkaContainer() as kafka:
            yield kafka.get_bootstrap_server()
    else:
        from shared.broker import EmbeddedBroker

        with EmbeddedBroker() as broker:
            yield broker.bootstrap


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
