"""A conf the scheduler refuses at run time is reported once per version of its ConfigMap
(``WarningDecided``, which the binder posts as a Warning Event), and sessions go on with
the previous conf."""

from __future__ import annotations

from typing import Any

from services.scheduler.cycle import Scheduling
from services.scheduler.snapshot import Snapshot
from services.scheduler.state import SchedulerState
from shared.bus import Record
from shared.events import ObjectAdded, WarningDecided, raw_object
from tests.unit.scheduler.builders import group, node, pod

GOOD = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n'
BAD = GOOD + "  - name: no-such\n"


def configmap_record(text: str, rv: int) -> Record[Any]:
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "volcano-scheduler-configmap",
            "namespace": "volcano-system",
            "uid": "cm-1",
            "resourceVersion": str(rv),
        },
        "data": {"volcano-scheduler.conf": text},
    }
    key = "volcano-system/volcano-scheduler-configmap"
    event = ObjectAdded(key=key, kind="ConfigMap", resourceVersion=str(rv), object=raw_object(obj))
    return Record(
        topic="state.configmaps",
        partition=0,
        offset=rv,
        key=key.encode(),
        value=event,
        timestamp_ms=0,
    )


def rejections(state: SchedulerState, scheduling: Scheduling, now: float) -> list[str]:
    snapshot = state.view()
    snapshot.nodes, snapshot.pod_groups, snapshot.pods = (
        [node("n1")],
        [group("g")],
        [pod("g-0", "g")],
    )
    result = scheduling.session(snapshot, now=now, scheduler_names=["volcano"])
    assert result.binds == {"default/g-0": "n1"}  # the previous (default) conf still runs
    envelopes = state.decisions(result, epoch=1, cycle=1, now=now, producer="test")
    return [
        f"{e.involved['namespace']}/{e.involved['name']}@{e.involved['resourceVersion']}: "
        f"{e.message}"
        for e in envelopes
        if isinstance(e, WarningDecided)
    ]


def test_rejected_conf_is_reported_once_per_configmap_version() -> None:
    state, scheduling = SchedulerState(), Scheduling()
    state.apply_state([configmap_record(BAD, 1)])
    (first,) = rejections(state, scheduling, 1.0)
    assert first.startswith("volcano-system/volcano-scheduler-configmap@1: ")
    assert "no-such" in first
    assert rejections(state, scheduling, 2.0) == []  # already reported
    state.apply_state([configmap_record(BAD + "\n", 2)])
    assert len(rejections(state, scheduling, 3.0)) == 1  # a new version, still bad
    state.apply_state([configmap_record(GOOD, 3)])
    assert rejections(state, scheduling, 4.0) == []
    assert scheduling.error == ""


def test_good_conf_has_no_error() -> None:
    result = Scheduling().session(Snapshot(conf_text=GOOD), now=0.0, scheduler_names=["volcano"])
    assert result.conf_error == ""
