"""Kueue's ``pkg/controller/core/localqueue_controller_test.go`` (``TestLocalQueueReconcile``):
the status Kueue's LocalQueue reconciler writes.

Each row is one upstream case (same name), compared as the ClusterQueue rows are
(``test_clusterqueue_controller.py``). The 15 admission fair sharing rows are not expressible
(admission fair sharing is not implemented).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.scheduler.kueue_conformance.queue_wrappers import (
    cluster_queue,
    condition,
    flavor_quotas,
    local_queue,
    resource_group,
    status_after,
    workload,
)

Json = dict[str, Any]
READY = ("True", "Ready", "Can admit new workloads")


LQ_CQ = "test-cluster-queue"


def _lq(**kwargs: Any) -> Json:
    return local_queue("test-queue", "default", LQ_CQ, generation=1, **kwargs)


def _lq_active(found: tuple[str, str, str]) -> Json:
    return {"conditions": [condition("Active", found, 1)]}


CLUSTER_QUEUE_IS_INACTIVE = "Can't submit new workloads to clusterQueue"
LOCAL_QUEUE_CASES = [
    pytest.param(
        _lq(pending=1, stop_policy="Hold"),
        [cluster_queue(LQ_CQ)],
        _lq_active(("False", "Stopped", "LocalQueue is stopped")),
        id="local queue with Hold StopPolicy",
    ),
    pytest.param(
        _lq(pending=1, stop_policy="HoldAndDrain"),
        [cluster_queue(LQ_CQ)],
        _lq_active(("False", "Stopped", "LocalQueue is stopped")),
        id="local queue with HoldAndDrain StopPolicy",
    ),
    pytest.param(
        _lq(pending=1),
        [cluster_queue(LQ_CQ)],
        _lq_active(("False", "ClusterQueueIsInactive", CLUSTER_QUEUE_IS_INACTIVE)),
        id="cluster queue is inactive",
    ),
    pytest.param(
        _lq(),
        [
            workload(
                "wl",
                "default",
                queue="test-queue",
                requests={"cpu": "4"},
                reserve=(LQ_CQ, [("cpu", "rf", "4")], 1),
                admitted=True,
            )
        ],
        _lq_active(("False", "ClusterQueueDoesNotExist", CLUSTER_QUEUE_IS_INACTIVE)),
        id="cluster queue deleted while its scheduler cache entry is still present",
    ),
]


@pytest.mark.parametrize(("lq", "more", "want"), LOCAL_QUEUE_CASES)
def test_local_queue_reconcile(lq: Json, more: list[Json], want: Json) -> None:
    assert status_after("LocalQueue", "default/test-queue", lq, more) == want


def test_local_queue_follows_its_cluster_queue_once_active() -> None:
    """Not an upstream row: the ClusterQueue's Active=True, once shown, makes it Ready."""
    active = cluster_queue(
        LQ_CQ,
        resource_group(flavor_quotas("rf", ("cpu", "10"))),
        status={"conditions": [condition("Active", READY)]},
    )
    status = status_after("LocalQueue", "default/test-queue", _lq(), [active])
    assert status["conditions"] == [
        condition("Active", ("True", "Ready", "Can submit new workloads to localQueue"), 1)
    ]
    assert status["flavorsReservation"] == [
        {"name": "rf", "resources": [{"name": "cpu", "total": "0"}]}
    ]
