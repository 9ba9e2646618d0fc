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
from services.scheduler.conf import parse_conf
from services.scheduler.framework.session import Session
from services.scheduler.plugins import default_plugins
from services.scheduler.snapshot import Snapshot, build_cluster
from shared.models import Model, Node, Pod, PodGroup, PriorityClass, Queue
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
    Name: str,
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
) -> Case:
    """A ``uthelper.TestCommonStruct`` literal as a ``Case``, checked as ``CheckAll`` does:
    ``ExpectBindsNum`` must agree with ``ExpectBindMap`` unless ``MinimalBindCheck``."""
    evicted = list(ExpectEvicted)
    if not MinimalBindCheck and ExpectBindsNum != len(ExpectBindMap or {}):
        raise ValueError(f"{Name}: ExpectBindsNum {ExpectBindsNum} != len(ExpectBindMap)")
    if ExpectEvictNum != len(evicted):
        raise ValueError(f"{Name}: ExpectEvictNum {ExpectEvictNum} != len(ExpectEvicted)")
    return Case(
        Name,
        objects=[*PriClass, *Queues, *Nodes, *PodGroups, *Pods],
        binds=ExpectBindMap or {},
        evicted=evicted,
        pipelined=ExpectPipeLined or {},
        phases=ExpectStatus or {},
        task_statuses=ExpectTaskStatusNums or {},
        binds_num=ExpectBindsNum if MinimalBindCheck else None,
        plugins=Plugins,
    )
