"""allocate for jobs with a ``subGroupPolicy``: each sub-group is a gang of ``subGroupSize``
pods placed within one HyperNode of its own tier, and ``minSubGroups`` of a policy must be
ready for the job to run."""

from __future__ import annotations

from typing import Any

from services.scheduler.conf import DEFAULT_CONF
from shared.models import Model
from tests.unit.scheduler.builders import plugin_option, schedule, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
    hyper_nodes_of_sets,
)

GANG = plugin_option(
    "gang",
    "enableJobOrder",
    "enableJobReady",
    "enableJobPipelined",
    "enableJobStarving",
    "enabledSubJobReady",
    "enabledSubJobPipelined",
    "enabledSubJobOrder",
)
CONF = tiers_conf(
    "allocate",
    [
        [
            GANG,
            plugin_option("predicates", "enablePredicate"),
            plugin_option(
                "network-topology-aware",
                "enableNodeOrder",
                "enabledHyperNodeOrder",
                "enabledHyperNodeGradient",
            ),
        ]
    ],
)
RACKS = {"rack1": {"n1", "n2", "n3"}, "rack2": {"n4", "n5"}}


def _objects(
    pods: dict[str, str], policy: dict[str, Any], *, min_member: int, racks: bool = True
) -> list[Model]:
    nodes = sorted({n for names in RACKS.values() for n in names})
    return [
        build_queue("q1", 1, None),
        *(
            build_node(n, build_resource_list("2", "4Gi", {"Name": "pods", "Value": "10"}), None)
            for n in nodes
        ),
        *(hyper_nodes_of_sets({1: set(RACKS)}, RACKS) if racks else []),
        build_pod_group("pg1", "c1", "q1", min_member, None, "Inqueue", subGroupPolicy=[policy]),
        *(
            build_pod(
                "c1", name, "", "Pending", build_resource_list("2", "4G"), "pg1", {"group": g}, None
            )
            for name, g in pods.items()
        ),
    ]


def _rack(node: str) -> str:
    return next(r for r, nodes in RACKS.items() if node in nodes)


def test_each_sub_group_within_one_rack() -> None:
    pods = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    policy = {
        "name": "g",
        "matchLabelKeys": ["group"],
        "subGroupSize": 2,
        "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
    }
    binds = schedule(_objects(pods, policy, min_member=4), CONF).binds
    assert len(binds) == 4, binds
    for group in ("a", "b"):
        racks = {_rack(node) for pod, node in binds.items() if pod.startswith(f"c1/{group}")}
        assert len(racks) == 1, binds


def test_a_sub_group_that_fits_no_rack_waits() -> None:
    pods = {"a1": "a", "a2": "a", "a3": "a", "a4": "a"}
    policy = {
        "name": "g",
        "matchLabelKeys": ["group"],
        "subGroupSize": 4,
        "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
    }
    assert schedule(_objects(pods, policy, min_member=1), CONF).binds == {}


def test_min_sub_groups_is_a_gang_of_sub_groups() -> None:
    pods = {f"{g}{i}": g for g in "abc" for i in (1, 2)}
    policy = {"name": "g", "matchLabelKeys": ["group"], "subGroupSize": 2, "minSubGroups": 3}
    objects = _objects(pods, policy, min_member=1, racks=False)
    # Five nodes hold two whole sub-groups, not the three the policy needs.
    assert schedule(objects, CONF).binds == {}
    policy["minSubGroups"] = 2
    assert len(schedule(_objects(pods, policy, min_member=1, racks=False), CONF).binds) == 4


def test_a_partial_sub_group_is_not_placed() -> None:
    """Without HyperNodes too: a sub-group gets its subGroupSize pods or none (a plain job
    of minMember 1 would take a fifth node for one more pod)."""
    pods = {f"{g}{i}": g for g in "abc" for i in (1, 2)}
    policy = {"name": "g", "matchLabelKeys": ["group"], "subGroupSize": 2}
    binds = schedule(_objects(pods, policy, min_member=1, racks=False), CONF).binds
    groups = [pod.removeprefix("c1/")[0] for pod in binds]
    assert len(binds) == 4 and all(groups.count(g) == 2 for g in set(groups)), binds


def test_default_conf_runs_sub_groups() -> None:
    pods = {"a1": "a", "a2": "a"}
    policy = {"name": "g", "matchLabelKeys": ["group"], "subGroupSize": 2}
    assert len(schedule(_objects(pods, policy, min_member=2), DEFAULT_CONF).binds) == 2


def test_close_reads_the_gang_not_the_sub_groups() -> None:
    """Upstream's gang close marks a job Scheduled once minMember tasks run, even while
    another sub-group (here one that fits nowhere) keeps minSubGroups unmet."""
    policy = {"name": "g", "matchLabelKeys": ["group"], "subGroupSize": 2, "minSubGroups": 2}
    objects = _objects({"b1": "b", "b2": "b"}, policy, min_member=2, racks=False)
    running = [
        build_pod(
            "c1", name, node, "Running", build_resource_list("2", "4G"), "pg1", {"group": "a"}, None
        )
        for name, node in (("a1", "n1"), ("a2", "n2"), ("a3", "n3"), ("a4", "n4"), ("a5", "n5"))
    ]
    result = schedule([*objects, *running], CONF)
    assert result.binds == {}
    (condition,) = result.pod_groups["c1/pg1"].conditions
    assert (condition.type, condition.status) == ("Scheduled", "True")
