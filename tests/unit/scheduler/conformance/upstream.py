"""Volcano's test builders (``pkg/scheduler/util/test_utils.go``) and its result checks
(``uthelper.TestCommonStruct.CheckAll``), so a ported row reads like the upstream case.

The builders return the typed models the scheduler's cache holds; a row's expectations are
checked against one ``schedule`` run: binds (exact map), evictions (as a multiset), pipelined
(every pipelined task of the job on one of the nodes), PodGroup phases, and task counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest

from services.scheduler import runner
from services.scheduler.actions import default_actions
from services.scheduler.api.hypernodes import HyperNodeTree
from services.scheduler.conf import parse_conf
from services.scheduler.framework.session import Session
from services.scheduler.plugins import default_plugins
from services.scheduler.snapshot import Snapshot, build_cluster
from shared.models import HyperNode, Model, Node, Pod, PodGroup, PriorityClass, Queue
from shared.models.volcano import JOB_ALLOCATED_HYPERNODE, PodGroupSpec
from tests.unit.scheduler.builders import NOW, schedule

PREEMPTABLE = "volcano.sh/preemptable"
GROUP_NAME = "scheduling.k8s.io/group-name"

ResourceList = dict[str, str]


def build_resource_list(cpu: str, memory: str, *scalars: dict[str, str]) -> ResourceList:
    """``api.BuildResourceList``: cpu and memory (left out when empty) plus
    ``ScalarResource{Name, Value}`` entries."""
    resources = {key: value for key, value in (("cpu", cpu), ("memory", memory)) if value}
    for scalar in scalars:
        resources[scalar["Name"]] = scalar["Value"]
    return resources


def build_node(name: str, alloc: ResourceList, labels: dict[str, str] | None) -> Node:
    return msgspec.convert(
        {
            "metadata": {"name": name, "labels": labels or {}},
            "status": {"allocatable": alloc, "capacity": alloc},
        },
        Node,
    )


def build_pod(
    namespace: str,
    name: str,
    node_name: str,
    phase: str,
    req: ResourceList | None,
    group_name: str,
    labels: dict[str, str] | None,
    selector: dict[str, str] | None,
    **spec: Any,
) -> Pod:
    body: dict[str, Any] = {
        "schedulerName": "volcano",
        "nodeSelector": selector or {},
        "containers": [{"name": "c", "resources": {"requests": req or {}}}],
        **spec,
    }
    if node_name:
        body["nodeName"] = node_name
    return msgspec.convert(
        {
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": f"{namespace}-{name}",
                "labels": labels or {},
                "annotations": {GROUP_NAME: group_name},
            },
            "spec": body,
            "status": {"phase": phase},
        },
        Pod,
    )


def build_best_effort_pod(
    namespace: str,
    name: str,
    node_name: str,
    phase: str,
    group_name: str,
    labels: dict[str, str] | None,
    selector: dict[str, str] | None,
) -> Pod:
    return build_pod(namespace, name, node_name, phase, {}, group_name, labels, selector)


def build_pod_with_priority(
    namespace: str,
    name: str,
    node_name: str,
    phase: str,
    req: ResourceList | None,
    group_name: str,
    labels: dict[str, str] | None,
    selector: dict[str, str] | None,
    priority: int,
) -> Pod:
    return build_pod(
        namespace, name, node_name, phase, req, group_name, labels, selector, priority=priority
    )


def build_pod_with_preemption_policy(
    namespace: str,
    name: str,
    node_name: str,
    phase: str,
    req: ResourceList | None,
    group_name: str,
    labels: dict[str, str] | None,
    selector: dict[str, str] | None,
    policy: str,
) -> Pod:
    return build_pod(
        namespace,
        name,
        node_name,
        phase,
        req,
        group_name,
        labels,
        selector,
        preemptionPolicy=policy,
    )


def build_pod_with_affinity(
    namespace: str,
    name: str,
    node_name: str,
    phase: str,
    req: ResourceList | None,
    group_name: str,
    labels: dict[str, str] | None,
    selector: dict[str, str] | None,
    affinity: dict[str, Any],
) -> Pod:
    return build_pod(
        namespace, name, node_name, phase, req, group_name, labels, selector, affinity=affinity
    )


def build_pod_group(
    name: str,
    namespace: str,
    queue: str,
    min_member: int,
    task_min_member: dict[str, int] | None,
    phase: str,
    **spec: Any,
) -> PodGroup:
    return msgspec.convert(
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "queue": queue,
                "minMember": min_member,
                "minTaskMember": task_min_member or {},
                **spec,
            },
            "status": {"phase": phase},
        },
        PodGroup,
    )


def build_pod_group_with_prio(
    name: str,
    namespace: str,
    queue: str,
    min_member: int,
    task_min_member: dict[str, int] | None,
    phase: str,
    priority_class_name: str,
) -> PodGroup:
    return build_pod_group(
        name,
        namespace,
        queue,
        min_member,
        task_min_member,
        phase,
        priorityClassName=priority_class_name,
    )


def build_pod_group_with_min_resources(
    name: str,
    namespace: str,
    queue: str,
    min_member: int,
    task_min_member: dict[str, int] | None,
    min_resources: ResourceList,
    phase: str,
) -> PodGroup:
    return build_pod_group(
        name, namespace, queue, min_member, task_min_member, phase, minResources=min_resources
    )


def build_pod_group_with_network_topologies(
    name: str,
    namespace: str,
    hyper_node_name: str,
    queue: str,
    min_member: int,
    task_min_member: dict[str, int] | None,
    phase: str,
    mode: str,
    highest_tier_allowed: int,
) -> PodGroup:
    """``BuildPodGroupWithNetWorkTopologies``: the allocated-HyperNode annotation (which
    upstream's scheduler writes but never reads back) and ``spec.networkTopology``."""
    pg = build_pod_group(
        name,
        namespace,
        queue,
        min_member,
        task_min_member,
        phase,
        networkTopology={"mode": mode, "highestTierAllowed": highest_tier_allowed},
    )
    pg.metadata.annotations[JOB_ALLOCATED_HYPERNODE] = hyper_node_name
    return pg


def build_pod_group_using_network_topologies_with_tier_name(
    name: str,
    namespace: str,
    hyper_node_name: str,
    queue: str,
    min_member: int,
    task_min_member: dict[str, int] | None,
    phase: str,
    mode: str,
    highest_tier_name: str,
) -> PodGroup:
    """``BuildPodGroupUsingNetWorkTopologiesWithTierName``."""
    pg = build_pod_group(
        name,
        namespace,
        queue,
        min_member,
        task_min_member,
        phase,
        networkTopology={"mode": mode, "highestTierName": highest_tier_name},
    )
    pg.metadata.annotations[JOB_ALLOCATED_HYPERNODE] = hyper_node_name
    return pg


def build_sub_group_policy(
    name: str, match_label_keys: list[str], mode: str, highest_tier_allowed: int
) -> dict[str, Any]:
    """``BuildSubGroupPolicy``: a sub-group size of 1."""
    return build_sub_group_policy_with_sub_group_size(
        name, match_label_keys, mode, highest_tier_allowed, 1
    )


def build_sub_group_policy_with_sub_group_size(
    name: str, match_label_keys: list[str], mode: str, highest_tier_allowed: int, size: int
) -> dict[str, Any]:
    """``BuildSubGroupPolicyWithSubGroupSize``: no minimum of sub-groups."""
    return build_sub_group_policy_with_min_sub_groups(
        name, match_label_keys, mode, highest_tier_allowed, size, 0
    )


def build_sub_group_policy_with_min_sub_groups(
    name: str,
    match_label_keys: list[str],
    mode: str,
    highest_tier_allowed: int,
    size: int,
    min_sub_groups: int,
) -> dict[str, Any]:
    """``BuildSubGroupPolicyWithMinSubGroups``: a network topology only with a mode."""
    policy: dict[str, Any] = {
        "name": name,
        "subGroupSize": size,
        "minSubGroups": min_sub_groups,
        "matchLabelKeys": match_label_keys,
    }
    if mode:
        policy["networkTopology"] = {"mode": mode, "highestTierAllowed": highest_tier_allowed}
    return policy


def build_pod_group_with_sub_group_policy(
    name: str,
    namespace: str,
    hyper_node_name: str,
    queue: str,
    min_member: int,
    task_min_member: dict[str, int] | None,
    phase: str,
    mode: str,
    highest_tier_allowed: int,
    policies: list[dict[str, Any]],
) -> PodGroup:
    """``BuildPodGroupWithSubGroupPolicy``: the PodGroup's network topology only with a
    mode."""
    if mode:
        pg = build_pod_group_with_network_topologies(
            name,
            namespace,
            hyper_node_name,
            queue,
            min_member,
            task_min_member,
            phase,
            mode,
            highest_tier_allowed,
        )
    else:
        pg = build_pod_group(name, namespace, queue, min_member, task_min_member, phase)
    spec = msgspec.convert({"subGroupPolicy": policies}, PodGroupSpec)
    return msgspec.structs.replace(
        pg, spec=msgspec.structs.replace(pg.spec, subGroupPolicy=spec.subGroupPolicy)
    )


@dataclass
class PluginRow:
    """A plugin test row: a session's objects, the plugin's arguments, the nodes (or
    HyperNodes) scored and the scores expected."""

    name: str
    case: Case
    arguments: dict[str, Any]
    nodes: list[str] | None
    expected: dict[str, float]
    expect_err: bool


def plugin_row(  # upstream's field names, so a row reads as there
    *,
    name: str,
    TestCommonStruct: Case | None = None,
    testCommonStruct: Case | None = None,
    arguments: dict[str, Any] | None = None,
    scoreNodes: list[str] | None = None,
    expected: dict[str, float] | None = None,
    expectedScores: dict[str, float] | None = None,
    expectErr: bool = False,
    tasks: dict[str, str] | None = None,
) -> PluginRow:
    case = TestCommonStruct or testCommonStruct
    assert case is not None
    scores = expected if expected is not None else expectedScores
    return PluginRow(name, case, arguments or {}, scoreNodes, scores or {}, expectErr)


def member_config(name: str, member_type: str, selector: str) -> dict[str, Any]:
    """An ``api.MemberConfig``: a member selected by ``exact``, ``regex`` or ``label``
    (``name`` then is a ``key=value`` label)."""
    if selector == "exact":
        chosen: dict[str, Any] = {"exactMatch": {"name": name}}
    elif selector == "regex":
        chosen = {"regexMatch": {"pattern": name}}
    else:
        key, _, value = name.partition("=")
        chosen = {"labelMatch": {"matchLabels": {key: value}}}
    return {"type": member_type, "selector": chosen}


def build_hyper_node(
    name: str, tier: int, members: list[dict[str, Any]], tier_name: str = ""
) -> HyperNode:
    """``api.BuildHyperNode`` / ``BuildHyperNodeWithTierName``."""
    return msgspec.convert(
        {
            "metadata": {"name": name},
            "spec": {"tier": tier, "tierName": tier_name, "members": members},
        },
        HyperNode,
    )


def hyper_nodes_of_sets(
    by_tier: dict[int, set[str]], real_nodes: dict[str, set[str]]
) -> list[HyperNode]:
    """A case that gives only ``HyperNodesSetByTier`` and ``HyperNodes`` (the real node sets)
    as HyperNodes whose members are those nodes (each one a root: the sets name no parent)."""
    tier_of = {name: tier for tier, names in by_tier.items() for name in names}
    return [
        build_hyper_node(
            name, tier_of[name], [member_config(n, "Node", "exact") for n in sorted(nodes)]
        )
        for name, nodes in sorted(real_nodes.items())
    ]


def build_queue(
    name: str, weight: int, capability: ResourceList | None, *, state: str = "Open", **spec: Any
) -> Queue:
    return msgspec.convert(
        {
            "metadata": {"name": name},
            "spec": {"weight": weight, "capability": capability or {}, **spec},
            "status": {"state": state},
        },
        Queue,
    )


def build_queue_with_state(
    name: str, weight: int, capability: ResourceList | None, state: str
) -> Queue:
    return build_queue(name, weight, capability, state=state)


def build_queue_with_resources_quantity(
    name: str, deserved: ResourceList | None, capability: ResourceList | None
) -> Queue:
    return build_queue(name, 1, capability, deserved=deserved or {})


def build_queue_with_priority_and_resources_quantity(
    name: str, priority: int, deserved: ResourceList | None, capability: ResourceList | None
) -> Queue:
    return build_queue(name, 1, capability, deserved=deserved or {}, priority=priority)


def build_queue_with_parents(
    name: str, parent: str, deserved: ResourceList | None, cap: ResourceList | None
) -> Queue:
    """capacity_test.go's ``buildQueueWithParents``."""
    return build_queue(name, 1, cap, deserved=deserved or {}, parent=parent)


def build_priority_class(name: str, value: int) -> PriorityClass:
    return msgspec.convert({"metadata": {"name": name}, "value": value}, PriorityClass)


def build_priority_class_with_preemption_policy(
    name: str, value: int, policy: str
) -> PriorityClass:
    return msgspec.convert(
        {"metadata": {"name": name}, "value": value, "preemptionPolicy": policy}, PriorityClass
    )


@dataclass
class Case:
    """One upstream ``TestCommonStruct`` row: its objects and what CheckAll expects."""

    name: str
    objects: list[Model]
    binds: dict[str, str] | None = None
    evicted: list[str] = field(default_factory=list)
    pipelined: dict[str, list[str]] = field(default_factory=dict)
    phases: dict[str, str] = field(default_factory=dict)
    # Upstream's ``ExpectTaskStatusNums``: job → {"Allocated": n, "Pipelined": n, ...}.
    task_statuses: dict[str, dict[str, int]] = field(default_factory=dict)
    # ``MinimalBindCheck``: only the number of binds is compared.
    binds_num: int | None = None
    # Only these plugins are registered (upstream's per-case ``Plugins`` map).
    plugins: tuple[str, ...] | None = None
    # ``ExpectBindNumsInHyperNode``: binds per lowest-tier HyperNode, sorted.
    binds_in_hyper_nodes: list[int] | None = None


def rows(cases: list[Case], gaps: dict[str, str] | None = None) -> list[Any]:
    """``parametrize`` rows named after the upstream cases; a known gap is a strict xfail
    with its reason (so fixing it is noticed)."""
    gaps = gaps or {}
    return [
        pytest.param(
            case,
            id=case.name,
            marks=[pytest.mark.xfail(strict=True, reason=gaps[case.name])]
            if case.name in gaps
            else [],
        )
        for case in cases
    ]


def _pod_jobs(case: Case) -> dict[str, str]:
    jobs = {}
    for obj in case.objects:
        if isinstance(obj, Pod):
            ns = obj.metadata.namespace or "default"
            jobs[f"{ns}/{obj.metadata.name}"] = f"{ns}/{obj.metadata.annotations[GROUP_NAME]}"
    return jobs


def check(case: Case, conf: str, extra: Iterable[Model] = ()) -> None:
    """Run one session of ``conf`` over the case's objects (and ``extra``), as CheckAll."""
    result = schedule([*extra, *case.objects], conf)
    if case.binds_num is not None:
        assert len(result.binds) == case.binds_num, result.binds
    else:
        assert result.binds == (case.binds or {}), result.binds
    assert Counter(result.evictions) == Counter(case.evicted), result.evictions
    jobs = _pod_jobs(case)
    for job, nodes in case.pipelined.items():
        placed = {pod: node for pod, node in result.pipelined.items() if jobs.get(pod) == job}
        assert placed, f"no task of {job} pipelined (want on {nodes})"
        assert set(placed.values()) <= set(nodes), placed
    for job, phase in case.phases.items():
        assert result.pod_groups[job].phase == phase, (job, result.pod_groups[job])
    for job, statuses in case.task_statuses.items():
        got = {
            "Allocated": sum(1 for pod in result.binds if jobs.get(pod) == job),
            "Pipelined": sum(1 for pod in result.pipelined if jobs.get(pod) == job),
        }
        for status, count in statuses.items():
            assert got.get(status, 0) == count, (status, got)
    if case.binds_in_hyper_nodes is not None:
        objects = [*extra, *case.objects]
        cluster = build_cluster(Snapshot.of(objects))
        tree = HyperNodeTree.build(cluster.hyper_nodes, cluster.nodes)
        per = Counter(tree.leaf_of_row[cluster.nodes.index[node]] for node in result.binds.values())
        assert sorted(per.values()) == case.binds_in_hyper_nodes, per


def open_session(objects: Iterable[Model], conf: str) -> Session:
    """``TestCommonStruct.RegisterSession``: a session opened over the objects with the conf's
    plugins registered, no action run, so a case can call an extension point itself."""
    plugins, actions = default_plugins(), default_actions()
    parsed = parse_conf(conf, plugins=plugins, actions=actions)
    cluster = build_cluster(Snapshot.of(list(objects)))
    return runner.open_session(cluster, parsed, NOW, plugins=plugins)


def filtered(tiers: list[list[dict[str, Any]]], plugins: tuple[str, ...] | None) -> list[Any]:
    """Upstream opens only the plugins a case registers; the others in the tiers are skipped."""
    if plugins is None:
        return tiers
    return [[p for p in tier if p["name"] in plugins] for tier in tiers]


def common(  # upstream's TestCommonStruct field names, so a row reads as there
    *,
    Name: str = "",
    Plugins: tuple[str, ...] | None = None,
    Pods: Iterable[Pod] = (),
    Nodes: Iterable[Node] = (),
    PodGroups: Iterable[PodGroup] = (),
    Queues: Iterable[Queue] = (),
    PriClass: Iterable[PriorityClass] = (),
    ExpectBindMap: dict[str, str] | None = None,
    ExpectBindsNum: int = 0,
    ExpectEvicted: Iterable[str] = (),
    ExpectEvictNum: int = 0,
    ExpectPipeLined: dict[str, list[str]] | None = None,
    ExpectStatus: dict[str, str] | None = None,
    ExpectTaskStatusNums: dict[str, dict[str, int]] | None = None,
    MinimalBindCheck: bool = False,
    HyperNodesSetByTier: dict[int, set[str]] | None = None,
    HyperNodes: dict[str, set[str]] | None = None,
    HyperNodesMap: dict[str, HyperNode] | None = None,
    HyperNodesTierNameMap: dict[str, int] | None = None,
    ExpectBindNumsInHyperNode: list[int] | None = None,
) -> Case:
    """A ``uthelper.TestCommonStruct`` literal as a ``Case``, checked as ``CheckAll`` does:
    ``ExpectBindsNum`` must agree with ``ExpectBindMap`` unless ``MinimalBindCheck``."""
    evicted = list(ExpectEvicted)
    # ``CheckBindInHyperNode`` compares the bind count and the binds per HyperNode only.
    by_count = MinimalBindCheck or ExpectBindNumsInHyperNode is not None
    if not by_count and ExpectBindsNum != len(ExpectBindMap or {}):
        raise ValueError(f"{Name}: ExpectBindsNum {ExpectBindsNum} != len(ExpectBindMap)")
    if ExpectEvictNum != len(evicted):
        raise ValueError(f"{Name}: ExpectEvictNum {ExpectEvictNum} != len(ExpectEvicted)")
    hyper_nodes = _hyper_nodes(
        Name, HyperNodesSetByTier or {}, HyperNodes or {}, HyperNodesMap, HyperNodesTierNameMap
    )
    return Case(
        Name,
        objects=[*PriClass, *Queues, *Nodes, *hyper_nodes, *PodGroups, *Pods],
        binds=ExpectBindMap or {},
        evicted=evicted,
        pipelined=ExpectPipeLined or {},
        phases=ExpectStatus or {},
        task_statuses=ExpectTaskStatusNums or {},
        binds_num=ExpectBindsNum if by_count else None,
        plugins=Plugins,
        binds_in_hyper_nodes=ExpectBindNumsInHyperNode,
    )


def _hyper_nodes(
    name: str,
    by_tier: dict[int, set[str]],
    real_nodes: dict[str, set[str]],
    objects: dict[str, HyperNode] | None,
    tier_names: dict[str, int] | None,
) -> list[HyperNode]:
    """The HyperNode objects of a case. Upstream's harness takes the HyperNodes, their tiers
    and their real nodes as three separate tables; Shoal derives the last two from the
    objects, so a case whose tables disagree with its objects is refused here."""
    if objects is None:
        return hyper_nodes_of_sets(by_tier, real_nodes)
    # A HyperNode is its key in the case's map (a few upstream rows build the object under
    # another name, e.g. key "s0" with name "s1"; upstream's harness looks it up by key).
    objects = {
        key: msgspec.structs.replace(hn, metadata=msgspec.structs.replace(hn.metadata, name=key))
        for key, hn in objects.items()
    }
    found = list(objects.values())

    def resolve(hn: str) -> set[str]:
        out: set[str] = set()
        for member in objects[hn].spec.members if hn in objects else []:
            exact = member.selector.exactMatch
            if exact is None:
                continue
            out |= resolve(exact.name) if member.type == "HyperNode" else {exact.name}
        return out

    # The node table may list more than the members give (one plugin row lists every node
    # under a HyperNode whose members leave a subtree out, to build an empty LCA): Shoal
    # goes by the members.
    derived = {hn: resolve(hn) for hn in objects}
    if any(not derived.get(hn, set()) <= nodes for hn, nodes in real_nodes.items()):
        raise ValueError(f"{name}: HyperNodes {real_nodes} != members {derived}")
    tiers: dict[int, set[str]] = {}
    for hn in found:
        tiers.setdefault(hn.spec.tier, set()).add(hn.metadata.name)
    if by_tier and tiers != by_tier:
        raise ValueError(f"{name}: HyperNodesSetByTier {by_tier} != tiers {tiers}")
    names = {hn.spec.tierName: hn.spec.tier for hn in found if hn.spec.tierName}
    if tier_names is not None and not set(names.items()) <= set(tier_names.items()):
        raise ValueError(f"{name}: HyperNodesTierNameMap {tier_names} != tier names {names}")
    return found
