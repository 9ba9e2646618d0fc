"""overcommit's enqueue vote counts what admitted jobs reserve as Volcano's does: a Running job
reserves the part of its minResources it does not hold yet only once its gang is allocated
(``util.GetInqueueResource``), and a job is compared only in the resources it asks for."""

from __future__ import annotations

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue, schedule

CONF = conf_text(
    "enqueue", ["gang"], [{"name": "overcommit", "arguments": {"overcommit-factor": 1.0}}]
)


def _running(name: str, min_member: int, min_cpu: str, pods: int, **extra: str) -> list[Model]:
    min_resources = {"cpu": min_cpu, **extra}
    return [
        group(name, min_member, phase="Running", minResources=min_resources),
        *(pod(f"{name}-{i}", name, "1", node="n1", memory="1Gi") for i in range(pods)),
    ]


def _pending(min_resources: dict[str, str]) -> list[Model]:
    return [
        group("new", 1, phase="Pending", minResources=min_resources),
        pod("new-0", "new", "1", memory="1Gi"),
    ]


CASES = [
    pytest.param(
        # holds 2 cpu of its 4: reserves 2 more, so idle 6 - 2 leaves no room for 5
        [*_running("old", 2, "4", 2), *_pending({"cpu": "5"})],
        "Pending",
        id="running gang reserves the rest of its minResources",
    ),
    pytest.param(
        [*_running("old", 2, "4", 2), *_pending({"cpu": "4"})],
        "Inqueue",
        id="running gang reservation leaves room for what fits",
    ),
    pytest.param(
        # 1 of 3 tasks allocated (a finished driver): reserves nothing, idle is 7
        [*_running("old", 3, "4", 1), *_pending({"cpu": "6"})],
        "Inqueue",
        id="running job below its gang reserves nothing",
    ),
    pytest.param(
        # an admitted job reserves more memory than is idle; the new job wants cpu only
        [
            group("big", 1, phase="Inqueue", minResources={"cpu": "1", "memory": "64Gi"}),
            pod("big-0", "big", "1", memory="64Gi"),
            *_pending({"cpu": "2"}),
        ],
        "Inqueue",
        id="only the requested resources are compared",
    ),
]


@pytest.mark.parametrize(("objects", "phase"), CASES)
def test_overcommit_enqueue(objects: list[Model], phase: str) -> None:
    cluster: list[Model] = [queue("default"), node("n1", cpu="8", memory="32Gi")]
    result = schedule([*cluster, *objects], CONF)
    assert result.pod_groups["default/new"].phase == phase
