"""Volcano ``pkg/scheduler/plugins/conformance/conformance_test.go``: ``TestConformancePlugin``,
its one row. A session with conformance alone (``enablePreemptable``) is asked which of two
running pods may be preempted: the ``kube-system`` one is kept, the other is a victim.

Upstream builds the two tasks outside any session and passes an empty preemptor; here the
pods (each in a ``pg1`` of its namespace) are in the session the victims are asked of, and the
preemptor is a pending pod of another job (conformance does not look at it).
"""

from __future__ import annotations

import pytest

from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)

CASES = [pytest.param(["test-namespace/test-pod"], id="conformance plugin")]


@pytest.mark.parametrize("victims", CASES)
def test_conformance_plugin(victims: list[str]) -> None:
    res = build_resource_list("1", "1Gi")
    objects = [
        build_queue("default", 1, None),
        build_node("test-node", build_resource_list("4", "4Gi"), {}),
        build_pod_group("pg1", "kube-system", "default", 0, None, "Running"),
        build_pod_group("pg1", "test-namespace", "default", 0, None, "Running"),
        build_pod_group("pg2", "test-namespace", "default", 0, None, "Inqueue"),
        build_pod("kube-system", "test-pod", "test-node", "Running", res, "pg1", {}, {}),
        build_pod("test-namespace", "test-pod", "test-node", "Running", res, "pg1", {}, {}),
        build_pod("test-namespace", "preemptor", "", "Pending", res, "pg2", {}, {}),
    ]
    option = plugin_option("conformance", "enablePreemptable")
    ssn = session(objects, tiers_conf("preempt", [[option]]))
    task1 = ssn.jobs["kube-system/pg1"].tasks["kube-system/test-pod"]
    task2 = ssn.jobs["test-namespace/pg1"].tasks["test-namespace/test-pod"]
    preemptor = ssn.jobs["test-namespace/pg2"].tasks["test-namespace/preemptor"]
    assert [t.key for t in ssn.preemptable(preemptor, [task1, task2])] == victims
