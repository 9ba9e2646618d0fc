"""Resource vectors: arithmetic, fit, shortage, and pod request rules."""

from __future__ import annotations

import pytest

from shared.models import Pod, convert
from shared.resources import GPU, Resources, pod_requests


def test_add_sub_drop_zero_entries() -> None:
    a = Resources.from_list({"cpu": "1", "memory": "1Gi"})
    b = Resources.from_list({"cpu": "500m", "memory": "1Gi"})
    assert (a - b) == Resources({"cpu": 500})
    assert "memory" not in (a - b)
    assert (a + b)["cpu"] == 1500


@pytest.mark.parametrize(
    ("request_list", "capacity", "fits", "short"),
    [
        ({"cpu": "2"}, {"cpu": "4"}, True, {}),
        ({"cpu": "2", GPU: "1"}, {"cpu": "4"}, False, {GPU: 1000}),
        ({"memory": "3Gi"}, {"memory": "2Gi"}, False, {"memory": 2**30 * 1000}),
        ({}, {}, True, {}),
    ],
    ids=["fits", "missing-gpu", "short-memory", "empty"],
)
def test_fit_and_shortage(
    request_list: dict[str, str], capacity: dict[str, str], fits: bool, short: dict[str, int]
) -> None:
    req, cap = Resources.from_list(request_list), Resources.from_list(capacity)
    assert req.fits_in(cap) is fits
    assert req.shortage(cap) == short


def test_to_list_formats_bytes_binary() -> None:
    assert Resources.from_list({"memory": "2Gi", "cpu": "1500m"}).to_list() == {
        "cpu": "1500m",
        "memory": "2Gi",
    }


def _pod(spec: dict[str, object]) -> Pod:
    return convert(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}, Pod
    )


def test_pod_requests_sum_containers_max_init_plus_overhead() -> None:
    pod = _pod(
        {
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
                {"name": "b", "resources": {"limits": {"cpu": "500m", GPU: "2"}}},
            ],
            "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
            "overhead": {"cpu": "100m"},
        }
    )
    assert pod_requests(pod) == Resources(
        {"cpu": 3100, "memory": 2**30 * 1000, GPU: 2000, "pods": 1000}
    )


def test_limits_default_missing_requests_per_name() -> None:
    pod = _pod(
        {
            "containers": [
                {
                    "name": "a",
                    "resources": {
                        "requests": {"cpu": "1"},
                        "limits": {"cpu": "2", "memory": "1Gi"},
                    },
                }
            ]
        }
    )
    assert pod_requests(pod)["cpu"] == 1000
    assert pod_requests(pod)["memory"] == 2**30 * 1000


def test_from_list_is_memoised_and_still_refuses_bad_quantities() -> None:
    from shared.errors import QuantityError
    from shared.resources import Resources

    first = Resources.from_list({"cpu": "500m", "memory": "1Gi"})
    assert Resources.from_list({"cpu": "500m", "memory": "1Gi"}) is first
    assert Resources.from_list({"cpu": 2})["cpu"] == 2000
    assert Resources.from_list({"cpu": "2"})["cpu"] == 2000
    for _ in range(2):  # a failure is not remembered as a value
        try:
            Resources.from_list({"cpu": "lots"})
        except QuantityError:
            continue
        raise AssertionError("an invalid quantity was accepted")
