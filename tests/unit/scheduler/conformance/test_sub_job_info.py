"""Volcano ``pkg/scheduler/api/sub_job_info_test.go``: ``TestGetSubJobMatchValues_Basic``,
``_Boundary``, ``_Error`` and ``TestSubJobInfo_getPodSubJobID``, one row per upstream case.

Upstream returns nil for "no match" and an empty slice for "a policy without keys"; both put
the pod in the default sub-job, and Shoal returns an empty list for both, so the rows expecting
either expect ``[]`` here. The file's other tests check fields of Go structs Shoal shapes
differently (``NewSubJobInfo``, the topology-mode getters, the readiness counters and
``ConvertToHardTopology`` are covered by ``tests/unit/scheduler/test_sub_jobs.py`` and the
allocate rows).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.api.sub_job import match_values, sub_job_id
from shared.models.volcano import SubGroupPolicySpec


def _policy(**spec: Any) -> SubGroupPolicySpec:
    return msgspec.convert(spec, SubGroupPolicySpec)


SELECTOR = {"matchLabels": {"app": "test"}}


@pytest.mark.parametrize(
    ("policy", "labels", "expected"),
    [
        # TestGetSubJobMatchValues_Basic
        pytest.param(
            _policy(labelSelector=SELECTOR, matchLabelKeys=["version", "env"]),
            {"app": "test", "version": "v1", "env": "dev"},
            ["v1", "dev"],
            id="match label selector and collect match values",
        ),
        pytest.param(
            _policy(matchLabelKeys=["zone"]),
            {"zone": "zone-1"},
            ["zone-1"],
            id="no label selector with match keys",
        ),
        pytest.param(
            _policy(labelSelector=SELECTOR),
            {"app": "test"},
            [],
            id="no match keys returns empty slice",
        ),
        # TestGetSubJobMatchValues_Boundary
        pytest.param(
            _policy(labelSelector={}, matchLabelKeys=["key"]),
            {"key": "value"},
            ["value"],
            id="empty label selector matches all",
        ),
        pytest.param(
            _policy(
                labelSelector={
                    "matchExpressions": [
                        {"key": "app", "operator": "In", "values": ["test", "demo"]}
                    ]
                },
                matchLabelKeys=["app"],
            ),
            {"app": "demo"},
            ["demo"],
            id="match expression selector",
        ),
        pytest.param(
            _policy(matchLabelKeys=["a", "b"]),
            {"a": "", "b": "val"},
            [],
            id="multiple match keys with empty values",
        ),
        # TestGetSubJobMatchValues_Error
        pytest.param(
            _policy(labelSelector={"matchExpressions": [{"key": "app", "operator": "invalid"}]}),
            {"app": "test"},
            [],
            id="invalid label selector",
        ),
        pytest.param(
            _policy(labelSelector=SELECTOR, matchLabelKeys=["version"]),
            {"app": "prod"},
            [],
            id="pod labels do not match selector",
        ),
        pytest.param(
            _policy(matchLabelKeys=["missing"]),
            {"existing": "value"},
            [],
            id="missing label key in pod",
        ),
        pytest.param(_policy(matchLabelKeys=["any"]), {}, [], id="pod has no labels"),
    ],
)
def test_get_sub_job_match_values(
    policy: SubGroupPolicySpec, labels: dict[str, str], expected: list[str]
) -> None:
    assert match_values(policy, labels) == expected


@pytest.mark.parametrize(
    ("values", "want"),
    [
        pytest.param(
            ["value1", "value2"],
            "job1/policy1-value1-value2",
            id="Normale case with non-empty policy and matchValues",
        ),
        pytest.param(["value1"], "job1/policy1-value1", id="Single matchValue"),
    ],
)
def test_sub_job_info_get_pod_sub_job_id(values: list[str], want: str) -> None:
    assert sub_job_id("job1", "policy1", values) == want
