"""Kueue's Configuration ``fairSharing`` for the live scheduler: file and settings (the
upstream rows are in ``kueue_conformance/test_configuration_conversion.py`` and
``test_config_validation.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from services.scheduler.cli import kueue_fair_sharing
from services.scheduler.kueue import FairSharing
from services.scheduler.kueue.configuration import from_configuration
from services.scheduler.service import SchedulerSettings
from shared.config import load_settings
from shared.errors import UserError

BOTH = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


def _configuration(version: str, fair_sharing: object | None) -> str:
    doc: dict[str, object] = {"apiVersion": f"config.kueue.x-k8s.io/{version}"}
    doc["kind"] = "Configuration"
    doc["namespace"] = "kueue-system"
    if fair_sharing is not None:
        doc["fairSharing"] = fair_sharing
    return yaml.safe_dump(doc)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            _configuration("v1beta2", {"preemptionStrategies": ["LessThanInitialShare"]}),
            FairSharing(preemption_strategies=("LessThanInitialShare",)),
        ),
        (
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
                    "data": {
                        "controller_manager_config.yaml": _configuration(
                            "v1beta2", {"preemptionStrategies": list(BOTH)}
                        )
                    },
                }
            ),
            FairSharing(preemption_strategies=BOTH),
        ),
    ],
    ids=[
        "v1beta2-one-strategy",
        "kueue-manager-config-configmap",
    ],
)
def test_fair_sharing_of_a_configuration(text: str, want: FairSharing | None) -> None:
    assert from_configuration(text, source="kueue.yaml") == want


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            _configuration("v1beta1", {"enable": True, "preemptionStrategies": list(BOTH[::-1])}),
            "fairSharing.preemptionStrategies: Unsupported value",
        ),
        (_configuration("v1alpha1", None), "apiVersion 'config.kueue.x-k8s.io/v1alpha1'"),
        ("kind: Pod\n", "expected a config.kueue.x-k8s.io Configuration"),
        ("apiVersion: v1\nkind: ConfigMap\ndata: {}\n", "no data.controller_manager_config.yaml"),
        ("[unclosed", "not YAML"),
    ],
    ids=[
        "v1beta1-strategies-out-of-order",
        "unknown-version",
        "not-a-configuration",
        "configmap-without-the-key",
        "not-yaml",
    ],
)
def test_a_bad_configuration_is_refused_naming_the_field(text: str, error: str) -> None:
    with pytest.raises(UserError, match=r"^kueue\.yaml") as refused:
        from_configuration(text, source="kueue.yaml")
    assert error in str(refused.value)


@pytest.mark.parametrize(
    ("environ", "want"),
    [
        ({}, None),
        ({"SHOAL_SCHEDULER_KUEUE_FAIR_SHARING": "true"}, FairSharing(preemption_strategies=BOTH)),
        (
            {
                "SHOAL_SCHEDULER_KUEUE_FAIR_SHARING": "on",
                "SHOAL_SCHEDULER_KUEUE_FAIR_SHARING_PREEMPTION_STRATEGIES": "LessThanInitialShare",
            },
            FairSharing(preemption_strategies=("LessThanInitialShare",)),
        ),
        (
            {"SHOAL_SCHEDULER_KUEUE_FAIR_SHARING_PREEMPTION_STRATEGIES": "LessThanInitialShare"},
            None,
        ),
    ],
    ids=["off-by-default", "on-with-kueues-default-strategies", "one-strategy", "strategies-alone"],
)
def test_fair_sharing_from_the_environment(
    environ: dict[str, str], want: FairSharing | None
) -> None:
    settings = load_settings(SchedulerSettings, environ, prefix="SHOAL_SCHEDULER_")
    assert kueue_fair_sharing(settings) == want


def test_the_configuration_file_replaces_the_settings(tmp_path: Path) -> None:
    path = tmp_path / "controller_manager_config.yaml"
    path.write_text(_configuration("v1beta2", {"preemptionStrategies": ["LessThanInitialShare"]}))
    environ = {
        "SHOAL_SCHEDULER_KUEUE_FAIR_SHARING": "false",
        "SHOAL_SCHEDULER_KUEUE_CONFIG": str(path),
    }
    settings = load_settings(SchedulerSettings, environ, prefix="SHOAL_SCHEDULER_")
    assert kueue_fair_sharing(settings) == FairSharing(
        preemption_strategies=("LessThanInitialShare",)
    )


@pytest.mark.parametrize(
    ("environ", "error"),
    [
        (
            {
                "SHOAL_SCHEDULER_KUEUE_FAIR_SHARING": "true",
                "SHOAL_SCHEDULER_KUEUE_FAIR_SHARING_PREEMPTION_STRATEGIES": "LessThanInitialShare,"
                "LessThanOrEqualToFinalShare",
            },
            "SHOAL_SCHEDULER_KUEUE_FAIR_SHARING_PREEMPTION_STRATEGIES: fairSharing.preemption"
            "Strategies: Unsupported value",
        ),
        (
            {"SHOAL_SCHEDULER_KUEUE_CONFIG": "/nonexistent/kueue.yaml"},
            "SHOAL_SCHEDULER_KUEUE_CONFIG='/nonexistent/kueue.yaml': No such file",
        ),
    ],
    ids=["strategies-out-of-order", "missing-configuration-file"],
)
def test_bad_settings_are_refused(environ: dict[str, str], error: str) -> None:
    settings = load_settings(SchedulerSettings, environ, prefix="SHOAL_SCHEDULER_")
    with pytest.raises(UserError) as refused:
        kueue_fair_sharing(settings)
    assert error in str(refused.value)
