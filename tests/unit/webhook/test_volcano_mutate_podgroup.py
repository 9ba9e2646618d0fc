"""Volcano's ``mutatepodgroup.volcano.sh`` (pkg/webhooks/admission/podgroups/mutate/
mutate_podgroup_test.go ``Test_createPodGroupPatch``); rows named after upstream's cases."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.queues import Snapshot
from services.webhook.core.review import review_admission
from services.webhook.core.webhooks import BY_PATH
from tests.unit.webhook.reviews import patch_of, review

Obj = dict[str, Any]
WEBHOOK = BY_PATH["/volcano/podgroups/mutate"]
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"


def podgroup(queue: str) -> Obj:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "test-pg", "namespace": "test-ns"},
        "spec": {"queue": queue},
    }


CASES = [
    ("podgroup with non-default queue", podgroup("custom-queue"), None, []),
    (
        "podgroup with default queue and namespace with queue annotation",
        podgroup("default"),
        {QUEUE_ANNOTATION: "custom-queue"},
        [{"op": "replace", "path": "/spec/queue", "value": "custom-queue"}],
    ),
    (
        "podgroup with default queue and namespace without queue annotation",
        podgroup("default"),
        {},
        [],
    ),
    ("the namespace cannot be read", podgroup("default"), None, []),
]


@pytest.mark.parametrize(
    ("obj", "annotations", "patch"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_create_podgroup_patch(obj: Obj, annotations: Obj | None, patch: list[Obj]) -> None:
    namespaces = {} if annotations is None else {"test-ns": annotations}
    sent = review("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", obj)
    response = review_admission(WEBHOOK, sent, Snapshot(namespaces=namespaces))["response"]
    assert response["allowed"] is True
    assert patch_of(response) == patch
