"""Volcano ``pkg/scheduler/plugins/drf/hdrf_test.go``: ``TestHDRF``, one row per upstream case,
same objects and tiers (drf with ``enableHierarchy``, ``enableQueueOrder``, ``enableJobOrder``;
proportion with ``enableJobEnqueued``, ``enableQueueOrder``, ``enableReclaimable``); one
allocate. Each row checks what every job was allocated (cpu, memory, pod count).

Upstream's check is inverted and mistyped (``if DeepEqual(test.expected, job.Allocated)
{ t.Fatalf }`` compares the whole map with one job's resource, which is never equal), so the Go
test passes whatever hdrf does; the rows here assert the allocations the table writes down.
In "blocking nodes test" upstream puts pg32 in queue ``root-pg3-pg31`` (not ``root-pg3-pg32``,
which then holds no job); the row keeps that.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import pytest

from shared.models import Model, Pod, Queue
from shared.quantities import parse_quantity
from tests.unit.scheduler.builders import plugin_option, schedule, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
)


@dataclass
class Case:
    name: str
    objects: list[Model]
    # job → (milli-cpu, memory bytes, pods), as upstream's expected ``api.Resource``
    expected: dict[str, tuple[float, float, int]]


def _make_pods(num: int, cpu: str, mem: str, group: str) -> list[Pod]:
    """``makePods``."""
    return [
        build_pod(
            "default", f"{group}-p{i}", "", "Pending", build_resource_list(cpu, mem), group, {}, {}
        )
        for i in range(num)
    ]


def _queue(name: str, hierarchy: str, weights: str) -> Queue:
    """``BuildQueueWithAnnos(name, 1, nil, {hierarchy, hierarchy-weights})``."""
    doc = msgspec.to_builtins(build_queue(name, 1, None))
    doc["metadata"]["annotations"] = {
        "volcano.sh/hierarchy": hierarchy,
        "volcano.sh/hierarchy-weights": weights,
    }
    return msgspec.convert(doc, Queue)


def _pod_groups(*pairs: tuple[str, str]) -> list[Model]:
    return [build_pod_group(pg, "default", queue, 0, None, "Inqueue") for pg, queue in pairs]


CASES = [
    Case(
        "rescaling test",
        [
            _queue("root-sci", "root/sci", "100/50"),
            _queue("root-eng-dev", "root/eng/dev", "100/50/50"),
            _queue("root-eng-prod", "root/eng/prod", "100/50/50"),
            build_node("n", build_resource_list("10", "10G", {"Name": "pods", "Value": "50"}), {}),
            *_pod_groups(("pg1", "root-sci"), ("pg21", "root-eng-dev"), ("pg22", "root-eng-prod")),
            *_make_pods(10, "1", "1G", "pg1"),
            *_make_pods(10, "1", "0G", "pg21"),
            *_make_pods(10, "0", "1G", "pg22"),
        ],
        {
            "pg1": (5000, 5e9, 5),
            "pg21": (5000, 0, 5),
            "pg22": (0, 5e9, 5),
        },
    ),
    Case(
        "blocking nodes test",
        [
            _queue("root-pg1", "root/pg1", "100/25"),
            _queue("root-pg2", "root/pg2", "100/25"),
            _queue("root-pg3-pg31", "root/pg3/pg31", "100/25/50"),
            _queue("root-pg3-pg32", "root/pg3/pg32", "100/25/50"),
            _queue("root-pg4", "root/pg4", "100/25"),
            build_node("n", build_resource_list("30", "30G", {"Name": "pods", "Value": "500"}), {}),
            *_pod_groups(
                ("pg1", "root-pg1"),
                ("pg2", "root-pg2"),
                ("pg31", "root-pg3-pg31"),
                ("pg32", "root-pg3-pg31"),
                ("pg4", "root-pg4"),
            ),
            *_make_pods(30, "1", "0G", "pg1"),
            *_make_pods(30, "1", "0G", "pg2"),
            *_make_pods(30, "1", "0G", "pg31"),
            *_make_pods(30, "0", "1G", "pg32"),
            *_make_pods(30, "0", "1G", "pg4"),
        ],
        {
            "pg1": (10000, 0, 10),
            "pg2": (10000, 0, 10),
            "pg31": (10000, 0, 10),
            "pg32": (0, 15e9, 15),
            "pg4": (0, 15e9, 15),
        },
    ),
]

TIERS = [
    [
        plugin_option("drf", "enableHierarchy", "enableQueueOrder", "enableJobOrder"),
        plugin_option("proportion", "enableJobEnqueued", "enableQueueOrder", "enableReclaimable"),
    ]
]


def _requests(obj: Pod) -> tuple[float, float]:
    resources = obj.spec.containers[0].resources
    assert resources is not None
    requests = resources.requests
    return (
        parse_quantity(requests.get("cpu", "0")).milli(),
        parse_quantity(requests.get("memory", "0")).value(),
    )


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_hdrf(case: Case) -> None:
    result = schedule(case.objects, tiers_conf("allocate", TIERS))
    pods = {f"default/{o.metadata.name}": o for o in case.objects if isinstance(o, Pod)}
    got: dict[str, tuple[float, float, int]] = {job: (0, 0, 0) for job in case.expected}
    for key in result.binds:
        pod = pods[key]
        job = pod.metadata.annotations["scheduling.k8s.io/group-name"]
        cpu, memory = _requests(pod)
        have = got[job]
        got[job] = (have[0] + cpu, have[1] + memory, have[2] + 1)
    assert got == case.expected
