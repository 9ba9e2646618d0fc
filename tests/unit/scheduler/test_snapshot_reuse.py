"""Snapshots reuse what the previous one parsed for the same pod objects, and only that: a pod
that changed (a new object) is read again."""

from __future__ import annotations

import numpy as np

from services.scheduler.snapshot import Snapshot, build_cluster
from tests.unit.scheduler.builders import group, node, pod


def cpu_of(snapshot: Snapshot, key: str) -> int:
    cluster = build_cluster(snapshot)
    task = cluster.jobs["default/g"].tasks[key]
    return int(task.request[cluster.space.index["cpu"]])


def test_a_changed_pod_is_read_again() -> None:
    first = pod("p", "g", cpu="1")
    snapshot = Snapshot(nodes=[node("n")], pod_groups=[group("g")], pods=[first])
    assert cpu_of(snapshot, "default/p") == 1000
    assert cpu_of(snapshot, "default/p") == 1000  # the same object again: remembered
    snapshot.pods = [pod("p", "g", cpu="3")]
    assert cpu_of(snapshot, "default/p") == 3000
    snapshot.pods = [first, pod("q", "g", cpu="2")]
    assert cpu_of(snapshot, "default/p") == 1000
    assert cpu_of(snapshot, "default/q") == 2000
    assert np.all(build_cluster(snapshot).nodes.used == 0)  # pending pods use no node
