"""Kueue's ``apis/config/v1beta1/configuration_conversion_test.go``
(``TestConfigurationQueueConvertTo``), its fair-sharing rows.

Each row is one upstream case (same name): a v1beta1 Configuration and the v1beta2
``fairSharing`` upstream converts it to, which is what Shoal's admission runs with (None: off).
The two ``WaitForPodsReady`` rows convert a field Shoal does not apply.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from services.scheduler.kueue import FairSharing
from services.scheduler.kueue.configuration import from_configuration

BOTH = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


def _v1beta1(fair_sharing: dict[str, Any] | None) -> str:
    doc: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration"}
    if fair_sharing is not None:
        doc["fairSharing"] = fair_sharing
    return yaml.safe_dump(doc)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (_v1beta1(None), None),
        (
            _v1beta1({"enable": True, "preemptionStrategies": list(BOTH)}),
            FairSharing(preemption_strategies=BOTH),
        ),
        (_v1beta1({"enable": False, "preemptionStrategies": list(BOTH)}), None),
        (_v1beta1({"enable": True}), FairSharing(preemption_strategies=BOTH)),
    ],
    ids=[
        "minimal Configuration",
        "with FairSharing",
        "with FairSharing disabled",
        "with FairSharing enabled, but preemption strategies are empty",
    ],
)
def test_configuration_queue_convert_to(text: str, want: FairSharing | None) -> None:
    assert from_configuration(text, source="config.yaml") == want
