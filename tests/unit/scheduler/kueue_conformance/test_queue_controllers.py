"""Kueue's ``pkg/controller/core/clusterqueue_controller_test.go``
(``TestUpdateCqStatusIfChanged``) and ``localqueue_controller_test.go``
(``TestLocalQueueReconcile``): the status Kueue's queue reconcilers write.

Each row is one upstream case (same name): the queue with its status before, the other
objects, and upstream's status after (its conditions' transition times ignored, empty values
equal to absent ones, as ``cmpopts.EquateEmpty``). Shoal decides the status and the binder
merges it into the object's; the merged status must be upstream's. Upstream's
``TestUpdateCqStatusIfChanged`` hands the reconciler the ``Active`` condition to write; here
it comes from the objects (a deletion timestamp is ``Terminating``), so rows whose condition
no ClusterQueue state produces are not expressible, nor are the error paths of Kueue's two
caches and the admission fair sharing rows (not implemented).
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
CQ, LQ = "test-cq", "test-lq"
READY = ("True", "Ready", "Can admit new workloads")
FLAVOR_NOT_FOUND = (
    "False",
    "FlavorNotFound",
    "Can't admit new workloads; some flavors are not found",
)


def _condition(kind: str, found: tuple[str, str, str], generation: int | None = None) -> Json:
    status, reason, message = found
    condition: Json = {"type": kind, "status": status, "reason": reason, "message": message}
    if generation:
        condition["observedGeneration"] = generation
    return condition


def _normal(status: Json) -> Json:
    """Conditions without times; empty values (0, [], None) left out."""
    out: Json = {}
    for key, value in status.items():
        if key == "conditions":
            value = [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in value]
        if value not in (None, 0, [], {}):
            out[key] = value
    return out


def _after(kind: str, key: str, obj: Json, docs: list[Json]) -> Json:
    """The object's status once the decided one (if any) is merged in."""
    decided = reconcile([obj, *docs]).get((kind, key), {})
    return _normal({**obj["status"], **decided})


PENDING = [workload(name, queue=LQ) for name in ("alpha", "beta")]


def _cq(status: Json, **kwargs: Any) -> Json:
    cq = cluster_queue(CQ, generation=1, status=status)
    cq["spec"]["queueingStrategy"] = "StrictFIFO"
    cq["metadata"].update(kwargs)
    return cq


CLUSTER_QUEUE_CASES = [
    pytest.param(
        _cq({"pendingWorkloads": 2, "conditions": [_condition("Active", READY)]}),
        [],
        {"pendingWorkloads": 2, "conditions": [_condition("Active", READY, 1)]},
        id="same condition status",
    ),
    pytest.param(
        _cq(
            {
                "pendingWorkloads": 2,
                "conditions": [
                    _condition(
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
                _condition(
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
        _cq({"pendingWorkloads": 2, "conditions": [_condition("Active", FLAVOR_NOT_FOUND)]}),
        [],
        {"pendingWorkloads": 2, "conditions": [_condition("Active", READY, 1)]},
        id="different condition status",
    ),
    pytest.param(
        _cq({"pendingWorkloads": 2, "conditions": [_condition("Active", READY)]}),
        [workload("gamma", queue=LQ)],
        {"pendingWorkloads": 3, "conditions": [_condition("Active", READY, 1)]},
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
    assert _after("ClusterQueue", CQ, cq, docs) == want


LQ_CQ = "test-cluster-queue"


def _lq(**kwargs: Any) -> Json:
    return local_queue("test-queue", "default", LQ_CQ, generation=1, **kwargs)


def _lq_active(found: tuple[str, str, str]) -> Json:
    return {"conditions": [_condition("Active", found, 1)]}


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
    assert _after("LocalQueue", "default/test-queue", lq, more) == want


def test_local_queue_follows_its_cluster_queue_once_active() -> None:
    """Not an upstream row: the ClusterQueue's Active=True, once shown, makes it Ready."""
    active = cluster_queue(
        LQ_CQ,
        resource_group(flavor_quotas("rf", ("cpu", "10"))),
        status={"conditions": [_condition("Active", READY)]},
    )
    status = _after("LocalQueue", "default/test-queue", _lq(), [active])
    assert status["conditions"] == [
        _condition("Active", ("True", "Ready", "Can submit new workloads to localQueue"), 1)
    ]
    assert status["flavorsReservation"] == [
        {"name": "rf", "resources": [{"name": "cpu", "total": "0"}]}
    ]
