"""Volcano's ``mutatequeue.volcano.sh`` (pkg/webhooks/admission/queues/mutate/
mutate_queue_test.go ``TestMutateQueues``); rows named after upstream's cases.

Upstream's hand-built patch adds the hierarchy annotations with ``add``; Shoal's patch, derived
from the mutated object, replaces them (the same object under RFC 6902)."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.queues import Snapshot
from services.webhook.core.review import review_admission
from services.webhook.core.webhooks import BY_PATH
from tests.unit.webhook.reviews import patch_of, review

Obj = dict[str, Any]
WEBHOOK = BY_PATH["/volcano/queues/mutate"]


def queue(name: str, spec: Obj, annotations: Obj | None = None) -> Obj:
    meta: Obj = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": meta,
            "spec": spec}  # fmt: skip


HIERARCHY = {"volcano.sh/hierarchy": "a/b/c", "volcano.sh/hierarchy-weights": "2/3/4"}
CASES = [
    (
        "Normal Case Refresh Default Open State and Reclaimable For Queue",
        queue("normal-case-refresh-default-state", {"weight": 1}),
        "CREATE",
        {"allowed": True},
        [{"op": "add", "path": "/spec/reclaimable", "value": True}],
    ),
    (
        "Invalid Action",
        queue("normal-case-set-open", {"weight": 1, "reclaimable": True}),
        "Invalid",
        {"allowed": False, "status": {
            "message": "invalid operation `Invalid`, expect operation to be `CREATE`"}},
        [],
    ),
    (
        "Normal Case Append Default Root to The HDRF Attributes",
        queue("queue-without-root", {"weight": 1, "reclaimable": True}, HIERARCHY),
        "CREATE",
        {"allowed": True},
        [
            {"op": "replace", "path": "/metadata/annotations/volcano.sh~1hierarchy",
             "value": "root/a/b/c"},
            {"op": "replace", "path": "/metadata/annotations/volcano.sh~1hierarchy-weights",
             "value": "1/2/3/4"},
        ],
    ),
    (
        "weight 0 is defaulted to 1",
        queue("no-weight", {"reclaimable": False}),
        "CREATE",
        {"allowed": True},
        [{"op": "add", "path": "/spec/weight", "value": 1}],
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("obj", "operation", "verdict", "patch"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_mutate_queues(obj: Obj, operation: str, verdict: Obj, patch: list[Obj]) -> None:
    sent = review("scheduling.volcano.sh", "v1beta1", "Queue", "queues", obj, operation=operation)
    response = review_admission(WEBHOOK, sent, Snapshot())["response"]
    assert {k: v for k, v in response.items() if k in ("allowed", "status")} == verdict
    assert patch_of(response) == patch
