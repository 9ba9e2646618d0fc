"""Volcano ``pkg/scheduler/plugins/overcommit/overcommit_test.go``: ``TestOvercommitPlugin``,
one row per upstream case, same objects and arguments. As upstream, each case opens a session
with overcommit alone (``enableJobEnqueued``) and, for every job, calls the job-enqueued hook
and then asks the job-enqueueable vote (so the job's own minResources count twice).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import plugin_option, session, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod_group,
    build_pod_group_with_min_resources,
    build_queue,
    build_resource_list,
)


@dataclass
class Case:
    name: str
    objects: list[Model]
    arguments: dict[str, Any]
    enqueueable: bool


def _cases() -> list[Case]:
    nodes = [
        build_node("n1", build_resource_list("2", "4Gi"), {}),
        build_node("n2", build_resource_list("4", "16Gi"), {}),
    ]
    huge = build_resource_list("20000m", "20G")
    normal = build_resource_list("2000m", "2G")
    small = build_resource_list("200m", "0.5G")
    pg1 = build_pod_group_with_min_resources(
        "pg1", "test-namespace", "c1", 2, None, normal, "Inqueue"
    )
    pg2 = build_pod_group_with_min_resources(
        "pg2", "test-namespace", "c1", 2, None, huge, "Inqueue"
    )
    pg3 = build_pod_group("pg2", "test-namespace", "c1", 2, None, "Inqueue")
    queue1, queue2 = build_queue("c1", 1, None), build_queue("c1", 1, small)
    return [
        Case(
            "overCommitFactor is more than 0",
            [queue1, *nodes, pg1],
            {"overcommit-factor": 1.2},
            True,
        ),
        Case(
            "overCommitFactor is less than 0",
            [queue1, *nodes, pg1],
            {"overcommit-factor": 0.8},
            True,
        ),
        Case(
            "when the required resources of pg are too large",
            [queue1, *nodes, pg2],
            {"overcommit-factor": 1.2},
            False,
        ),
        Case(
            "when pg does not fill MinResources",
            [queue2, *nodes, pg3],
            {"overcommit-factor": 1.2},
            True,
        ),
    ]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in _cases()])
def test_overcommit_plugin(case: Case) -> None:
    option = plugin_option("overcommit", "enableJobEnqueued", arguments=case.arguments)
    ssn = session(case.objects, tiers_conf("enqueue", [[option]]))
    assert ssn.jobs
    for job in ssn.jobs.values():
        ssn.job_enqueued(job)
        assert ssn.job_enqueueable(job) is case.enqueueable, job.reasons
