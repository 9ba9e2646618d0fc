"""Hierarchical drf's reclaim vote (upstream ``drf.go`` reclaimFn): a running task is a victim
only if, once it is gone and the reclaimer holds its task, the reclaimer's queue would still
sort first by hierarchical share."""

from __future__ import annotations

import msgspec
import pytest

from shared.models import Model, Queue
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue, schedule

CONF = conf_text("reclaim", ["gang", {"name": "drf", "enableHierarchy": True}, "predicates"])


def _queue(name: str) -> Queue:
    doc = msgspec.to_builtins(queue(name))
    doc["metadata"]["annotations"] = {
        "volcano.sh/hierarchy": f"root/{name}",
        "volcano.sh/hierarchy-weights": "1/1",
    }
    return msgspec.convert(doc, Queue)


def _objects(a_running: int, b_running: int) -> list[Model]:
    return [
        _queue("a"),
        _queue("b"),
        node("n1", cpu="4", memory="4Gi"),
        group("ja", 1, queue="a", phase="Running"),
        # jb needs one more task than it runs, so it is starving and reclaims
        group("jb", b_running + 1, queue="b", phase="Running"),
        *(pod(f"a{i}", "ja", "1", node="n1") for i in range(a_running)),
        *(pod(f"b{i}", "jb", "1", node="n1") for i in range(b_running)),
        pod("b-new", "jb", "1"),
    ]


CASES = [
    pytest.param(_objects(4, 0), 1, id="queue holding the whole cluster gives one task back"),
    pytest.param(_objects(2, 2), 0, id="equal shares: the reclaimer would overtake, no victim"),
]


@pytest.mark.parametrize(("objects", "evictions"), CASES)
def test_hdrf_reclaim(objects: list[Model], evictions: int) -> None:
    result = schedule(objects, CONF)
    assert len(result.evictions) == evictions, result.evictions
    assert all(key.startswith("default/a") for key in result.evictions)
