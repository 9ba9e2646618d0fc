"""Fixtures for service tests: kubesim in this event loop, a service shell on the test broker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.kubesim.app import KubeSim
from services.kubesim.config import SimConfig, pool
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind, KafkaSettings, ServiceSettings
from shared.kube import KubeClient
from shared.service import KubeSettings, ServiceShell


@pytest.fixture
async def kubesim() -> AsyncIterator[KubeSim]:
    sim = KubeSim(SimConfig(node_pools=(pool(2, cpu="4", memory="8Gi"),), start_delay=0.02))
    await sim.start()
    try:
        yield sim
    finally:
        await sim.stop()


@pytest.fixture
async def kube(kubesim: KubeSim) -> AsyncIterator[KubeClient]:
    client = await KubeClient.connect(str(kubesim.kubeconfig_path))
    try:
        yield client
    finally:
        await client.close()


def make_shell(service: str, bootstrap: str, broker: BrokerKind, prefix: str) -> ServiceShell:
    return ServiceShell(
        service=service,
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(
            bootstrap=bootstrap, broker=broker, topic_prefix=prefix, fetch_max_wait_ms=10
        ),
        kube=KubeSettings(),
    )


@pytest.fixture
async def bus(
    kafka_bootstrap: str, broker_kind: BrokerKind, kafka_names: object
) -> AsyncIterator[KafkaBus]:
    prefix = kafka_names.prefix  # type: ignore[attr-defined]
    settings = KafkaSettings(
        bootstrap=kafka_bootstrap, broker=broker_kind, topic_prefix=prefix, fetch_max_wait_ms=10
    )
    async with KafkaBus(settings=settings) as b:
        yield b
