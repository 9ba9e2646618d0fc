"""Network-topology-aware scheduling: the HyperNode tree, allocate within one HyperNode for
jobs with ``networkTopology``, and the plugin's scores, as Volcano does them."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.api.hypernodes import TOP, HyperNodeTree
from services.scheduler.cycle import Scheduling
from services.scheduler.snapshot import Snapshot, build_cluster
from services.scheduler.state import SchedulerState
from shared.bus import Record
from shared.events import ObjectAdded, raw_object
from shared.models import HyperNode, Model
from shared.models.registry import load_manifests
from shared.topics import STATE_TOPIC_OF_KIND
from tests.unit.scheduler.builders import (
    conf_text,
    group,
    node,
    pod,
    priority_class,
    queue,
    schedule,
)

CONF = conf_text(
    "enqueue, allocate", ["priority", "gang"], ["predicates", "network-topology-aware"]
)
NO_NORMAL_POD_BINPACK = conf_text(
    "enqueue, allocate",
    ["priority", "gang"],
    [
        "predicates",
        {
            "name": "network-topology-aware",
            "arguments": {"hypernode.binpack.normal-pod.enable": False},
        },
    ],
)


def hyper_node(name: str, tier: int, *members: dict[str, Any]) -> HyperNode:
    return msgspec.convert(
        {"metadata": {"name": name}, "spec": {"tier": tier, "members": list(members)}}, HyperNode
    )


def nodes_(*names: str) -> list[dict[str, Any]]:
    return [{"type": "Node", "selector": {"exactMatch": {"name": n}}} for n in names]


def child(name: str) -> dict[str, Any]:
    return {"type": "HyperNode", "selector": {"exactMatch": {"name": name}}}


def topology_group(name: str, min_member: int, mode: str, tier: int | None = None) -> Any:
    spec: dict[str, Any] = {"mode": mode}
    if tier is not None:
        spec["highestTierAllowed"] = tier
    return group(name, min_member, networkTopology=spec)


def tree_of(objects: list[Model]) -> HyperNodeTree:
    cluster = build_cluster(Snapshot.of(objects))
    return HyperNodeTree.build(cluster.hyper_nodes, cluster.nodes)


# Two racks of two 2-cpu nodes under one spine: s0 = {a1, a2}, s1 = {b1, b2}, s2 = {s0, s1}.
RACKS: list[Model] = [
    queue("default"),
    node("a1", cpu="2"),
    node("a2", cpu="2"),
    node("b1", cpu="2"),
    node("b2", cpu="2"),
    hyper_node("s0", 1, *nodes_("a1", "a2")),
    hyper_node("s1", 1, *nodes_("b1", "b2")),
    hyper_node("s2", 2, child("s0"), child("s1")),
]


def racks_of(binds: dict[str, str]) -> set[str]:
    return {"s0" if n.startswith("a") else "s1" for n in binds.values()}


@pytest.mark.parametrize(
    ("members", "want"),
    [
        (nodes_("a1", "ghost"), {"a1"}),
        ([{"type": "Node", "selector": {"regexMatch": {"pattern": "^b"}}}], {"b1", "b2"}),
        ([{"type": "Node", "selector": {"regexMatch": {"pattern": "("}}}], set()),
        (
            [{"type": "Node", "selector": {"labelMatch": {"matchLabels": {"rack": "r1"}}}}],
            {"a2"},
        ),
        ([{"type": "Node", "selector": {"labelMatch": {}}}], set()),
    ],
    ids=["exact-unknown-name-left-out", "regex-searched", "bad-regex-none", "label", "empty-label"],
)
def test_node_members_resolve_to_real_nodes(members: list[dict[str, Any]], want: set[str]) -> None:
    objects: list[Model] = [
        node("a1"),
        node("a2", labels={"rack": "r1"}),
        node("b1"),
        node("b2"),
        hyper_node("h", 1, *members),
    ]
    tree = tree_of(objects)
    cluster = build_cluster(Snapshot.of(objects))
    assert {cluster.nodes.names[r] for r in tree.infos["h"].rows} == want


def test_the_tree_links_children_and_hangs_roots_under_the_top() -> None:
    tree = tree_of([*RACKS, hyper_node("lone", 1, *nodes_("b2")), hyper_node("up", 3, child("x"))])
    assert tree.ready
    assert tree.infos["s0"].parent == "s2" and tree.infos["s2"].children == ["s0", "s1"]
    assert tree.infos["s2"].rows == {0, 1, 2, 3}
    # A member HyperNode that does not exist is an empty placeholder of tier 0.
    assert tree.infos["x"].tier == 0 and tree.infos["x"].rows == set()
    assert tree.tier(TOP) == 4 and tree.infos[TOP].children == ["lone", "s2", "up"]
    assert tree.tiers == [1, 2, 3, 4]
    assert tree.lca("s0", "s1") == "s2" and tree.lca("s0", "lone") == TOP
    # Per node, the first name among the lowest tier's HyperNodes holding it.
    assert tree.leaf_of_row == ["s0", "s0", "s1", "lone"]


@pytest.mark.parametrize(
    "extra",
    [
        [hyper_node("p", 2, child("q")), hyper_node("q", 1, child("p"))],
        [hyper_node("p", 3, child("s0"))],
    ],
    ids=["cycle", "two-parents"],
)
def test_a_broken_tree_holds_topology_jobs_only(extra: list[HyperNode]) -> None:
    objects: list[Model] = [
        *RACKS,
        *extra,
        topology_group("hard", 1, "hard", 2),
        pod("h1", "hard"),
        group("plain"),
        pod("p1", "plain"),
    ]
    result = schedule(objects, CONF)
    assert list(result.binds) == ["default/p1"]
    assert "HyperNodesNotReady" in str(result.reasons["default/hard"])


def test_a_hard_job_stays_within_one_hyper_node_of_its_tier() -> None:
    # Two 2-cpu pods: a rack holds both only if each of its nodes takes one; a1 is busy.
    pods = [pod("w0", "job", cpu="2"), pod("w1", "job", cpu="2")]
    busy = [group("busy"), pod("x", "busy", cpu="1", node="a1")]
    result = schedule([*RACKS, *busy, topology_group("job", 2, "hard", 1), *pods], CONF)
    assert racks_of({k: v for k, v in result.binds.items() if k != "default/x"}) == {"s1"}


def test_a_hard_job_that_no_hyper_node_of_its_tier_holds_waits() -> None:
    pods = [pod(f"w{i}", "job", cpu="2") for i in range(3)]
    waiting = schedule([*RACKS, topology_group("job", 3, "hard", 1), *pods], CONF)
    assert waiting.binds == {}
    # Its pods say why within the last HyperNode tried, as upstream's fit errors do.
    (reason, message) = waiting.unschedulable_pods["default/w2"]
    assert message == (
        "In hyperNode s1: 0/2 nodes are unavailable: 2 insufficient cpu (need 2, max free 0)."
    ), reason
    placed = schedule([*RACKS, topology_group("job", 3, "hard", 2), *pods], CONF).binds
    assert len(placed) == 3


def test_a_soft_job_fills_one_hyper_node_when_it_can_and_crosses_when_it_must() -> None:
    two = [pod(f"w{i}", "job", cpu="2") for i in range(2)]
    assert (
        len(racks_of(schedule([*RACKS, topology_group("job", 2, "soft"), *two], CONF).binds)) == 1
    )
    three = [pod(f"w{i}", "job", cpu="2") for i in range(3)]
    assert len(schedule([*RACKS, topology_group("job", 3, "soft"), *three], CONF).binds) == 3


def test_remaining_tasks_join_the_placed_ones() -> None:
    # w0 already runs in s1: the job's next task goes to s1 (tier 1 bounds it) although s0
    # is empty.
    objects: list[Model] = [
        *RACKS,
        topology_group("job", 1, "hard", 1),
        pod("w0", "job", cpu="2", node="b1"),
        pod("w1", "job", cpu="2"),
    ]
    assert schedule(objects, CONF).binds == {"default/w1": "b2"}


def test_min_resources_leave_out_hyper_nodes_too_small_for_the_gang() -> None:
    # s0 has 3 cpus idle, s1 4: the pods (1 cpu each) fit either, minResources (4) only s1.
    busy = [group("busy"), pod("x", "busy", cpu="1", node="a1")]
    job = group(
        "job",
        2,
        networkTopology={"mode": "hard", "highestTierAllowed": 1},
        minResources={"cpu": "4"},
    )
    pods = [pod("w0", "job"), pod("w1", "job")]
    result = schedule([*RACKS, *busy, job, *pods], CONF)
    assert racks_of({k: v for k, v in result.binds.items() if k != "default/x"}) == {"s1"}


def test_hyper_node_binpacking_places_plain_pods_near_used_capacity() -> None:
    # s1 already runs a pod; a plain pod goes next to it (its HyperNode packs tighter) unless
    # normal-pod binpacking is off (then the first node wins the tie).
    objects: list[Model] = [
        *RACKS,
        group("busy"),
        pod("x", "busy", cpu="1", node="b1"),
        group("plain"),
        pod("p", "plain", cpu="1"),
    ]
    assert schedule(objects, CONF).binds["default/p"].startswith("b")
    assert schedule(objects, NO_NORMAL_POD_BINPACK).binds["default/p"] == "a1"


def test_without_hyper_nodes_a_topology_job_is_scheduled_as_any_other() -> None:
    flat: list[Model] = [queue("default"), node("a1", cpu="2"), node("b1", cpu="2")]
    pods = [pod("w0", "job", cpu="2"), pod("w1", "job", cpu="2")]
    hard = schedule([*flat, topology_group("job", 2, "hard", 1), *pods], CONF)
    plain = schedule([*flat, group("job", 2), *pods], CONF)
    assert hard.binds == plain.binds and len(hard.binds) == 2


def test_the_hyper_node_packing_the_job_tightest_wins() -> None:
    # Both racks hold the job (two 1-cpu pods); s1 already runs a pod, so the job packs it
    # tighter and goes there although s0 comes first.
    objects: list[Model] = [
        *RACKS,
        group("busy"),
        pod("x", "busy", cpu="1", node="b1"),
        topology_group("job", 2, "hard", 1),
        pod("w0", "job"),
        pod("w1", "job"),
    ]
    binds = schedule(objects, CONF).binds
    assert racks_of({k: v for k, v in binds.items() if k != "default/x"}) == {"s1"}


HYPER_NODE_YAML = """
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: s1, uid: hn-s1, resourceVersion: "7"}
spec:
  tier: 1
  members:
  - type: Node
    selector: {regexMatch: {pattern: "^b"}}
"""


def test_the_scheduler_state_reads_hyper_nodes_from_their_state_topic() -> None:
    (hn,) = load_manifests(HYPER_NODE_YAML)
    assert isinstance(hn, HyperNode)
    body = msgspec.to_builtins(hn)
    event = ObjectAdded(key="s1", kind="HyperNode", resourceVersion="7", object=raw_object(body))
    topic = STATE_TOPIC_OF_KIND["HyperNode"]
    record: Record[Any] = Record(
        topic=topic, partition=0, offset=0, key=b"s1", value=event, timestamp_ms=0
    )
    state = SchedulerState()
    state.apply_state([record])
    snapshot = state.view()
    assert [h.metadata.name for h in snapshot.hyper_nodes] == ["s1"]
    # A hard tier-1 job then goes to s1's nodes only.
    snapshot.nodes = [node("a1", cpu="2"), node("b1", cpu="2"), node("b2", cpu="2")]
    snapshot.queues = [queue("default")]
    snapshot.pod_groups = [topology_group("job", 2, "hard", 1)]
    snapshot.pods = [pod("w0", "job", cpu="2"), pod("w1", "job", cpu="2")]
    snapshot.conf_text = CONF
    result = Scheduling().session(snapshot, now=0.0, scheduler_names=["volcano"])
    assert sorted(result.binds.values()) == ["b1", "b2"]


def test_a_topology_job_does_not_preempt_where_hyper_nodes_exist() -> None:
    preempting = conf_text(
        "enqueue, allocate, preempt",
        ["priority", "gang", "conformance"],
        ["predicates", "network-topology-aware"],
    )
    classes = [priority_class("low", 1), priority_class("high", 100)]
    low: list[Model] = [group("low", 1, priorityClassName="low")]
    low += [pod(f"l{i}", "low", cpu="2", node=n) for i, n in enumerate(("a1", "a2", "b1", "b2"))]
    topology = {"mode": "hard", "highestTierAllowed": 2}
    high = [
        group("high", 1, priorityClassName="high", networkTopology=topology),
        pod("h0", "high", cpu="2"),
    ]
    flat = [o for o in RACKS if not isinstance(o, HyperNode)]
    assert schedule([*RACKS, *classes, *low, *high], preempting).evictions == []
    assert len(schedule([*flat, *classes, *low, *high], preempting).evictions) == 1
