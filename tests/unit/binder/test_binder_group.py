"""The binders' consumer group: one per log generation where a broker restart loses the log
(Tansu), the configured name where the log and the group's offsets survive it (Kafka)."""

from __future__ import annotations

import pytest

from services.binder.service import binder_group
from shared.config import BrokerKind, KafkaSettings, ServiceSettings
from shared.service import KubeSettings, ServiceShell


@pytest.mark.parametrize(
    ("broker", "expected"),
    [("tansu", "shoal-binder.3f2a9c0d11b2"), ("kafka", "shoal-binder")],
    ids=["tansu-group-per-generation", "kafka-keeps-its-offsets"],
)
def test_the_group_follows_the_log_generation_only_where_the_log_dies_with_the_broker(
    broker: BrokerKind, expected: str
) -> None:
    shell = ServiceShell(
        service="binder",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory", broker=broker),
        kube=KubeSettings(),
    )
    shell.generation = "3f2a9c0d11b24e6f8a7b"
    assert binder_group("shoal-binder", shell) == expected
