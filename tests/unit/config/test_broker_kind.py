"""What the broker kind switches on: fetch waits, Tansu's pacing and doorbell, and Kafka's
idempotent producer (``KafkaSettings.broker``)."""

from __future__ import annotations

import msgspec
import pytest

from shared.config import KafkaSettings, load_settings
from shared.errors import UserError


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ("kafka", 500, 0, False, True)),
        ({"SHOAL_BROKER": "Tansu"}, ("tansu", 20, 300, True, False)),
        ({"SHOAL_FETCH_MAX_WAIT_MS": "100"}, ("kafka", 100, 0, False, True)),
        ({"SHOAL_IDLE_FETCH_MAX_WAIT_MS": "0"}, ("kafka", 500, 0, False, True)),
        ({"SHOAL_ACKS": "1"}, ("kafka", 500, 0, False, False)),
        (
            {"SHOAL_BROKER": "tansu", "SHOAL_FETCH_MAX_WAIT_MS": "10"},
            ("tansu", 10, 300, True, False),
        ),
        (
            {"SHOAL_BROKER": "tansu", "SHOAL_IDLE_FETCH_MAX_WAIT_MS": "450"},
            ("tansu", 20, 450, True, False),
        ),
        (
            {"SHOAL_BROKER": "tansu", "SHOAL_IDLE_FETCH_MAX_WAIT_MS": "0"},
            ("tansu", 20, 0, False, False),
        ),
        (
            {"SHOAL_BROKER": "tansu", "SHOAL_FETCH_MAX_WAIT_MS": "300"},
            ("tansu", 300, 300, False, False),
        ),
        (
            {"SHOAL_BROKER": "tansu", "SHOAL_FETCH_MAX_WAIT_MS": "-1"},
            ("tansu", 20, 300, True, False),
        ),
    ],
    ids=[
        "kafka-by-default",
        "tansu",
        "kafka-own-wait",
        "kafka-idle-off-said",
        "kafka-acks-lowered",
        "tansu-short-wait",
        "tansu-local-stack-idle",
        "tansu-pacing-off",
        "tansu-idle-not-longer",
        "tansu-wait-by-broker",
    ],
)
def test_the_broker_kind_sets_the_defaults(
    environ: dict[str, str], expected: tuple[str, int, int, bool, bool]
) -> None:
    s = load_settings(KafkaSettings, environ)
    assert (s.broker, s.fetch_wait_ms, s.idle_fetch_wait_ms, s.paced, s.idempotent) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"SHOAL_BROKER": "redpanda"}, "SHOAL_BROKER='redpanda': expected one of kafka, tansu"),
        (
            {"SHOAL_DOORBELL": "true"},
            "SHOAL_DOORBELL is only for SHOAL_BROKER=tansu",
        ),
        (
            {"SHOAL_BROKER": "kafka", "SHOAL_IDLE_FETCH_MAX_WAIT_MS": "300"},
            "SHOAL_IDLE_FETCH_MAX_WAIT_MS is only for SHOAL_BROKER=tansu",
        ),
        ({"SHOAL_FETCH_MAX_WAIT_MS": "-2"}, "SHOAL_FETCH_MAX_WAIT_MS='-2': Expected `int` >= -1"),
    ],
    ids=["unknown-kind", "doorbell-on-kafka", "pacing-on-kafka", "below-by-broker"],
)
def test_tansu_only_settings_are_refused_on_kafka(environ: dict[str, str], message: str) -> None:
    with pytest.raises(UserError) as caught:
        load_settings(KafkaSettings, environ)
    assert str(caught.value).startswith(message)


def test_a_changed_kind_brings_its_own_defaults() -> None:
    kafka = KafkaSettings(bootstrap="k:9092")
    tansu = msgspec.structs.replace(kafka, broker="tansu", doorbell=True)
    assert (tansu.fetch_wait_ms, tansu.idle_fetch_wait_ms, tansu.paced) == (20, 300, True)
    with pytest.raises(ValueError, match="SHOAL_DOORBELL is only for SHOAL_BROKER=tansu"):
        msgspec.structs.replace(tansu, broker="kafka")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, (10_000, True)),
        ({"SHOAL_BROKER": "tansu"}, (4_000, False)),
        ({"SHOAL_BROKER": "tansu", "SHOAL_SESSION_TIMEOUT_MS": "6000"}, (6_000, False)),
    ],
    ids=["kafka", "tansu-short-joins", "tansu-own-session"],
)
def test_the_broker_kind_sets_the_group_session_and_whether_the_log_survives(
    environ: dict[str, str], expected: tuple[int, bool]
) -> None:
    s = load_settings(KafkaSettings, environ)
    assert (s.session_ms, s.log_survives_restart) == expected


def test_a_session_timeout_below_a_second_is_refused() -> None:
    with pytest.raises(UserError, match="SHOAL_SESSION_TIMEOUT_MS"):
        load_settings(KafkaSettings, {"SHOAL_SESSION_TIMEOUT_MS": "500"})
