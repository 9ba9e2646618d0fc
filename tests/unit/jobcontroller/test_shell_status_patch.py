"""A reconcile's whole new status is written as the merge patch from the cached one: counters
that went back to zero and emptied lists are removed on the server, not left stale."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.core import Actions
from services.jobcontroller.executor import status_patches
from shared.kube.patch import merge_diff, merge_patch
from shared.models import Job, VolcanoJob, convert
from shared.models.batch import JobStatus
from shared.models.volcano import VolcanoJobStatus


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
    patch = status_patches(cached.status, Actions(status=convert(final, VolcanoJobStatus))).final
    assert patch is not None
    assert patch["pending"] is None and patch["running"] is None
    server = merge_patch(
        {
            "state": {"phase": "Running"},
            "pending": 5,
            "running": 5,
            "succeeded": 1,
            "taskStatusCount": {"worker": {"phase": {"Pending": 5, "Running": 5}}},
        },
        patch,
    )
    assert server == final


def test_the_same_status_again_is_no_write() -> None:
    # Written once, the server's status (read back through the model) equals the reconcile's:
    # a second sync with the same result writes nothing, so a sync never wakes itself up.
    server: dict[str, Any] = {"succeeded": 1}
    wanted = {"active": 0, "succeeded": 1, "failed": 0, "uncountedTerminatedPods": {}}
    for writes in (1, 0):
        cached = convert({"metadata": {"name": "j"}, "status": server}, Job)
        patch = status_patches(cached.status, Actions(status=convert(wanted, JobStatus))).final
        assert (patch is not None) == bool(writes)
        if patch is not None:
            server = merge_patch(server, patch)
