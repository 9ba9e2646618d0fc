"""A job's tasks per role and status are kept live as tasks are added and change status, and
answer as a count over its tasks would."""

from __future__ import annotations

import pytest

from services.scheduler.api.task import TaskStatus
from services.scheduler.snapshot import Snapshot, build_cluster
from shared.models import Pod
from shared.models.volcano import TASK_SPEC_KEY
from tests.unit.scheduler.builders import group, node, pod

READY = frozenset({TaskStatus.ALLOCATED, TaskStatus.BOUND, TaskStatus.RUNNING})


def recount(tasks: list[tuple[str, TaskStatus]], statuses: frozenset[TaskStatus]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for role, status in tasks:
        if status in statuses:
            counts[role] = counts.get(role, 0) + 1
    return counts


@pytest.mark.parametrize(
    "moves",
    [
        [],
        [("w-0", TaskStatus.ALLOCATED)],
        [("w-0", TaskStatus.ALLOCATED), ("m-0", TaskStatus.PIPELINED), ("w-0", TaskStatus.PENDING)],
    ],
    ids=["as-built", "one-allocated", "allocated-pipelined-undone"],
)
def test_role_counts_follow_status_changes(moves: list[tuple[str, TaskStatus]]) -> None:
    def member(name: str, role: str, on: str | None = None) -> Pod:
        return pod(name, "g", node=on, annotations={TASK_SPEC_KEY: role})

    objects = [
        node("n1"),
        group("g", 3, minTaskMember={"m": 1, "w": 2}),
        member("m-0", "m"),
        member("w-0", "w"),
        member("w-1", "w", on="n1"),
    ]
    job = build_cluster(Snapshot.of(objects)).jobs["default/g"]
    for name, status in moves:
        job.set_status(job.tasks[f"default/{name}"], status)
    tasks = [(t.role, t.status) for t in job.tasks.values()]
    for statuses in (READY, frozenset({TaskStatus.PENDING}), frozenset(TaskStatus)):
        assert job.role_counts(statuses) == recount(tasks, statuses)
    assert set(job.role_counts(frozenset(TaskStatus))) == {"m", "w"}
