"""Kueue's ``pkg/controller/core/clusterqueue_controller_test.go``
(``TestUpdateCqStatusIfChanged``): the status Kueue's ClusterQueue reconciler writes.

Each row is one upstream case (same name): the ClusterQueue with its status before, the other
objects, and upstream's status after (conditions' transition times ignored, empty values equal
to absent ones, as ``cmpopts.EquateEmpty``). Shoal decides the status and the binder merges it
into the object's; the merged status must be upstream's. Upstream hands the reconciler the
``Active`` condition to write; here it comes from the objects (a deletion timestamp is
``Terminating``), so a row whose condition no ClusterQueue state produces is not expressible,
nor are the error paths of Kueue's two caches. ``TestClusterQueueReconcile`` (finalizers) and
``TestRecordResourceMetrics`` are not ported.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.scheduler.kueue_conformance.queue_wrappers import (
    cluster_queue,
    condition,
    local_queue,
    status_after,
    workload,
)

Json = dict[str, Any]
CQ, LQ = "test-cq", "test-lq"
READY = ("True", "Ready", "Can admit new workloads")
FLAVOR_NOT_FOUND = (
    "False",
    "FlavorNotFound",
    "Can't admit new workloads; some flavors are not found",
)


PENDING = [workload(name, queue=LQ) for name in ("alpha", "beta")]


def _cq(status: Json, **kwargs: Any) -> Json:
    cq = cluster_queue(CQ, generation=1, status=status)
    cq["spec"]["queueingStrategy"] = "StrictFIFO"
    cq["metadata"].update(kwargs)
    return cq


CLUSTER_QUEUE_CASES = [
    pytest.param(
        _cq({"pendingWorkloads": 2, "conditions": [condition("Active", READY)]}),
        [],
        {"pendingWorkloads": 2, "conditions": [condition("Active", READY, 1)]},
        id="same condition status",
    ),
    pytest.param(
        _cq(
            {
                "pendingWorkloads": 2,
                "conditions": [
                    condition(
                        "Active",
                        (
                            "False",
                            "FlavorNotFound",
                            "Can't admit new workloads; Can't admit new workloads; some flavors "
                            "are not found",
                        ),
                    )
                ],
            },
            deletionTimestamp="2024-05-01T11:59:00Z",
        ),
        [],
        {
            "pendingWorkloads": 2,
            "conditions": [
                condition(
                    "Active",
                    (
                        "False",
                        "Terminating",
                        "Can't admit new workloads; clusterQueue is terminating",
                    ),
                    1,
                )
            ],
        },
        id="same condition status with different reason and message",
    ),
    pytest.param(
        _cq({"pendingWorkloads": 2, "conditions": [condition("Active", FLAVOR_NOT_FOUND)]}),
        [],
        {"pendingWorkloads": 2, "conditions": [condition("Active", READY, 1)]},
        id="different condition status",
    ),
    pytest.param(
        _cq({"pendingWorkloads": 2, "conditions": [condition("Active", READY)]}),
        [workload("gamma", queue=LQ)],
        {"pendingWorkloads": 3, "conditions": [condition("Active", READY, 1)]},
        id="different pendingWorkloads with same condition status",
    ),
    pytest.param(
        None,
        [],
        None,
        id="empty ClusterQueueStatus",
        marks=pytest.mark.skip(
            reason="not expressible: the test hands the reconciler a FlavorNotFound condition "
            "with a message no ClusterQueue state produces"
        ),
    ),
    pytest.param(
        None,
        [],
        None,
        id="cluster queue does not exist on manager",
        marks=pytest.mark.skip(reason="not expressible: an error path of Kueue's queue manager"),
    ),
    pytest.param(
        None,
        [],
        None,
        id="cluster queue does not exist on cache",
        marks=pytest.mark.skip(reason="not expressible: an error path of Kueue's cache"),
    ),
]


@pytest.mark.parametrize(("cq", "more", "want"), CLUSTER_QUEUE_CASES)
def test_update_cq_status_if_changed(cq: Json, more: list[Json], want: Json) -> None:
    docs = [local_queue(LQ, "", CQ), *PENDING, *more]
    assert status_after("ClusterQueue", CQ, cq, docs) == want
