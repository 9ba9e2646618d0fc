"""Volcano ``pkg/scheduler/actions/shuffle/shuffle_test.go``: ``TestShuffle``, its one row,
same objects. Upstream registers a mock plugin ``fake`` (``enabledVictim``) whose victim-tasks
hook names the running tasks of low priority; here ``fake`` is a plugin of the test's own
registry doing the same, and one shuffle must evict exactly those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from services.scheduler.actions import default_actions
from services.scheduler.api import TaskInfo
from services.scheduler.conf import parse_conf
from services.scheduler.plugins import default_plugins
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.runner import run_session
from services.scheduler.snapshot import Snapshot
from tests.unit.scheduler.builders import NOW, plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    build_node,
    build_pod_group,
    build_pod_with_priority,
    build_queue,
    build_resource_list,
)

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

HIGH, LOW = 100, 10


class _Fake(BasePlugin):
    name = "fake"

    def on_session_open(self, ssn: Session) -> None:
        ssn.points.victim_tasks.add(self.name, self.victims)

    @staticmethod
    def victims(candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        return [task for task in candidates if task.priority == LOW]


def _fake(arguments: dict[str, Any]) -> _Fake:
    return _Fake()


@pytest.mark.parametrize(
    "evicted",
    [
        pytest.param(
            ["test/pod1-1", "test/pod2-1", "test/pod3-1"],
            id="select pods with low priority and evict them",
        )
    ],
)
def test_shuffle(evicted: list[str]) -> None:
    pods10 = {"Name": "pods", "Value": "10"}
    res = build_resource_list("1", "2G")
    placed = [
        ("pod1-1", "node1", "pg1", LOW),
        ("pod1-2", "node1", "pg1", HIGH),
        ("pod1-3", "node1", "pg1", HIGH),
        ("pod2-1", "node1", "pg2", LOW),
        ("pod2-2", "node2", "pg2", HIGH),
        ("pod3-1", "node2", "pg3", LOW),
        ("pod3-2", "node2", "pg3", HIGH),
    ]
    objects = [
        *(build_node(n, build_resource_list("4", "8Gi", pods10), {}) for n in ("node1", "node2")),
        build_queue("default", 1, None),
        *(
            build_pod_group(pg, "test", "default", 0, None, "Running")
            for pg in ("pg1", "pg2", "pg3")
        ),
        *(
            build_pod_with_priority("test", name, node, "Running", res, pg, {}, {}, prio)
            for name, node, pg, prio in placed
        ),
    ]
    plugins, actions = default_plugins(), default_actions()
    plugins.register("fake", _fake)
    conf = parse_conf(
        tiers_conf("shuffle", [[plugin_option("fake", "enabledVictim")]]),
        plugins=plugins,
        actions=actions,
    )
    result = run_session(Snapshot.of(objects), conf, NOW, plugins=plugins, actions=actions)
    assert sorted(result.evictions) == evicted
    assert result.binds == {}
