"""Kafka TLS and SASL from settings: the environment becomes aiokafka options, and every client
the bus builds (producer, consumers, admin) carries them."""

from __future__ import annotations

import ssl
from typing import Any

import pytest

import shared.bus.kafka as kafka_module
from shared.bus.kafka import KafkaBus
from shared.bus.security import client_options
from shared.config import KafkaSettings, load_settings
from shared.errors import UserError

SCRAM_SSL = {
    "SHOAL_SECURITY_PROTOCOL": "sasl_ssl",
    "SHOAL_SASL_MECHANISM": "scram-sha-512",
    "SHOAL_SASL_USERNAME": "shoal-binder",
    "SHOAL_SASL_PASSWORD": "s3cret",
}


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, {"security_protocol": "PLAINTEXT"}),
        (
            {
                "SHOAL_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
                "SHOAL_SASL_MECHANISM": "PLAIN",
                "SHOAL_SASL_USERNAME": "u",
                "SHOAL_SASL_PASSWORD": "p",
            },
            {
                "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": "PLAIN",
                "sasl_plain_username": "u",
                "sasl_plain_password": "p",
            },
        ),
        (
            {**SCRAM_SSL, "SHOAL_SASL_MECHANISM": "SCRAM-SHA-256"},
            {
                "security_protocol": "SASL_SSL",
                "sasl_mechanism": "SCRAM-SHA-256",
                "sasl_plain_username": "shoal-binder",
                "sasl_plain_password": "s3cret",
            },
        ),
        ({"SHOAL_SECURITY_PROTOCOL": "ssl"}, {"security_protocol": "SSL"}),
    ],
    ids=["plaintext", "sasl-plain", "scram-sha-256-over-tls", "tls-only"],
)
def test_settings_become_client_options(environ: dict[str, str], expected: dict[str, Any]) -> None:
    options = client_options(load_settings(KafkaSettings, environ))
    context = options.pop("ssl_context", None)
    assert options == expected
    if expected["security_protocol"].endswith("SSL"):
        assert isinstance(context, ssl.SSLContext)
        assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    else:
        assert context is None


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"SHOAL_SECURITY_PROTOCOL": "SASL_SSL"}, "needs SHOAL_SASL_MECHANISM"),
        ({**SCRAM_SSL, "SHOAL_SASL_PASSWORD": ""}, "needs SHOAL_SASL_USERNAME and"),
        ({"SHOAL_SECURITY_PROTOCOL": "SSL", "SHOAL_SSL_CAFILE": "/nope.pem"}, "TLS files"),
        ({"SHOAL_SSL_CAFILE": "/ca.pem"}, "need SHOAL_SECURITY_PROTOCOL=SSL"),
        ({"SHOAL_SECURITY_PROTOCOL": "TLS"}, "expected one of PLAINTEXT, SSL"),
        ({"SHOAL_SASL_MECHANISM": "GSSAPI"}, "expected one of PLAIN, SCRAM-SHA-256"),
    ],
    ids=[
        "sasl-without-mechanism",
        "sasl-without-password",
        "missing-ca-file",
        "ca-without-tls",
        "unknown-protocol",
        "unsupported-mechanism",
    ],
)
def test_settings_that_cannot_work_are_one_line(environ: dict[str, str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        client_options(load_settings(KafkaSettings, environ))


class _Recorded:
    calls: list[dict[str, Any]] = []

    def __init__(self, **kwargs: Any) -> None:
        type(self).calls.append(kwargs)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def create_topics(self, topics: Any) -> Any:
        return type("Response", (), {"topic_errors": []})()


async def test_every_client_of_the_bus_gets_the_security_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = load_settings(KafkaSettings, {**SCRAM_SSL, "KAFKA_BOOTSTRAP": "kafka:9093"})
    monkeypatch.setattr(kafka_module, "AIOKafkaProducer", _Recorded)
    monkeypatch.setattr(kafka_module, "AIOKafkaAdminClient", _Recorded)
    _Recorded.calls = []
    bus = KafkaBus(settings=settings)
    await bus.start()
    await bus.create_topics(["t"])
    consumer = bus._consumer(group_id="g")
    try:
        client = consumer._client
        assert (client._security_protocol, client._sasl_mechanism) == ("SASL_SSL", "SCRAM-SHA-512")
        assert (client._sasl_plain_username, client._sasl_plain_password) == (
            "shoal-binder",
            "s3cret",
        )
        assert isinstance(client._ssl_context, ssl.SSLContext)
    finally:
        await consumer.stop()
    producer, admin = _Recorded.calls
    for kwargs in (producer, admin):
        assert kwargs["security_protocol"] == "SASL_SSL"
        assert kwargs["sasl_mechanism"] == "SCRAM-SHA-512"
        assert kwargs["sasl_plain_username"] == "shoal-binder"
        assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
