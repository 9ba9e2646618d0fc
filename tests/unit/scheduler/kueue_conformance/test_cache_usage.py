"""Kueue's ``pkg/cache/scheduler/cache_test.go`` ``TestClusterQueueUsage`` and
``TestLocalQueueUsage``: the usage Kueue's cache reports, which its reconcilers write as a
queue's ``flavorsReservation`` and ``flavorsUsage``.

Each row is one upstream case (same name) with its ClusterQueue, LocalQueue and Workloads as
upstream's wrappers build them; the want is upstream's ``[]FlavorUsage`` as JSON (a
``resource.Quantity`` is always serialised, so an unset one is ``"0"``). Shoal's queue status
for the ClusterQueue (or LocalQueue) must carry exactly that.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.scheduler.kueue_conformance.queue_wrappers import (
    cluster_queue,
    flavor_quotas,
    local_queue,
    reconcile,
    resource_group,
    workload,
)

Json = dict[str, Any]
GPU, VF = "example.com/gpu", ("example.com/vf-0", "example.com/vf-1", "example.com/vf-2")


def _cq_foo(cohort: str | None) -> Json:
    return cluster_queue(
        "foo",
        resource_group(flavor_quotas("default", ("cpu", "10", "10"))),
        resource_group(
            flavor_quotas("model_a", (GPU, "5", "5")), flavor_quotas("model_b", (GPU, "5"))
        ),
        resource_group(flavor_quotas("interconnect_a", *((vf, "5", "5") for vf in VF))),
        cohort=cohort,
    )


ONE = workload(
    "one",
    requests={"cpu": "8", GPU: "5"},
    reserve=("foo", [("cpu", "default", "8000m"), (GPU, "model_a", "5")], 1),
    admitted=True,
)
TWO = workload(
    "two",
    requests={"cpu": "5", GPU: "6"},
    reserve=("foo", [("cpu", "default", "5000m"), (GPU, "model_b", "6")], 1),
)
PARTIAL_ONE = workload(
    "partial-one",
    requests={"cpu": "2"},
    count=5,
    reserve=("foo", [("cpu", "default", "4000m")], 2),
    admitted=True,
)
PARTIAL_TWO = workload(
    "partial-two", requests={"cpu": "2"}, count=5, reserve=("foo", [("cpu", "default", "4000m")], 2)
)


def _usage(
    cpu: str, model_a: str, model_b: str, cpu_borrowed: str = "0", b_borrowed: str = "0"
) -> list[Json]:
    def res(name: str, total: str = "0", borrowed: str = "0") -> Json:
        return {"name": name, "total": total, "borrowed": borrowed}

    return [
        {"name": "default", "resources": [res("cpu", cpu, cpu_borrowed)]},
        {"name": "model_a", "resources": [res(GPU, model_a)]},
        {"name": "model_b", "resources": [res(GPU, model_b, b_borrowed)]},
        {"name": "interconnect_a", "resources": [res(vf) for vf in VF]},
    ]


CLUSTER_QUEUE_CASES = [
    pytest.param(
        _cq_foo(None),
        [ONE],
        (_usage("8", "5", "0"), 1, _usage("8", "5", "0"), 1),
        id="clusterQueue without cohort; single, admitted no borrowing",
    ),
    pytest.param(
        _cq_foo("one"),
        [ONE, TWO],
        (_usage("13", "5", "6", cpu_borrowed="3", b_borrowed="1"), 2, _usage("8", "5", "0"), 1),
        id="clusterQueue with cohort; multiple borrowing",
    ),
    pytest.param(
        _cq_foo(None),
        [ONE, TWO],
        (_usage("13", "5", "6"), 2, _usage("8", "5", "0"), 1),
        id="clusterQueue without cohort; multiple borrowing",
    ),
    pytest.param(
        _cq_foo("one"),
        [PARTIAL_ONE, PARTIAL_TWO],
        (_usage("8", "0", "0"), 2, _usage("4", "0", "0"), 1),
        id="clusterQueue with cohort; partial admission",
    ),
]


@pytest.mark.parametrize(("cq", "workloads", "want"), CLUSTER_QUEUE_CASES)
def test_cluster_queue_usage(
    cq: Json, workloads: list[Json], want: tuple[list[Json], int, list[Json], int]
) -> None:
    status = reconcile([cq, *workloads])[("ClusterQueue", "foo")]
    got = (
        status["flavorsReservation"],
        status["reservingWorkloads"],
        status["flavorsUsage"],
        status["admittedWorkloads"],
    )
    assert got == want


CQ_FOR_LOCAL_QUEUE = cluster_queue(
    "foo",
    resource_group(flavor_quotas("default", ("cpu", "10", "10"))),
    resource_group(flavor_quotas("model-a", (GPU, "5")), flavor_quotas("model-b", (GPU, "5"))),
    resource_group(flavor_quotas("interconnect-a", *((vf, "5", "5") for vf in VF))),
)


def _lq_usage(cpu: str, model_a: str, model_b: str) -> list[Json]:
    return [
        {"name": "default", "resources": [{"name": "cpu", "total": cpu}]},
        {"name": "model-a", "resources": [{"name": GPU, "total": model_a}]},
        {"name": "model-b", "resources": [{"name": GPU, "total": model_b}]},
        {"name": "interconnect-a", "resources": [{"name": vf, "total": "0"} for vf in VF]},
    ]


def _ns1(name: str, requests: dict[str, str], reserve: Any = None) -> Json:
    return workload(name, "ns1", queue="test", requests=requests, reserve=reserve)


LOCAL_QUEUE_CASES = [
    pytest.param(None, [_ns1("one", {"cpu": "5"})], None, id="clusterQueue is missing"),
    pytest.param(CQ_FOR_LOCAL_QUEUE, [], _lq_usage("0", "0", "0"), id="workloads is nothing"),
    pytest.param(
        CQ_FOR_LOCAL_QUEUE,
        [
            _ns1(
                "one",
                {"cpu": "5", GPU: "5"},
                ("foo", [("cpu", "default", "5000m"), (GPU, "model-a", "5")], 1),
            ),
            _ns1(
                "two",
                {"cpu": "3", GPU: "3"},
                ("foo", [("cpu", "default", "3000m"), (GPU, "model-b", "3")], 1),
            ),
        ],
        _lq_usage("8", "5", "3"),
        id="all workloads are admitted",
    ),
    pytest.param(
        CQ_FOR_LOCAL_QUEUE,
        [
            _ns1(
                "one",
                {"cpu": "5", GPU: "5"},
                ("foo", [("cpu", "default", "5000m"), (GPU, "model-a", "5")], 1),
            ),
            _ns1("two", {"cpu": "100000", GPU: "3"}),
        ],
        _lq_usage("5", "5", "0"),
        id="some workloads are inadmissible",
    ),
]


@pytest.mark.parametrize(("cq", "workloads", "want"), LOCAL_QUEUE_CASES)
def test_local_queue_usage(cq: Json | None, workloads: list[Json], want: list[Json] | None) -> None:
    lq = local_queue("test", "ns1", "foo")
    docs = [lq, *workloads] if cq is None else [cq, lq, *workloads]
    status = reconcile(docs)[("LocalQueue", "ns1/test")]
    assert status["flavorsReservation"] == want
