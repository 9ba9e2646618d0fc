"""Records beyond what the scheduler can hold are contained (issue 15, defect 11): a node with
``cpu: 1e30`` or ``memory: 16Ei`` is left out with a reason (and a Warning for the binder), a
pod asking for that much is skipped, and an object that fits no model is returned for the
dead-letter topic instead of stopping ``apply_state``."""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.state import SchedulerState
from services.scheduler.warnings import NODE_SKIPPED
from shared.bus import Record
from shared.events import ObjectAdded, WarningDecided, raw_object
from tests.unit.scheduler.builders import group, node, pod, schedule


@pytest.mark.parametrize(
    ("cpu", "memory", "named"),
    [("1e30", "16Gi", "cpu"), ("4", "16Ei", "memory 16Ei")],
    ids=["cpu-1e30", "memory-16Ei"],
)
def test_node_beyond_range_is_left_out(cpu: str, memory: str, named: str) -> None:
    result = schedule(
        [node("big", cpu=cpu, memory=memory), node("n1"), group("g"), pod("g-0", "g")]
    )
    assert result.binds == {"default/g-0": "n1"}
    assert named in result.skipped["node/big"]


def test_pod_beyond_range_is_skipped() -> None:
    result = schedule([node("n1"), group("g"), pod("g-0", "g", cpu="1e30")])
    assert not result.binds
    assert "exceeds" in result.skipped["default/g-0"]


def record(kind: str, key: str, obj: dict[str, Any], offset: int) -> Record[Any]:
    event = ObjectAdded(key=key, kind=kind, resourceVersion="1", object=raw_object(obj))
    return Record(
        topic=f"state.{kind.lower()}s",
        partition=0,
        offset=offset,
        key=key.encode(),
        value=event,
        timestamp_ms=0,
    )


def test_object_that_fits_no_model_is_returned_not_raised() -> None:
    state = SchedulerState()
    nameless = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": None, "uid": "u"}}
    huge = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "big", "uid": "n-big", "resourceVersion": "1"},
        "status": {"allocatable": {"cpu": "1e30"}},
    }
    bad = state.apply_state([record("Pod", "ns/x", nameless, 1), record("Node", "big", huge, 2)])
    assert [(r.offset, "metadata.name" in error) for r, error in bad] == [(1, True)]
    assert state.positions == {"state.pods/0": 2, "state.nodes/0": 3}
    result = schedule([node("big", cpu="1e30")])
    warnings = state.warnings.decisions(result, state.cache, cycle=1, common={})
    assert [(w.involved["name"], w.reason) for w in warnings] == [("big", NODE_SKIPPED)]
    assert isinstance(warnings[0], WarningDecided)
    assert state.warnings.decisions(result, state.cache, cycle=2, common={}) == []
