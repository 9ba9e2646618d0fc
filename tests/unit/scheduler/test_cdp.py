"""cdp: a running pod inside its ``volcano.sh/cooldown-time`` window is no victim for preempt
or reclaim; once the window has passed (or without the key) it is."""

from __future__ import annotations

import msgspec
import pytest

from shared.models import Pod
from tests.unit.scheduler.builders import group, node, pod, priority_class, schedule, tiers_conf
from tests.unit.scheduler.builders import plugin_option as option

# NOW is 2024-01-01T00:00:00Z; the victim was scheduled five minutes before.
SCHEDULED = [
    {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2023-12-31T23:55:00Z"}
]
CONF = tiers_conf(
    "allocate, preempt",
    [
        [
            option("priority", "enableJobOrder", "enableTaskOrder", "enablePreemptable"),
            option("gang", "enableJobPipelined", "enableJobStarving"),
            option("cdp", "enablePreemptable", "enableReclaimable"),
        ]
    ],
)


@pytest.mark.parametrize(
    ("cooldown", "evicted"),
    [(None, ["default/low-0"]), ("600s", []), ("10m", []), ("120s", ["default/low-0"])],
    ids=["no-key", "600s-not-passed", "10m-not-passed", "120s-passed"],
)
def test_cooldown_protects_a_victim_until_it_has_passed(
    cooldown: str | None, evicted: list[str]
) -> None:
    annotations = {"volcano.sh/cooldown-time": cooldown} if cooldown else {}
    victim = pod("low-0", "low", "4", node="n1", annotations=annotations)
    doc = msgspec.to_builtins(victim)
    doc["status"]["conditions"] = SCHEDULED
    objects = [
        node("n1", "4"),
        priority_class("high", 1000),
        priority_class("low", 1),
        group("low", priorityClassName="low", phase="Running"),
        msgspec.convert(doc, Pod),
        group("high", priorityClassName="high"),
        pod("high-0", "high", "4"),
    ]
    assert schedule(objects, CONF).evictions == evicted
