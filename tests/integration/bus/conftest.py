"""The bus tests run on both brokers Shoal supports: Apache Kafka (what Shoal is proven on, when
the real control plane's jars are built or an external Kafka is given) and Tansu (`make run`'s
embedded default, with its fetch pacing and doorbell)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shared.config import BrokerKind
from tests.conftest import SessionBroker, apache_kafka_built, local_broker


@pytest.fixture(scope="module", params=["kafka", "tansu"])
def bus_broker(
    request: pytest.FixtureRequest,
    session_broker: SessionBroker,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SessionBroker]:
    kind: BrokerKind = request.param
    if session_broker.kind == kind:
        yield session_broker
    elif kind == "kafka" and not apache_kafka_built():
        pytest.skip("no Apache Kafka: set KAFKA_BOOTSTRAP or run `make control-plane`")
    else:
        with local_broker(kind, tmp_path_factory.mktemp("broker")) as broker:
            yield broker


@pytest.fixture(scope="module")
def kafka_bootstrap(bus_broker: SessionBroker) -> str:
    return bus_broker.bootstrap


@pytest.fixture(scope="module")
def broker_kind(bus_broker: SessionBroker) -> BrokerKind:
    return bus_broker.kind
