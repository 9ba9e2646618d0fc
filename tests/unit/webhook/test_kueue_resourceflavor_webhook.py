"""Kueue's ``vresourceflavor.kb.io`` (pkg/webhooks/resourceflavor_webhook_test.go
``TestValidateResourceFlavor``, rows named after upstream's cases; upstream compares fields,
types and values with ``Detail`` ignored, these compare whole messages), then taints and
tolerations from ``validateNodeTaints`` and ``validateTolerations``."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.kueue_resourceflavor import (
    admit_resource_flavor,
    validate_resource_flavor,
)

Obj = dict[str, Any]
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def flavor(**spec: Any) -> Obj:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
            "metadata": {"name": "resource-flavor"}, "spec": spec}  # fmt: skip


SPOT = {"key": "spot", "value": "true", "effect": "NoSchedule"}
CASES = [
    ("empty", flavor(), []),
    ("valid", flavor(nodeLabels={"foo": "bar"}, nodeTaints=[SPOT]), []),
    ("invalid label name", flavor(nodeLabels={"@abc": "foo"}),
     [f'spec.nodeLabels: Invalid value: "@abc": {NAME_PART}']),
    ("invalid label value", flavor(nodeLabels={"foo": "@abc"}),
     [f'spec.nodeLabels: Invalid value: "@abc": {LABEL_VALUE}']),
    ("duplicate taint key and effect", flavor(nodeTaints=[SPOT, {**SPOT, "value": "false"}]),
     ['spec.nodeTaints[1]: Duplicate value: {"key":"spot","value":"false","effect":"NoSchedule"}: '
      "taints must be unique by key and effect pair"]),
    ("same key, other effect", flavor(nodeTaints=[SPOT, {**SPOT, "effect": "NoExecute"}]), []),
    ("invalid taint key and value", flavor(nodeTaints=[{"key": "-x", "value": "@",
                                                        "effect": "NoSchedule"}]),
     [f'spec.nodeTaints[0].key: Invalid value: "-x": {NAME_PART}',
      f'spec.nodeTaints[0].value: Invalid value: "@": {LABEL_VALUE}']),
    ("toleration without key", flavor(tolerations=[{"operator": "Exists"}]), []),
    ("invalid toleration key", flavor(tolerations=[{"key": "a/b/c", "operator": "Exists"}]),
     ['spec.tolerations[0].key: Invalid value: "a/b/c": a valid label key must consist of '
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
      "(e.g. 'example.com/MyName')"]),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "errors"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate_resource_flavor(obj: Obj, errors: list[str]) -> None:
    assert validate_resource_flavor(obj) == errors


def test_several_errors_are_one_aggregate() -> None:
    message = admit_resource_flavor(flavor(nodeLabels={"@a": "@b"}))
    assert message == (
        f'[spec.nodeLabels: Invalid value: "@a": {NAME_PART}, '
        f'spec.nodeLabels: Invalid value: "@b": {LABEL_VALUE}]'
    )
