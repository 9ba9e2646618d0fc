"""Volcano ``pkg/scheduler/framework/session_test.go`` ``TestConvertSoftToHardTopology``: the
tier a job and its sub-jobs may span once the session opens (soft is hard up to the top tier;
a soft sub-job is bounded by its job's tier), one row per upstream case.

Upstream builds the sub-jobs by hand (one per policy, match value "0", and a default sub-job
with the job's topology when there is no policy); so does this test. The top tier is 4 as
there: HyperNodes of tiers 1 to 3 under the virtual top. Shoal keeps the converted tier on
the session's ``JobTopology``/``SubJobInfo`` (``highest_tier``, None when not hard) instead of
rewriting the PodGroup's spec.
"""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.api.sub_job import GroupedJobInfo, SubJobInfo
from services.scheduler.framework.topology import open_topology
from services.scheduler.snapshot import Snapshot, build_cluster
from shared.models.volcano import SubGroupPolicySpec
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod_group,
    build_resource_list,
    hyper_nodes_of_sets,
)

MAX_TIER = 4
SOFT = {"mode": "soft"}


def _hard(tier: int) -> dict[str, Any]:
    return {"mode": "hard", "highestTierAllowed": tier}


def _worker(topology: dict[str, Any] | None, name: str = "worker", size: int = 4) -> Any:
    policy: dict[str, Any] = {"name": name, "subGroupSize": size}
    if topology is not None:
        policy["networkTopology"] = topology
    return policy


ROWS = [
    pytest.param(SOFT, [], MAX_TIER, [], id="job-level soft topology is converted to hard"),
    pytest.param(_hard(2), [], 2, [], id="job-level hard topology is unchanged"),
    pytest.param(None, [], None, [], id="nil job topology remains nil"),
    pytest.param(
        None, [_worker(SOFT)], None, [MAX_TIER],
        id="subGroupPolicy-level soft topology is converted to hard",
    ),
    pytest.param(
        None, [_worker(_hard(2))], None, [2], id="subGroupPolicy-level hard topology is unchanged"
    ),
    pytest.param(
        SOFT, [_worker(SOFT)], MAX_TIER, [MAX_TIER],
        id="mixed: job soft + subGroupPolicy soft both converted",
    ),
    pytest.param(
        _hard(2), [_worker(SOFT)], 2, [2],
        id="mixed: job hard + subGroupPolicy soft (subgroup bounded by job tier)",
    ),
    pytest.param(
        _hard(3), [_worker(SOFT), _worker(SOFT, "ps", 2)], 3, [3, 3],
        id="mixed: job hard tier=3 + multiple subGroupPolicies soft (all bounded by job tier)",
    ),
    pytest.param(
        None, [_worker(SOFT), _worker(_hard(1), "ps", 2)], None, [MAX_TIER, 1],
        id="multiple subGroupPolicies: some soft some hard",
    ),
    pytest.param(
        None, [_worker(None)], None, [None],
        id="subGroupPolicy with nil NetworkTopology is unchanged",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("job_topology", "policies", "job_tier", "sub_tiers"), ROWS)
def test_convert_soft_to_hard_topology(
    job_topology: dict[str, Any] | None,
    policies: list[dict[str, Any]],
    job_tier: int | None,
    sub_tiers: list[int | None],
) -> None:
    spec: dict[str, Any] = {"subGroupPolicy": policies or [_worker(None, "unused")]}
    if job_topology is not None:
        spec["networkTopology"] = job_topology
    nodes = {"n1"}
    objects = [
        build_node("n1", build_resource_list("1", "1Gi"), None),
        *hyper_nodes_of_sets({1: {"a"}, 2: {"b"}, 3: {"c"}}, {"a": nodes, "b": nodes, "c": nodes}),
        build_pod_group("test-job", "ns", "q1", 4, None, "Inqueue", **spec),
    ]
    cluster = build_cluster(Snapshot.of(objects))
    job = cluster.jobs["ns/test-job"]
    assert isinstance(job, GroupedJobInfo)
    subs = []
    for policy in job.pod_group.spec.subGroupPolicy if policies else []:
        subs.append(_sub_job(job, policy))
    if not policies:  # the default sub-job, with the job's topology
        subs.append(_sub_job(job, None))
    topology = open_topology(cluster.hyper_nodes, cluster.nodes, [job])
    assert topology.tree.tier("<cluster-top-hypernode>") == MAX_TIER
    constraint = topology.jobs.get(job.key)
    assert (constraint.highest_tier if constraint else None) == job_tier
    assert [s.highest_tier for s in subs[: len(sub_tiers)]] == sub_tiers
    # Every sub-job with a topology is hard after the conversion, with a valid tier.
    assert all((s.highest_tier or 0) > 0 for s in subs if s.network_topology is not None)


def _sub_job(job: GroupedJobInfo, policy: SubGroupPolicySpec | None) -> SubJobInfo:
    """``NewSubJobInfo`` as the upstream test calls it."""
    if policy is None:
        sub = SubJobInfo(
            job.key,
            job.key,
            job.key,
            min_available=4,
            network_topology=job.pod_group.spec.networkTopology,
            match_values=[],
        )
    else:
        uid = f"{job.key}/{policy.name}/0"
        sub = SubJobInfo(
            f"{job.key}/{policy.name}",
            uid,
            job.key,
            min_available=policy.subGroupSize or 1,
            network_topology=policy.networkTopology,
            match_values=["0"],
        )
    job.sub_jobs[sub.uid] = sub
    return sub
