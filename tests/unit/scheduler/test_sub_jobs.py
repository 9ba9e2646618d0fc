"""Sub-jobs of a PodGroup's ``subGroupPolicy``: which pods form which sub-gang, as upstream's
``getOrCreateSubJob`` groups them; jobs without a policy stay plain ``JobInfo``."""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.api import JobInfo, TaskStatus
from services.scheduler.api.sub_job import GroupedJobInfo
from services.scheduler.snapshot import Snapshot, build_cluster
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)


def _job(policies: list[dict[str, Any]], labels: dict[str, dict[str, str]], **spec: Any) -> JobInfo:
    objects = [
        build_queue("q1", 1, None),
        build_node("n1", build_resource_list("8", "8Gi"), None),
        build_pod_group("pg1", "c1", "q1", 1, None, "Inqueue", subGroupPolicy=policies, **spec),
        *(
            build_pod("c1", name, "", "Pending", build_resource_list("1", "1G"), "pg1", lab, None)
            for name, lab in labels.items()
        ),
    ]
    return build_cluster(Snapshot.of(objects)).jobs["c1/pg1"]


def _groups(job: JobInfo) -> dict[str, list[str]]:
    assert isinstance(job, GroupedJobInfo)
    return {uid: sorted(t.name for t in s.tasks.values()) for uid, s in job.sub_jobs.items()}


ROLE = {"name": "task1", "matchLabelKeys": ["volcano.sh/task-spec"], "subGroupSize": 2}


@pytest.mark.parametrize(
    ("policies", "labels", "expected"),
    [
        (
            [ROLE],
            {"p1": {"volcano.sh/task-spec": "a"}, "p2": {"volcano.sh/task-spec": "a"}, "p3": {}},
            {"c1/pg1/task1-a": ["p1", "p2"], "c1/pg1": ["p3"]},
        ),
        (
            [{"name": "r", "matchLabelKeys": ["rack", "slot"]}],
            {"p1": {"rack": "1", "slot": "2"}, "p2": {"rack": "1", "slot": ""}},
            {"c1/pg1/r-1-2": ["p1"], "c1/pg1": ["p2"]},
        ),
        (
            [
                {
                    "name": "sel",
                    "labelSelector": {"matchLabels": {"team": "x"}},
                    "matchLabelKeys": ["k"],
                }
            ],
            {"p1": {"team": "x", "k": "v"}, "p2": {"team": "y", "k": "v"}},
            {"c1/pg1/sel-v": ["p1"], "c1/pg1": ["p2"]},
        ),
        (
            [{"name": "nokeys"}],
            {"p1": {"k": "v"}},
            {"c1/pg1": ["p1"]},
        ),
        (
            [{"name": "a", "matchLabelKeys": ["k"]}, {"name": "b", "matchLabelKeys": ["k"]}],
            {"p1": {"k": "v"}},
            {"c1/pg1/a-v": ["p1"]},
        ),
    ],
    ids=[
        "by label value, the rest in the default sub-job",
        "several keys joined, an empty value is no match",
        "label selector first",
        "a policy without matchLabelKeys matches no pod",
        "the first matching policy wins",
    ],
)
def test_grouping(
    policies: list[dict[str, Any]],
    labels: dict[str, dict[str, str]],
    expected: dict[str, list[str]],
) -> None:
    assert _groups(_job(policies, labels)) == expected


def test_defaults_and_counts() -> None:
    job = _job(
        [ROLE, {"name": "idx", "matchLabelKeys": ["index"], "minSubGroups": 2}],
        {"p1": {"volcano.sh/task-spec": "a"}, "p2": {"index": "7"}, "p3": {"index": "x"}},
        networkTopology={"mode": "hard", "highestTierAllowed": 1},
    )
    assert isinstance(job, GroupedJobInfo)
    role, seven, other = (job.sub_jobs[f"c1/pg1/{k}"] for k in ("task1-a", "idx-7", "idx-x"))
    assert (role.min_available, seven.min_available) == (2, 1)
    assert (seven.match_index, other.match_index) == (7, 0)
    assert role.network_topology is None
    assert job.min_sub_jobs == {"c1/pg1/task1": 0, "c1/pg1/idx": 2}
    assert job.sub_jobs_valid() and not job.sub_jobs_ready()
    task = job.tasks["c1/p2"]
    job.set_status(task, TaskStatus.ALLOCATED)
    assert seven.is_ready() and not job.sub_jobs_ready()
    job.set_status(job.tasks["c1/p3"], TaskStatus.PIPELINED)
    assert job.sub_jobs_pipelined() and not job.sub_jobs_ready()


def test_long_ids_are_hashed() -> None:
    value = "v" * 129
    job = _job([{"name": "p", "matchLabelKeys": ["k"]}], {"p1": {"k": value}})
    (uid,) = _groups(job)
    assert uid.startswith("c1/pg1/p-") and len(uid) < 40


def test_without_policy_plain_job() -> None:
    job = _job([], {"p1": {"volcano.sh/task-spec": "a"}})
    assert type(job) is JobInfo
