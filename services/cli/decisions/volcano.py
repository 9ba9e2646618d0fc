"""A scenario as the manifests a Volcano user would apply, the same for the peer and Shoal.

vc-webhook-manager does not run beside the peer, so nothing defaults these: each PodGroup names
its queue, ``minMember`` and ``minResources`` (what Volcano's job controller would have written:
the requests of ``minMember`` pods), each pod its ``schedulerName`` and group. Every name is
prefixed by the scenario's, so scenarios on one plane never share a node, a queue or a
namespace: Volcano is cluster-global, and a scenario sees only its own nodes because the nodes
of the one before are gone.
"""

from __future__ import annotations

from typing import Any

from services.cli.decisions.scenario import PRIORITIES, Gang, Queue, Scenario

Json = dict[str, Any]
SCHEDULER_NAME = "volcano"
GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
GANG_LABEL = "decisions.shoal.io/gang"
SCENARIO_LABEL = "decisions.shoal.io/scenario"
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"
PRIORITY_PREFIX = "decisions-"
VOLCANO_SCHEDULING = "scheduling.volcano.sh/v1beta1"


def namespace(scenario: Scenario) -> str:
    return scenario.name


def node_name(scenario: Scenario, node: str) -> str:
    return f"{scenario.name}-{node}"


def queue_name(scenario: Scenario, queue: str) -> str:
    return f"{scenario.name}-{queue}"


def priority_classes() -> list[Json]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": PRIORITY_PREFIX + name},
            "value": value,
        }
        for name, value in PRIORITIES.items()
    ]


def nodes(scenario: Scenario) -> list[Json]:
    out = []
    for node in scenario.nodes:
        name = node_name(scenario, node.name)
        capacity = {
            "cpu": str(node.cpu),
            "memory": f"{node.memory_gi}Gi",
            "pods": "110",
            "ephemeral-storage": "100Gi",
        }
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "annotations": {KWOK_NODE_ANNOTATION: "fake"},
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "kubernetes.io/os": "linux",
                        "kubernetes.io/arch": "amd64",
                        "type": "kwok",
                        SCENARIO_LABEL: scenario.name,
                    },
                },
                "status": {"capacity": capacity, "allocatable": dict(capacity)},
            }
        )
    return out


def queue(scenario: Scenario, spec: Queue) -> Json:
    body: Json = {"weight": spec.weight, "reclaimable": spec.reclaimable}
    if spec.capability_cpu is not None:
        body["capability"] = {"cpu": str(spec.capability_cpu)}
    return {
        "apiVersion": VOLCANO_SCHEDULING,
        "kind": "Queue",
        "metadata": {
            "name": queue_name(scenario, spec.name),
            "labels": {SCENARIO_LABEL: scenario.name},
        },
        "spec": body,
    }


def namespace_manifest(scenario: Scenario) -> Json:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace(scenario)}}


def podgroup(scenario: Scenario, gang: Gang) -> Json:
    spec: Json = {
        "minMember": gang.min_member,
        "queue": queue_name(scenario, gang.queue),
        "minResources": {
            "cpu": f"{gang.min_member * gang.cpu_m}m",
            "memory": f"{gang.min_member * gang.memory_mi}Mi",
        },
    }
    if gang.priority:
        spec["priorityClassName"] = PRIORITY_PREFIX + gang.priority
    return {
        "apiVersion": VOLCANO_SCHEDULING,
        "kind": "PodGroup",
        "metadata": {
            "name": gang.name,
            "namespace": namespace(scenario),
            "labels": {GANG_LABEL: gang.name},
        },
        "spec": spec,
    }


def pods(scenario: Scenario, gang: Gang) -> list[Json]:
    annotations = {GROUP_ANNOTATION: gang.name, "sim.shoal.io/start-delay": "50ms"}
    if gang.duration is not None:
        annotations["sim.shoal.io/duration"] = f"{int(gang.duration * 1000)}ms"
    requests = {"cpu": f"{gang.cpu_m}m", "memory": f"{gang.memory_mi}Mi"}
    spec: Json = {
        "schedulerName": SCHEDULER_NAME,
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 0,
        "containers": [
            {"name": "work", "image": "busybox:1.36", "resources": {"requests": requests}}
        ],
    }
    if gang.priority:
        spec["priorityClassName"] = PRIORITY_PREFIX + gang.priority
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": namespace(scenario),
                "labels": {GANG_LABEL: gang.name},
                "annotations": dict(annotations),
            },
            "spec": spec,
        }
        for name in gang.pod_names()
    ]


def arrivals(scenario: Scenario) -> list[tuple[float, list[Json]]]:
    """(seconds after the start, the objects created then): each gang's PodGroup before its
    pods, gangs of one instant in name order."""
    times = sorted({g.arrival for g in scenario.gangs})
    return [
        (
            at,
            [
                obj
                for gang in sorted(scenario.gangs, key=lambda g: g.name)
                if gang.arrival == at
                for obj in (podgroup(scenario, gang), *pods(scenario, gang))
            ],
        )
        for at in times
    ]
