"""Task ordering, partitions and network topology, as Volcano's job webhook checks them."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def validate_network_topology(topology: Obj | None) -> str:
    if (
        topology
        and topology.get("highestTierAllowed") is not None
        and topology.get("highestTierName")
    ):
        return (
            "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology "
            "simultaneously"
        )
    return ""


def validate_partition_policy(task: Obj, job_name: str) -> str:
    """``validatePartitionPolicy``."""
    policy = task.get("partitionPolicy")
    if policy is None:
        return ""
    where = f"in task: {task.get('name', '')}, job: {job_name}"
    total, size = policy.get("totalPartitions", 0), policy.get("partitionSize", 0)
    minimum, min_available = policy.get("minPartitions", 0), task.get("minAvailable")
    out = ""
    if total <= 0:
        out = f"'TotalPartitions' must be greater than 0 {where}"
    elif size <= 0:
        out = f"'PartitionSize' must be greater than 0 {where}"
    elif task.get("replicas", 0) != total * size:
        out = f"'Replicas' are not equal to TotalPartitions*PartitionSize {where}"
    elif min_available is not None and minimum > 0 and minimum * size != min_available:
        # Only when minPartitions is set: without it minAvailable falls back to replicas.
        out = f"'MinAvailable' is not equal to MinPartitions*PartitionSize {where}"
    return out + validate_network_topology(policy.get("networkTopology"))


def topo_sort(tasks: list[Obj]) -> list[str] | None:
    """``topoSort`` over ``dependsOn``: the task names in an order that respects every
    dependency, or None when they do not form a DAG (a missing task counts as a cycle)."""
    graph: dict[str, list[str]] = {}
    in_degree: dict[str, int] = {}
    names = []
    for task in tasks:
        name = task.get("name", "")
        names.append(name)
        in_degree[name] = 0
    for task in tasks:
        for dependency in (task.get("dependsOn") or {}).get("name") or []:
            graph.setdefault(dependency, []).append(task.get("name", ""))
            in_degree[task.get("name", "")] += 1
    stack = [n for n in names if in_degree[n] == 0]
    ordered: list[str] = []
    while stack:
        current = stack.pop()
        ordered.append(current)
        for nxt in graph.get(current, []):
            in_degree[nxt] -= 1
            if in_degree[nxt] == 0:
                stack.append(nxt)
    return ordered if len(ordered) == len(names) else None
