"""Volcano ``pkg/scheduler/plugins/sla/sla_test.go``: ``TestSlaPlugin``, one row per upstream
case, same arguments. A session with sla alone (``enableJobOrder``, ``enableJobEnqueued``) is
asked whether job1 orders before job2 and whether job1 may be enqueued.

Upstream hands the plugin two ``JobInfo`` structs: job1 without a waiting time, job2 with
``WaitingTime`` 1h, neither with a creation time. Here they are PodGroups ``job1`` and ``job2``
(job2 annotated ``sla-waiting-time: 1h``, which is where Volcano reads ``WaitingTime`` from),
without creation timestamps; their tasks play no part in sla and are left out. Upstream's
``JobOrderFn`` falls back to creation time and then UID, equal (zero, empty) for the hand-built
jobs, so a tie there is "not before"; the rows compare the session's order keys without
Shoal's last tie-break (the job key, which is never equal for two jobs).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.api import JobInfo
from services.scheduler.framework.session import Session
from shared.models import PodGroup
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import build_pod_group, build_queue

CASES = [
    pytest.param({"sla-waiting-time": "3m"}, True, True, id="sla normal placement"),
    pytest.param({"sla-waiting-time": 1}, False, True, id="sla error type placement"),
    pytest.param({}, False, True, id="none placement"),
]


def _with_waiting_time(pod_group: PodGroup, waiting: str) -> PodGroup:
    doc = msgspec.to_builtins(pod_group)
    doc["metadata"]["annotations"] = {"sla-waiting-time": waiting}
    return msgspec.convert(doc, PodGroup)


def _before(ssn: Session, left: JobInfo, right: JobInfo) -> bool:
    """``ssn.JobOrderFn(l, r)`` for jobs whose UIDs upstream leaves equal (empty)."""
    return ssn.job_order_key(left)[:-1] < ssn.job_order_key(right)[:-1]


@pytest.mark.parametrize(("arguments", "order", "enqueueable"), CASES)
def test_sla_plugin(arguments: dict[str, Any], order: bool, enqueueable: bool) -> None:
    objects = [
        build_queue("default", 1, None),
        build_pod_group("job1", "default", "default", 0, None, "Pending"),
        _with_waiting_time(build_pod_group("job2", "default", "default", 0, None, "Pending"), "1h"),
    ]
    option = plugin_option("sla", "enableJobOrder", "enableJobEnqueued", arguments=arguments)
    ssn = session(objects, tiers_conf("enqueue", [[option]]))
    job1, job2 = ssn.jobs["default/job1"], ssn.jobs["default/job2"]
    assert _before(ssn, job1, job2) is order
    assert ssn.job_enqueueable(job1) is enqueueable
