"""batch/v1 Job reconcile: suspend/resume, podReplacementPolicy, managedBy, successPolicy,
tracking finalizers, adoption and release, ttlSecondsAfterFinished."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.executor import status_patches
from shared.kube.patch import merge_patch
from shared.models.batch import JobStatus
from tests.unit.jobcontroller.batchjob_cases import (
    NO_UNCOUNTED,
    NOW,
    Case,
    check,
    job,
    pod,
    stamp,
    sync,
)
from tests.unit.jobcontroller.statusjson import interim_json, status_json

SUSPENDED = [
    {
        "type": "Suspended",
        "status": "True",
        "reason": "JobSuspended",
        "message": "Job suspended",
        "lastTransitionTime": stamp(-60),
    }
]


def finished(kind: str, at: float) -> dict[str, Any]:
    return {"conditions": [{"type": kind, "status": "True", "lastTransitionTime": stamp(at)}]}


CASES = [
    Case(
        "suspend: active pods deleted, Suspended condition",
        job(suspend=True, parallelism=2, completions=2, status={"startTime": stamp(-60)}),
        [pod("a", ready=True), pod("b", "Pending")],
        deleted=["ns/b", "ns/a"],
        conditions=["Suspended"],
        counts=(0, 0, 0),
        finalizers_removed=["ns/b", "ns/a"],
        status={"terminating": 2, "ready": 0},
    ),
    Case(
        "suspended from the start: no pods, no startTime",
        job(suspend=True),
        created=0,
        conditions=["Suspended"],
        status={"startTime": None},
    ),
    Case(
        "resume: Suspended=False, startTime reset, pods created",
        job(suspend=False, status={"conditions": SUSPENDED, "startTime": stamp(-3600)}),
        created=1,
        conditions=[],
        status={"startTime": stamp()},
    ),
    Case(
        "podReplacementPolicy TerminatingOrFailed replaces terminating pods",
        job(parallelism=2, completions=2, podReplacementPolicy="TerminatingOrFailed"),
        [pod("a"), pod("t", deleting=True, finalizer=False)],
        created=1,
        status={"terminating": 1},
    ),
    Case(
        "podReplacementPolicy Failed waits for terminating pods",
        job(parallelism=2, completions=2, podReplacementPolicy="Failed"),
        [pod("a"), pod("t", deleting=True, finalizer=False)],
        created=0,
        status={"terminating": 1},
    ),
    Case(
        "managedBy another controller: skipped",
        job(managedBy="kueue.x-k8s.io/multikueue"),
        no_status=True,
    ),
    Case(
        "managedBy the job controller: synced",
        job(managedBy="kubernetes.io/job-controller"),
        created=1,
    ),
    Case(
        "successPolicy succeededIndexes: SuccessCriteriaMet, rest deleted, then Complete",
        job(
            completionMode="Indexed",
            completions=3,
            parallelism=3,
            successPolicy={"rules": [{"succeededIndexes": "0"}]},
        ),
        [pod("i0", "Succeeded", index=0), pod("i1", index=1), pod("i2", index=2)],
        conditions=["SuccessCriteriaMet"],
        deleted=["ns/i1", "ns/i2"],
        status={"completedIndexes": "0", "terminating": 2},
    ),
    Case(
        "successPolicy succeededCount",
        job(
            completionMode="Indexed",
            completions=4,
            parallelism=4,
            successPolicy={"rules": [{"succeededCount": 2}]},
        ),
        [pod("i0", "Succeeded", index=0), pod("i3", "Succeeded", index=3)],
        conditions=["SuccessCriteriaMet", "Complete"],
        status={"completedIndexes": "0,3"},
    ),
    Case(
        "successPolicy not met yet",
        job(
            completionMode="Indexed",
            completions=4,
            parallelism=2,
            successPolicy={"rules": [{"succeededIndexes": "0-2", "succeededCount": 3}]},
        ),
        [pod("i0", "Succeeded", index=0), pod("i1", index=1)],
        conditions=[],
        created=1,
    ),
    Case(
        "finished pods lose their finalizer and are counted",
        job(parallelism=3, completions=3),
        [
            pod("s", "Succeeded"),
            pod("f", "Failed", finished=-60),
            pod("r"),
            pod("old", "Succeeded", finalizer=False),
        ],
        finalizers_removed=["ns/s", "ns/f"],
        counts=(2, 1, 1),
        status={"uncountedTerminatedPods": NO_UNCOUNTED},
    ),
    Case(
        "uncounted pods whose finalizer is gone move into the counters",
        job(
            parallelism=1,
            completions=3,
            status={"succeeded": 1, "uncountedTerminatedPods": {"succeeded": ["pod-s"]}},
        ),
        [pod("s", "Succeeded", finalizer=False), pod("r")],
        counts=(1, 2, 0),
        finalizers_removed=[],
        status={"uncountedTerminatedPods": NO_UNCOUNTED},
    ),
    # The cache still shows the finalizers an earlier sync removed (its status write is
    # already applied): those pods were counted and must not be counted or released again.
    Case(
        "pods whose finalizer removal is in flight are not counted again",
        job(parallelism=2, completions=10, status={"succeeded": 1, "failed": 1}),
        [pod("s", "Succeeded"), pod("f", "Failed"), pod("r"), pod("r2")],
        removing=["pod-s", "pod-f"],
        counts=(2, 1, 1),
        finalizers_removed=[],
        created=0,
        status={"uncountedTerminatedPods": NO_UNCOUNTED},
    ),
    Case(
        "a finished pod not yet counted is counted once, others in flight are skipped",
        job(parallelism=2, completions=10, status={"succeeded": 1}),
        [pod("s", "Succeeded"), pod("s2", "Succeeded"), pod("r")],
        removing=["pod-s"],
        counts=(2, 2, 0),
        finalizers_removed=["ns/s2"],
    ),
    Case(
        "orphans matching the selector are adopted and counted",
        job(parallelism=2, completions=2),
        [pod("orphan", owned=False), pod("a")],
        created=0,
        counts=(2, 0, 0),
    ),
    Case(
        "orphans not matching the selector are left alone",
        job(parallelism=1, completions=1),
        [pod("stranger", owned=False, labels={"batch.kubernetes.io/controller-uid": "x"})],
        created=1,
    ),
    Case(
        "finished job: nothing to do without TTL",
        job(status=finished("Complete", -10)),
        no_status=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_batchjob_lifecycle(case: Case) -> None:
    check(case)


def test_interim_status_records_uncounted_before_finalizers_go() -> None:
    actions = sync(job(parallelism=2, completions=2), [pod("s", "Succeeded"), pod("r")])
    assert interim_json(actions)["uncountedTerminatedPods"] == {"succeeded": ["pod-s"]}
    assert interim_json(actions)["succeeded"] == 0
    assert status_json(actions)["succeeded"] == 1
    # Written as merge patches, the final status must empty the list the interim one set.
    writes = status_patches(JobStatus(), actions)
    server = merge_patch(merge_patch({}, writes.interim), writes.final)
    assert server["uncountedTerminatedPods"] == {} and server["succeeded"] == 1


def test_adoption_patch_adds_owner_and_finalizer() -> None:
    actions = sync(job(parallelism=1, completions=1), [pod("orphan", owned=False)])
    (patch,) = actions.patch
    assert patch.key == "ns/orphan" and patch.patch_type == "strategic"
    meta = patch.patch["metadata"]
    assert meta["ownerReferences"][0]["uid"] == "uid-1"
    assert meta["ownerReferences"][0]["controller"] is True
    assert meta["finalizers"] == ["batch.kubernetes.io/job-tracking"]


def test_owned_pod_that_stopped_matching_is_released() -> None:
    stray = pod("stray", labels={"batch.kubernetes.io/controller-uid": "other"})
    actions = sync(job(parallelism=1, completions=1), [stray])
    assert [p.key for p in actions.patch] == ["ns/stray"]
    assert actions.patch[0].patch["metadata"]["ownerReferences"] == [
        {"$patch": "delete", "uid": "uid-1"}
    ]
    assert len(actions.create) == 1  # the released pod no longer counts


@pytest.mark.parametrize(
    ("ttl", "finished_at", "delete_job", "requeue"),
    [(100, -150.0, True, None), (100, -40.0, False, 60.0), (0, -1.0, True, None)],
    ids=["elapsed", "pending", "zero"],
)
def test_ttl_after_finished(
    ttl: int, finished_at: float, delete_job: bool, requeue: float | None
) -> None:
    actions = sync(job(ttlSecondsAfterFinished=ttl, status=finished("Complete", finished_at)))
    assert actions.delete_job is delete_job
    assert actions.requeue_after == requeue


def test_ttl_requested_when_job_finishes_now() -> None:
    actions = sync(job(ttlSecondsAfterFinished=30), [pod("s", "Succeeded")], now=NOW)
    assert actions.status is not None and "Complete" in [
        c["type"] for c in status_json(actions)["conditions"]
    ]
    assert actions.requeue_after == 30.0 and not actions.delete_job
