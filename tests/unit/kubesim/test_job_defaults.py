"""batch/v1 Job defaults as ``pkg/apis/batch/v1/defaults.go`` sets them."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.defaulting import MAX_INT32, apply_defaults


def defaulted(**spec: Any) -> dict[str, Any]:
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "namespace": "default"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}, **spec},
    }
    apply_defaults("batch/v1", "Job", job, uid="u", has_status=True)
    return dict(job["spec"])


@pytest.mark.parametrize(
    ("spec", "backoff_limit"),
    [
        ({}, 6),
        ({"backoffLimit": 2}, 2),
        ({"completionMode": "Indexed", "completions": 4, "backoffLimitPerIndex": 1}, MAX_INT32),
        (
            {
                "completionMode": "Indexed",
                "completions": 4,
                "backoffLimitPerIndex": 1,
                "backoffLimit": 3,
            },
            3,
        ),
    ],
    ids=["default", "set", "per-index-means-maxint32", "per-index-with-explicit-limit"],
)
def test_backoff_limit_default(spec: dict[str, Any], backoff_limit: int) -> None:
    assert defaulted(**spec)["backoffLimit"] == backoff_limit


def test_pod_replacement_policy_follows_pod_failure_policy() -> None:
    assert defaulted()["podReplacementPolicy"] == "TerminatingOrFailed"
    assert defaulted(podFailurePolicy={"rules": []})["podReplacementPolicy"] == "Failed"
