"""Table-driven sessions: manifests + conf → binds, evictions, pipelined and phases."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from shared.models import Model
from tests.unit.scheduler.builders import (
    conf_text,
    group,
    node,
    pod,
    priority_class,
    queue,
    schedule,
)

BASIC = conf_text(
    "enqueue, allocate, backfill",
    ["priority", "gang", "conformance"],
    ["drf", "predicates", "proportion", "nodeorder"],
)
PREEMPT = conf_text(
    "enqueue, allocate, preempt",
    ["priority", "gang", "conformance"],
    ["drf", "predicates", "proportion", "nodeorder"],
)
RECLAIM = conf_text(
    "enqueue, allocate, reclaim",
    ["priority", "gang", "conformance"],
    ["drf", "predicates", "proportion", "nodeorder"],
)
CAPACITY = conf_text(
    "enqueue, allocate",
    ["priority", "gang"],
    ["predicates", "capacity", "nodeorder"],
)
HIERARCHY = conf_text(
    "enqueue, allocate",
    ["priority", "gang"],
    ["predicates", {"name": "capacity", "enableHierarchy": True}, "nodeorder"],
)
DRF_ONLY = conf_text("enqueue, allocate", ["gang", "drf", "predicates"])
MOST = conf_text(
    "allocate",
    ["gang", "predicates"],
    [
        {
            "name": "nodeorder",
            "arguments": {
                "leastrequested.weight": 0,
                "balancedresource.weight": 0,
                "mostrequested.weight": 1,
            },
        }
    ],
)
LEAST = conf_text(
    "allocate",
    ["gang", "predicates"],
    [{"name": "nodeorder", "arguments": {"balancedresource.weight": 0}}],
)
BINPACK = conf_text(
    "allocate", ["gang", "predicates"], [{"name": "binpack", "arguments": {"binpack.cpu": 5}}]
)
OVERCOMMIT = conf_text(
    "enqueue, allocate",
    ["gang"],
    [{"name": "overcommit", "arguments": {"overcommit-factor": 1.0}}, "predicates"],
)
DEFAULT = None

ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"app": "db"}},
            }
        ]
    }
}
AFFINE = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "cache"}}}
        ]
    }
}
NODE_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}
            ]
        }
    }
}


def hostnamed(name: str, **kw: Any) -> Model:
    labels = {"kubernetes.io/hostname": name, **kw.pop("labels", {})}
    return node(name, labels=labels, **kw)


CASES: list[tuple[str, list[Model], str | None, dict[str, Any]]] = [
    (
        "gang-fits-all-bound",
        [node("n1"), node("n2"), group("g", 2), pod("a", "g", "3"), pod("b", "g", "3")],
        BASIC,
        {"binds": {"default/a": "n1", "default/b": "n2"}, "phases": {"default/g": "Running"}},
    ),
    (
        "gang-all-or-nothing",
        [node("n1"), node("n2"), group("g", 3)] + [pod(f"p{i}", "g", "3") for i in range(3)],
        BASIC,
        {"binds": {}, "phases": {"default/g": "Inqueue"}, "reason": "NotEnoughResources"},
    ),
    (
        "gang-min-below-size-binds-what-fits",
        [node("n1"), group("g", 1)] + [pod(f"p{i}", "g", "3") for i in range(2)],
        BASIC,
        {"binds": {"default/p0": "n1"}, "phases": {"default/g": "Running"}},
    ),
    (
        # The Volcano job controller creates pods only once its PodGroup is Inqueue.
        "pending-podgroup-without-pods-is-enqueued",
        [node("n1", "8"), group("g", 3, phase="Pending", minResources={"cpu": "3"})],
        BASIC,
        {"binds": {}, "phases": {"default/g": "Inqueue"}},
    ),
    (
        "pending-podgroup-too-big-for-the-cluster-stays-pending",
        [node("n1", "8"), group("g", 3, phase="Pending", minResources={"cpu": "30"})],
        BASIC,
        {"binds": {}, "phases": {"default/g": "Pending"}},
    ),
    (
        "min-task-member-missing-role-invalid",
        [
            node("n1", "8"),
            group("g", 2, minTaskMember={"ps": 1, "worker": 1}),
            pod("w0", "g", annotations={"volcano.sh/task-spec": "worker"}),
            pod("w1", "g", annotations={"volcano.sh/task-spec": "worker"}),
        ],
        BASIC,
        {"binds": {}, "phases": {"default/g": "Inqueue"}, "reason": "NotEnoughPodsOfTask"},
    ),
    (
        "min-task-member-satisfied",
        [
            node("n1", "8"),
            group("g", 2, minTaskMember={"ps": 1, "worker": 1}),
            pod("ps0", "g", annotations={"volcano.sh/task-spec": "ps"}),
            pod("w0", "g", annotations={"volcano.sh/task-spec": "worker"}),
        ],
        BASIC,
        {"binds": {"default/ps0": "n1", "default/w0": "n1"}},
    ),
    (
        "pipelined-onto-releasing",
        [
            node("n1", "4"),
            group("old", 1, phase="Running"),
            pod("old-0", "old", "4", node="n1", deleting=True),
            group("g", 1),
            pod("new-0", "g", "4"),
        ],
        BASIC,
        {"binds": {}, "pipelined": {"default/new-0": "n1"}},
    ),
    (
        "preempt-lower-priority-in-queue",
        [
            node("n1", "4"),
            priority_class("high", 1000),
            group("low", 1, phase="Running"),
            pod("low-0", "low", "2", node="n1", priority=1),
            pod("low-1", "low", "2", node="n1", priority=1),
            group("high", 1, priorityClassName="high"),
            pod("high-0", "high", "2", priority=1000),
        ],
        PREEMPT,
        {"evictions": ["default/low-0"], "pipelined": {"default/high-0": "n1"}, "binds": {}},
    ),
    (
        "preempt-never-higher-priority",
        [
            node("n1", "4"),
            priority_class("high", 1000),
            group("high", 1, phase="Running", priorityClassName="high"),
            pod("high-0", "high", "2", node="n1", priority=1000),
            pod("high-1", "high", "2", node="n1", priority=1000),
            group("low", 1),
            pod("low-0", "low", "2", priority=1),
        ],
        PREEMPT,
        {"evictions": [], "pipelined": {}, "binds": {}},
    ),
    (
        "conformance-protects-kube-system",
        [
            node("n1", "4"),
            priority_class("high", 1000),
            group("sys", 1, ns="kube-system", phase="Running"),
            pod("s0", "sys", "2", ns="kube-system", node="n1", priority=1),
            pod("s1", "sys", "2", ns="kube-system", node="n1", priority=1),
            group("high", 1, ns="kube-system", priorityClassName="high"),
            pod("high-0", "high", "2", ns="kube-system", priority=1000),
        ],
        PREEMPT,
        {"evictions": [], "pipelined": {}},
    ),
    (
        "reclaim-from-queue-over-deserved",
        [
            node("n1", "4"),
            queue("q1"),
            queue("q2"),
            group("hog", 1, queue="q1", phase="Running"),
            *[pod(f"hog-{i}", "hog", "1", node="n1") for i in range(4)],
            group("want", 2, queue="q2"),
            pod("want-0", "want", "1"),
            pod("want-1", "want", "1"),
        ],
        RECLAIM,
        {
            # gang and conformance (first tier) decide the victims (gang offers all but one);
            # of those the highest pod index goes first, as in Volcano's victim queue.
            "evictions": ["default/hog-1", "default/hog-2"],
            "pipelined": {"default/want-0": "n1", "default/want-1": "n1"},
        },
    ),
    (
        "capacity-caps-queue",
        [
            node("n1", "8"),
            queue("small", capability={"cpu": "2"}),
            group("g", 1, queue="small"),
            *[pod(f"p{i}", "g", "1") for i in range(3)],
        ],
        CAPACITY,
        {"binds": {"default/p0": "n1", "default/p1": "n1"}},
    ),
    (
        "capacity-hierarchy-parent-caps-child",
        [
            node("n1", "8"),
            queue("org", capability={"cpu": "2"}),
            queue("team", parent="org"),
            group("g", 1, queue="team"),
            *[pod(f"p{i}", "g", "1") for i in range(3)],
        ],
        HIERARCHY,
        {"binds": {"default/p0": "n1", "default/p1": "n1"}},
    ),
    (
        "drf-smaller-share-first",
        [
            node("n1", "3"),
            group("rich", 1, phase="Running"),
            pod("rich-0", "rich", "2", node="n1"),
            pod("rich-1", "rich", "1"),
            group("poor", 1),
            pod("poor-0", "poor", "1"),
        ],
        DRF_ONLY,
        {"binds": {"default/poor-0": "n1"}},
    ),
    (
        "predicate-node-selector",
        [
            node("n1", labels={"disk": "hdd"}),
            node("n2", labels={"disk": "ssd"}),
            group("g"),
            pod("p", "g", nodeSelector={"disk": "ssd"}),
        ],
        BASIC,
        {"binds": {"default/p": "n2"}},
    ),
    (
        "predicate-required-node-affinity",
        [
            node("n1", labels={"disk": "hdd"}),
            node("n2", labels={"disk": "ssd"}),
            group("g"),
            pod("p", "g", affinity=NODE_AFFINITY),
        ],
        BASIC,
        {"binds": {"default/p": "n2"}},
    ),
    (
        "predicate-taints-and-tolerations",
        [
            node("n1", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
            group("g", 2),
            pod("tolerant", "g", tolerations=[{"key": "gpu", "operator": "Exists"}]),
            pod("plain", "g"),
        ],
        BASIC,
        {"binds": {}, "reason_contains": "taint {gpu: NoSchedule} not tolerated"},
    ),
    (
        "predicate-toleration-admits",
        [
            node("n1", taints=[{"key": "gpu", "value": "a100", "effect": "NoSchedule"}]),
            group("g"),
            pod("p", "g", tolerations=[{"key": "gpu", "value": "a100", "effect": "NoSchedule"}]),
        ],
        BASIC,
        {"binds": {"default/p": "n1"}},
    ),
    (
        "predicate-unschedulable-node",
        [node("n1", unschedulable=True), node("n2", "1"), group("g"), pod("p", "g")],
        BASIC,
        {"binds": {"default/p": "n2"}},
    ),
    (
        "predicate-pod-anti-affinity-spreads",
        [
            hostnamed("n1", cpu="8"),
            hostnamed("n2", cpu="8"),
            group("g", 2),
            pod("a", "g", labels={"app": "db"}, affinity=ANTI),
            pod("b", "g", labels={"app": "db"}, affinity=ANTI),
        ],
        BASIC,
        {"binds": {"default/a": "n1", "default/b": "n2"}},
    ),
    (
        "predicate-pod-affinity-follows",
        [
            node("n1", "8", labels={"zone": "a"}),
            node("n2", "8", labels={"zone": "b"}),
            group("cache", 1, phase="Running"),
            pod("cache-0", "cache", labels={"app": "cache"}, node="n2"),
            group("g"),
            pod("web", "g", affinity=AFFINE),
        ],
        BASIC,
        {"binds": {"default/web": "n2"}},
    ),
    (
        "predicate-too-many-pods",
        [node("n1", "8", resources={"pods": "1"}), group("g", 2), pod("a", "g"), pod("b", "g")],
        BASIC,
        {"binds": {}, "reason_contains": "too many pods"},
    ),
    (
        "nodeorder-least-requested-prefers-empty",
        [
            node("busy", "8"),
            node("idle", "8"),
            group("x", 1, phase="Running"),
            pod("x0", "x", "4", node="busy"),
            group("g"),
            pod("p", "g", "1"),
        ],
        LEAST,
        {"binds": {"default/p": "idle"}},
    ),
    (
        "nodeorder-most-requested-prefers-busy",
        [
            node("busy", "8"),
            node("idle", "8"),
            group("x", 1, phase="Running"),
            pod("x0", "x", "4", node="idle"),
            group("g"),
            pod("p", "g", "1"),
        ],
        MOST,
        {"binds": {"default/p": "idle"}},
    ),
    (
        "binpack-fills-busy-node",
        [
            node("a", "8"),
            node("b", "8"),
            group("x", 1, phase="Running"),
            pod("x0", "x", "6", node="b"),
            group("g"),
            pod("p", "g", "1"),
        ],
        BINPACK,
        {"binds": {"default/p": "b"}},
    ),
    (
        "overcommit-gates-enqueue",
        [
            node("n1", "4"),
            group("big", 1, phase="Pending", minResources={"cpu": "8"}),
            pod("big-0", "big", "1"),
            group("small", 1, phase="Pending", minResources={"cpu": "2"}),
            pod("small-0", "small", "1"),
        ],
        OVERCOMMIT,
        {
            "binds": {"default/small-0": "n1"},
            "phases": {"default/big": "Pending", "default/small": "Running"},
        },
    ),
    (
        "proportion-capability-gates-enqueue",
        [
            node("n1", "8"),
            queue("q", capability={"cpu": "2"}),
            group("g", 1, queue="q", phase="Pending", minResources={"cpu": "4"}),
            pod("p", "g", "1"),
        ],
        DEFAULT,
        {"binds": {}, "phases": {"default/g": "Pending"}, "reason_contains": "cannot admit"},
    ),
    (
        "enqueue-then-allocate-default-conf",
        [node("n1"), group("g", 1, phase="Pending"), pod("p", "g")],
        DEFAULT,
        {"binds": {"default/p": "n1"}, "phases": {"default/g": "Running"}},
    ),
    (
        "backfill-best-effort",
        [node("n1"), group("g", 1), pod("be", "g", None)],
        BASIC,
        {"binds": {"default/be": "n1"}},
    ),
    (
        "other-scheduler-pods-ignored-but-consume",
        [
            node("n1", "2"),
            pod("foreign", "none", "2", node="n1", scheduler="default-scheduler"),
            group("g"),
            pod("p", "g", "1"),
        ],
        BASIC,
        {"binds": {}, "reason_contains": "insufficient cpu (need 1, max free 0)"},
    ),
    (
        "terminated-pods-free-resources",
        [
            node("n1", "2"),
            group("done", 1, phase="Running"),
            pod("d", "done", "2", node="n1", phase="Succeeded"),
            group("g"),
            pod("p", "g", "2"),
        ],
        BASIC,
        {"binds": {"default/p": "n1"}},
    ),
]


@pytest.mark.parametrize(
    ("objects", "conf", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_session(objects: list[Model], conf: str | None, expected: dict[str, Any]) -> None:
    result = schedule(objects, conf)
    if "binds" in expected:
        assert result.binds == expected["binds"]
    if "evictions" in expected:
        assert result.evictions == expected["evictions"]
    if "pipelined" in expected:
        assert result.pipelined == expected["pipelined"]
    for key, phase in expected.get("phases", {}).items():
        assert result.pod_groups[key].phase == phase
    reasons = [
        c for u in result.pod_groups.values() for c in u.conditions if c.type == "Unschedulable"
    ]
    if "reason" in expected:
        assert expected["reason"] in [c.reason for c in reasons]
    if "reason_contains" in expected:
        assert any(expected["reason_contains"] in (c.message or "") for c in reasons), reasons


@pytest.mark.parametrize(("objects", "conf"), [c[1:3] for c in CASES], ids=[c[0] for c in CASES])
def test_deterministic_under_reordering(objects: list[Model], conf: str | None) -> None:
    first = msgspec.json.encode(schedule(objects, conf).decisions())
    assert msgspec.json.encode(schedule(list(reversed(objects)), conf).decisions()) == first
    assert msgspec.json.encode(schedule(objects, conf).decisions()) == first
