"""The local stack tells its services and its own clients what broker they talk to: Tansu's
settings for the embedded broker only (``Stack.service_env``, ``Stack.broker_kind``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.cli.stack import Stack, StackConfig
from shared.broker import EmbeddedBroker
from shared.config import KafkaSettings, load_settings

VARIABLES = (
    "SHOAL_BROKER",
    "SHOAL_FETCH_MAX_WAIT_MS",
    "SHOAL_DOORBELL",
    "SHOAL_IDLE_FETCH_MAX_WAIT_MS",
)


@pytest.mark.parametrize(
    ("embedded", "environ", "expected", "kind"),
    [
        (True, {}, ("tansu", "10", "true", "450"), "tansu"),
        (False, {}, (None, None, None, None), "kafka"),
        (True, {"SHOAL_BROKER": "kafka"}, ("tansu", "10", "true", "450"), "tansu"),
        (
            True,
            {"SHOAL_FETCH_MAX_WAIT_MS": "50", "SHOAL_DOORBELL": "false"},
            ("tansu", "50", "false", "450"),
            "tansu",
        ),
        (False, {"SHOAL_BROKER": "tansu"}, ("tansu", None, None, None), "tansu"),
    ],
    ids=["embedded", "external", "embedded-is-tansu", "embedded-tuned", "external-tansu"],
)
def test_tansu_settings_only_for_the_embedded_broker(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    embedded: bool,
    environ: dict[str, str],
    expected: tuple[str | None, ...],
    kind: str,
) -> None:
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environ.items():
        monkeypatch.setenv(variable, value)
    stack = Stack(StackConfig(workdir=tmp_path, bootstrap=None if embedded else "k:9092"))
    if embedded:
        stack.broker = EmbeddedBroker()  # never started: the stack only asks whether it has one
        stack.bootstrap = stack.broker.bootstrap
    env = stack.service_env("scheduler", 8080)
    assert tuple(env.get(variable) for variable in VARIABLES) == expected
    assert stack.broker_kind == kind
    assert load_settings(KafkaSettings, env).broker == kind  # what the services will read
