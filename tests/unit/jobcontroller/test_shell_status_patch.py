"""A reconcile's whole new status is written as the merge patch from the cached one: counters
that went back to zero and emptied lists are removed on the server, not left stale."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.core import Actions
from services.jobcontroller.syncing import Syncer, merge_diff
from shared.kube.patch import merge_patch
from shared.models import Job, VolcanoJob, convert


@pytest.mark.parametrize(
    ("old", "new", "patch"),
    [
        ({"a": 1}, {"a": 1}, {}),
        ({"a": 1, "b": 2}, {"a": 1}, {"b": None}),
        ({"a": {"x": 1, "y": 2}}, {"a": {"x": 1}}, {"a": {"y": None}}),
        ({"a": [1, 2]}, {"a": [1]}, {"a": [1]}),
        ({}, {"a": {"x": 1}}, {"a": {"x": 1}}),
        ({"a": 1}, {"a": "1"}, {"a": "1"}),
    ],
    ids=["equal", "removed-key", "nested", "list-replaced", "added", "changed-type"],
)
def test_merge_diff_turns_old_into_new(old: Any, new: Any, patch: Any) -> None:
    assert merge_diff(old, new) == patch
    assert merge_patch(old, patch) == new


def test_finished_volcano_job_counts_are_not_left_stale() -> None:
    # The job's last running sync counted pending 5 + running 5; at completion all 6 succeeded.
    cached = convert(
        {
            "metadata": {"name": "j", "namespace": "ns"},
            "status": {
                "state": {"phase": "Running"},
                "pending": 5,
                "running": 5,
                "succeeded": 1,
                "taskStatusCount": {"worker": {"phase": {"Pending": 5, "Running": 5}}},
            },
        },
        VolcanoJob,
    )
    final = {
        "state": {"phase": "Completed"},
        "succeeded": 6,
        "taskStatusCount": {"worker": {"phase": {"Succeeded": 6}}},
    }
    actions = Actions(status=dict(final))
    Syncer._status_as_patches(cached, actions)
    assert actions.status is not None
    assert actions.status["pending"] is None and actions.status["running"] is None
    server = merge_patch(
        {
            "state": {"phase": "Running"},
            "pending": 5,
            "running": 5,
            "succeeded": 1,
            "taskStatusCount": {"worker": {"phase": {"Pending": 5, "Running": 5}}},
        },
        actions.status,
    )
    assert server == final


def test_the_same_status_again_is_no_write() -> None:
    # Written once, the server's status (read back through the model) equals the reconcile's:
    # a second sync with the same result writes nothing, so a sync never wakes itself up.
    server: dict[str, Any] = {"succeeded": 1}
    wanted = {"active": 0, "succeeded": 1, "failed": 0, "uncountedTerminatedPods": {}}
    for writes in (1, 0):
        cached = convert({"metadata": {"name": "j"}, "status": server}, Job)
        actions = Actions(status=dict(wanted))
        Syncer._status_as_patches(cached, actions)
        assert (actions.status is not None) == bool(writes)
        if actions.status is not None:
            server = merge_patch(server, actions.status)
