"""Ported from volcano pkg/webhooks/admission/pods/validate/admit_pod_test.go (``TestValidatePod``,
master; upstream's table has one row), then Shoal's own rows for the disruption budget
annotations ``validateAnnotation`` checks, with upstream's messages."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.queues import Snapshot
from services.webhook.core.review import review_admission
from services.webhook.core.volcano_pod_validation import (
    JDB_MAX_UNAVAILABLE,
    JDB_MIN_AVAILABLE,
    validate_pod,
)
from services.webhook.core.webhooks import BY_PATH
from tests.unit.webhook.reviews import review

Obj = dict[str, Any]


def pod(scheduler: str, annotations: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"namespace": "test", "name": "normal-pod-1"}
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"schedulerName": scheduler}}  # fmt: skip


UPSTREAM = [("validate default normal pod", pod("default-scheduler"), "")]


@pytest.mark.parametrize(
    ("obj", "message"), [c[1:] for c in UPSTREAM], ids=[c[0] for c in UPSTREAM]
)
def test_validate_pod(obj: Obj, message: str) -> None:
    assert validate_pod(obj, scheduler_names=["volcano"]) == message


MIN, MAX = JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE
BOTH = "[volcano.sh/jdb-min-available volcano.sh/jdb-max-unavailable]"
RULES = [
    ("integer", "volcano", {MIN: "2"}, ""),
    ("percentage", "volcano", {MAX: "50%"}, ""),
    ("percent signs anywhere are dropped", "volcano", {MIN: "%5%0%"}, ""),
    ("zero", "volcano", {MIN: "0"},
     'invalid value <"0"> for volcano.sh/jdb-min-available, it must be a positive integer'),
    ("negative", "volcano", {MAX: "-1"},
     'invalid value <"-1"> for volcano.sh/jdb-max-unavailable, it must be a positive integer'),
    ("an integer beyond int32 wraps", "volcano", {MIN: "4294967296"},
     'invalid value <"4294967296"> for volcano.sh/jdb-min-available, it must be a positive '
     "integer"),
    ("100 percent", "volcano", {MIN: "100%"},
     'invalid value <"100%"> for volcano.sh/jdb-min-available, it must be a valid percentage '
     "which between 1% ~ 99%"),
    ("not a number", "volcano", {MIN: "half"},
     'invalid value strconv.Atoi: parsing "half": invalid syntax for '
     "volcano.sh/jdb-min-available"),
    ("empty", "volcano", {MAX: ""},
     'invalid value strconv.Atoi: parsing "": invalid syntax for '
     "volcano.sh/jdb-max-unavailable"),
    ("beyond int64", "volcano", {MIN: "99999999999999999999%"},
     'invalid value strconv.Atoi: parsing "99999999999999999999": value out of range for '
     "volcano.sh/jdb-min-available"),
    ("both", "volcano", {MIN: "1", MAX: "1"},
     f"not allow configure multiple annotations <{BOTH}> at same time"),
    ("the first bad value before both", "volcano", {MIN: "1", MAX: "0"},
     'invalid value <"0"> for volcano.sh/jdb-max-unavailable, it must be a positive integer'),
    ("shoal's scheduler name", "shoal", {MIN: "0"},
     'invalid value <"0"> for volcano.sh/jdb-min-available, it must be a positive integer'),
    ("another scheduler's pod", "default-scheduler", {MIN: "1", MAX: "1"}, ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scheduler", "annotations", "message"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_disruption_budget_annotations(
    scheduler: str, annotations: dict[str, str], message: str
) -> None:
    assert validate_pod(pod(scheduler, annotations)) == message


def test_the_served_webhook_refuses_with_volcanos_status() -> None:
    webhook = BY_PATH["/volcano/pods/validate"]
    sent = review("", "v1", "Pod", "pods", pod("volcano", {MIN: "0"}))
    response = review_admission(webhook, sent, Snapshot())["response"]
    assert response["allowed"] is False
    assert response["status"] == {
        "message": 'invalid value <"0"> for volcano.sh/jdb-min-available, it must be a '
        "positive integer"
    }
