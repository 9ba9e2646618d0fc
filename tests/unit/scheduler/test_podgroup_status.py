"""PodGroup status as Volcano's ``jobStatus`` writes it, and the pods' PodScheduled=False.

Phase from ``getPodGroupPhase`` (failed tasks count as scheduled and completed), the
running/succeeded/failed counters, no Unschedulable condition on a job whose pods all ended or
that has none, and a ``PodScheduled=False`` reason/message per waiting pod.
"""

from __future__ import annotations

import pytest

from services.scheduler.framework.closing import UNSCHEDULABLE
from tests.unit.scheduler.builders import group, node, pod, schedule

RUN = "Running"


@pytest.mark.parametrize(
    ("phases", "group_phase", "counters"),
    [
        (["Failed"], "Completed", (0, 0, 1)),
        (["Succeeded", "Failed"], "Completed", (0, 1, 1)),
        ([RUN, "Failed"], "Unknown", (1, 0, 1)),
        ([RUN, RUN], "Running", (2, 0, 0)),
    ],
    ids=["all-failed", "succeeded-and-failed", "running-gang-short-of-min", "all-running"],
)
def test_phase_and_counters(
    phases: list[str], group_phase: str, counters: tuple[int, int, int]
) -> None:
    pods = [pod(f"j-{i}", "j", node="n1", phase=p) for i, p in enumerate(phases)]
    result = schedule([node("n1"), group("j", min_member=len(phases), phase=RUN), *pods])
    update = result.pod_groups["default/j"]
    assert update.phase == group_phase
    assert (update.running, update.succeeded, update.failed) == counters
    if group_phase == "Completed":
        assert not [c for c in update.conditions if c.type == UNSCHEDULABLE]


def test_finished_job_without_pods_gets_no_condition() -> None:
    result = schedule([node("n1"), group("gone", phase="Completed")])
    assert not result.pod_groups["default/gone"].conditions
    assert not result.unschedulable_pods


def test_waiting_pods_say_why() -> None:
    result = schedule(
        [
            node("n1", cpu="2"),
            node("n2", cpu="2"),
            group("big", min_member=2),
            pod("big-0", "big", cpu="3"),
            pod("big-1", "big", cpu="1"),
        ]
    )
    assert not result.binds
    reasons = result.unschedulable_pods
    assert set(reasons) == {"default/big-0", "default/big-1"}
    assert {reason for reason, _ in reasons.values()} == {"Unschedulable"}
    first = reasons["default/big-0"][1]
    assert first.startswith("0/2 nodes are unavailable: 2 insufficient cpu"), first
    other = reasons["default/big-1"][1]
    assert other.startswith("pod group is not ready, 2 Pending, 2 minAvailable"), other
    assert "Origin reason is big-0: 0/2 nodes are unavailable" in other


def test_held_back_job_names_the_plugin() -> None:
    result = schedule([node("n1", cpu="2"), group("q"), pod("q-0", "q", cpu="3")])
    (message,) = [m for _, m in result.unschedulable_pods.values()]
    assert message.endswith("(proportion)"), message
    assert ". Origin reason is: queue default would exceed its deserved cpu" in message


def test_placed_pods_need_no_condition() -> None:
    result = schedule([node("n1"), group("ok"), pod("ok-0", "ok")])
    assert result.binds == {"default/ok-0": "n1"}
    assert not result.unschedulable_pods
