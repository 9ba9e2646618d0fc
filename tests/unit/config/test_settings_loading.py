from __future__ import annotations

from typing import Annotated

import msgspec
import pytest

from shared.config import (
    Duration,
    KafkaSettings,
    ServiceSettings,
    env_name,
    load_settings,
    parse_duration,
)
from shared.errors import UserError


class Sample(msgspec.Struct, frozen=True, kw_only=True):
    count: Annotated[int, msgspec.Meta(ge=1)] = 1
    ratio: float = 0.5
    enabled: bool = False
    name: str = "x"
    topics: tuple[str, ...] = ()
    timeout: Duration = 1.0


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, Sample()),
        ({"SHOAL_COUNT": "1_000"}, Sample(count=1000)),
        ({"SHOAL_RATIO": "0.25"}, Sample(ratio=0.25)),
        ({"SHOAL_ENABLED": "Yes"}, Sample(enabled=True)),
        ({"SHOAL_ENABLED": "off"}, Sample(enabled=False)),
        ({"SHOAL_NAME": " pods "}, Sample(name="pods")),
        ({"SHOAL_TOPICS": "a, b,,c"}, Sample(topics=("a", "b", "c"))),
        ({"SHOAL_TIMEOUT": "250ms"}, Sample(timeout=0.25)),
        ({"SHOAL_TIMEOUT": "2m"}, Sample(timeout=120.0)),
        ({"SHOAL_TIMEOUT": "3"}, Sample(timeout=3.0)),
    ],
    ids=["defaults", "int", "float", "bool-true", "bool-false", "str", "tuple", "ms", "m", "bare"],
)
def test_values_are_converted_by_field_type(environ: dict[str, str], expected: Sample) -> None:
    assert load_settings(Sample, environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"SHOAL_COUNT": "many"}, "SHOAL_COUNT='many': expected an integer"),
        ({"SHOAL_COUNT": "0"}, "SHOAL_COUNT='0': Expected `int` >= 1"),
        ({"SHOAL_RATIO": "half"}, "SHOAL_RATIO='half': expected a number"),
        ({"SHOAL_ENABLED": "maybe"}, "SHOAL_ENABLED='maybe': expected true/false"),
        ({"SHOAL_TIMEOUT": "soon"}, "SHOAL_TIMEOUT='soon': expected a duration"),
    ],
    ids=["not-int", "below-min", "not-float", "not-bool", "not-duration"],
)
def test_bad_value_names_variable_and_value(environ: dict[str, str], message: str) -> None:
    with pytest.raises(UserError) as caught:
        load_settings(Sample, environ)
    assert str(caught.value).startswith(message)


def test_kafka_bootstrap_uses_conventional_variable() -> None:
    settings = load_settings(
        KafkaSettings, {"KAFKA_BOOTSTRAP": "k1:9092,k2:9092", "SHOAL_BOOTSTRAP": "ignored"}
    )
    assert settings.bootstrap == "k1:9092,k2:9092"
    assert env_name(KafkaSettings, "fetch_max_wait_ms") == "SHOAL_FETCH_MAX_WAIT_MS"


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"SHOAL_ACKS": "2"}, "SHOAL_ACKS='2': expected one of all, 1, 0"),
        ({"SHOAL_TOPIC_PARTITIONS": "0"}, "SHOAL_TOPIC_PARTITIONS='0': Expected `int` >= 1"),
    ],
    ids=["acks-choice", "partitions-min"],
)
def test_kafka_settings_reject_bad_values(environ: dict[str, str], message: str) -> None:
    with pytest.raises(UserError, match=message):
        load_settings(KafkaSettings, environ)


def test_service_settings_defaults_and_choices() -> None:
    settings = load_settings(
        ServiceSettings, {"SHOAL_LOG_FORMAT": "Console", "SHOAL_SHUTDOWN_GRACE": "5s"}
    )
    assert (settings.log_format, settings.shutdown_grace, settings.http_port) == (
        "console",
        5.0,
        8080,
    )
    with pytest.raises(UserError, match="SHOAL_LOG_FORMAT='xml'"):
        load_settings(ServiceSettings, {"SHOAL_LOG_FORMAT": "xml"})


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("500ms", 0.5), ("1.5s", 1.5), ("1h", 3600.0), ("0", 0.0)],
    ids=["ms", "s", "h", "zero"],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)
