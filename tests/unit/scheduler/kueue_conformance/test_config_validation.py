"""Kueue's ``pkg/config/validation_test.go`` (``TestValidate``), its preemption-strategy rows.

Each row is one upstream case (same name): a v1beta2 Configuration's ``fairSharing`` and the
field error upstream reports (field path and error type), or none. The other rows validate
fields Shoal does not apply.
"""

from __future__ import annotations

import pytest
import yaml

from services.scheduler.kueue import FairSharing
from services.scheduler.kueue.configuration import from_configuration
from shared.errors import UserError


def _v1beta2(preemption_strategies: list[str] | None) -> str:
    section = (
        {} if preemption_strategies is None else {"preemptionStrategies": preemption_strategies}
    )
    doc = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "fairSharing": section,
    }
    return yaml.safe_dump(doc)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (_v1beta2(None), "fairSharing.preemptionStrategies: Required value"),
        (
            _v1beta2(
                [
                    "LessThanOrEqualToFinalShare",
                    "UNKNOWN",
                    "LessThanInitialShare",
                    "LessThanOrEqualToFinalShare",
                ]
            ),
            "fairSharing.preemptionStrategies: Unsupported value",
        ),
        (_v1beta2(["LessThanOrEqualToFinalShare", "LessThanInitialShare"]), None),
    ],
    ids=[
        "invalid an empty preemption strategy",
        "unsupported preemption strategy",
        "valid preemption strategy",
    ],
)
def test_validate(text: str, error: str | None) -> None:
    if error is None:
        want = FairSharing(
            preemption_strategies=("LessThanOrEqualToFinalShare", "LessThanInitialShare")
        )
        assert from_configuration(text, source="config.yaml") == want
        return
    with pytest.raises(UserError) as refused:
        from_configuration(text, source="config.yaml")
    assert f"config.yaml: {error}" in str(refused.value)
