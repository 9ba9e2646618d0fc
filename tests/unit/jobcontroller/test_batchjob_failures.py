"""batch/v1 Job reconcile: backoffLimit, back-off delays, per-index back-off, podFailurePolicy,
activeDeadlineSeconds."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.jobcontroller.batchjob_cases import Case, check, job, pod, stamp
from tests.unit.jobcontroller.statusjson import status_json

FAILURE_TARGET = [
    {
        "type": "FailureTarget",
        "status": "True",
        "reason": "BackoffLimitExceeded",
        "message": "Job has reached the specified backoff limit",
        "lastTransitionTime": stamp(-5),
    }
]
FAIL_JOB_MESSAGE = (
    "Container main for pod ns/f failed with exit code 42 matching FailJob rule at index 0"
)
COUNT_0 = {"batch.kubernetes.io/job-index-failure-count": "0"}
COUNT_1 = {"batch.kubernetes.io/job-index-failure-count": "1"}


def policy(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"rules": list(rules)}


def indexed(**spec: Any) -> dict[str, Any]:
    return job(completionMode="Indexed", completions=3, parallelism=3, **spec)


CASES = [
    Case(
        "backoffLimit exceeded: FailureTarget, active pods deleted and counted failed",
        job(backoffLimit=1, parallelism=2, completions=4),
        [pod("f1", "Failed"), pod("f2", "Failed"), pod("r")],
        conditions=["FailureTarget"],
        deleted=["ns/r"],
        counts=(0, 0, 3),
        finalizers_removed=["ns/f1", "ns/f2", "ns/r"],
        status={"terminating": 1},
        created=0,
    ),
    Case(
        "after FailureTarget, Failed waits while a pod is terminating",
        job(backoffLimit=1, status={"failed": 3, "conditions": FAILURE_TARGET}),
        [pod("r", deleting=True, finalizer=False)],
        conditions=["FailureTarget"],
        status={"terminating": 1},
        deleted=[],
        created=0,
    ),
    Case(
        "after FailureTarget, Failed once no pod is terminating",
        job(backoffLimit=1, status={"failed": 3, "conditions": FAILURE_TARGET}),
        [],
        conditions=["FailureTarget", "Failed"],
        created=0,
        counts=(0, 0, 3),
    ),
    Case(
        "within backoffLimit the failed pod is replaced after the back-off",
        job(backoffLimit=2),
        [pod("f", "Failed", finished=-30)],
        created=1,
        counts=(1, 0, 1),
    ),
    Case(
        "back-off: 10 s after one failure",
        job(backoffLimit=6),
        [pod("f", "Failed", finished=-4)],
        created=0,
        requeue_after=6.0,
    ),
    Case(
        "back-off doubles: 20 s after two consecutive failures",
        job(backoffLimit=6),
        [pod("f1", "Failed", finished=-60), pod("f2", "Failed", finished=-4)],
        created=0,
        requeue_after=16.0,
    ),
    Case(
        "back-off counts failures after the last success only",
        job(backoffLimit=6, completions=3),
        [
            pod("f1", "Failed", finished=-60),
            pod("s", "Succeeded", finished=-30),
            pod("f2", "Failed", finished=-4),
        ],
        created=0,
        requeue_after=6.0,
    ),
    Case(
        "restartPolicy OnFailure: container restarts count against backoffLimit",
        job(backoffLimit=2, restartPolicy="OnFailure"),
        [pod("r", restarts=2)],
        conditions=["FailureTarget"],
        deleted=["ns/r"],
    ),
    Case(
        "per-index back-off: replacement carries the failure count; old pod kept",
        indexed(backoffLimitPerIndex=1),
        [
            pod("i0", "Failed", index=0, annotations=COUNT_0, finished=-100),
            pod("i1", index=1),
            pod("i2", index=2),
        ],
        created_indexes=[0],
        finalizers_removed=[],
        status={"failedIndexes": ""},
    ),
    Case(
        "per-index back-off: index waits 10 s after its failure",
        indexed(backoffLimitPerIndex=1),
        [
            pod("i0", "Failed", index=0, annotations=COUNT_0, finished=-3),
            pod("i1", index=1),
            pod("i2", index=2),
        ],
        created=0,
        requeue_after=7.0,
    ),
    Case(
        "per-index limit reached: index fails, is not replaced, job goes on",
        indexed(backoffLimitPerIndex=1),
        [pod("i0", "Failed", index=0, annotations=COUNT_1), pod("i1", index=1), pod("i2", index=2)],
        created=0,
        conditions=[],
        status={"failedIndexes": "0", "failed": 1},
        finalizers_removed=["ns/i0"],
    ),
    Case(
        "maxFailedIndexes exceeded fails the job",
        indexed(backoffLimitPerIndex=1, maxFailedIndexes=0),
        [pod("i0", "Failed", index=0, annotations=COUNT_1), pod("i1", index=1)],
        conditions=["FailureTarget"],
        deleted=["ns/i1"],
        status={"failedIndexes": "0"},
    ),
    Case(
        "every index finished with some failed: FailedIndexes",
        indexed(backoffLimitPerIndex=1),
        [
            pod("i0", "Failed", index=0, annotations=COUNT_1),
            pod("i1", "Succeeded", index=1),
            pod("i2", "Succeeded", index=2),
        ],
        conditions=["FailureTarget", "Failed"],
        status={"failedIndexes": "0", "completedIndexes": "1,2", "succeeded": 2, "failed": 1},
    ),
    Case(
        "podFailurePolicy FailJob on exit code",
        job(
            parallelism=2,
            completions=2,
            podFailurePolicy=policy(
                {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}
            ),
        ),
        [pod("f", "Failed", exit_code=42), pod("r")],
        conditions=["FailureTarget"],
        deleted=["ns/r"],
        status={
            "conditions": [
                {
                    "type": "FailureTarget",
                    "status": "True",
                    "reason": "PodFailurePolicy",
                    "message": FAIL_JOB_MESSAGE,
                    "lastProbeTime": stamp(),
                    "lastTransitionTime": stamp(),
                }
            ]
        },
    ),
    Case(
        "podFailurePolicy Ignore on DisruptionTarget: not counted, replaced",
        job(
            backoffLimit=0,
            podFailurePolicy=policy(
                {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}
            ),
        ),
        [pod("f", "Failed", conditions=[{"type": "DisruptionTarget", "status": "True"}])],
        conditions=[],
        counts=(1, 0, 0),
        created=1,
        finalizers_removed=["ns/f"],
    ),
    Case(
        "podFailurePolicy Count (NotIn) counts the failure against backoffLimit",
        job(
            backoffLimit=0,
            podFailurePolicy=policy(
                {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [42]}}
            ),
        ),
        [pod("f", "Failed", exit_code=1)],
        conditions=["FailureTarget", "Failed"],
        counts=(0, 0, 1),
    ),
    Case(
        "podFailurePolicy rule for another container does not match",
        job(
            backoffLimit=3,
            podFailurePolicy=policy(
                {
                    "action": "FailJob",
                    "onExitCodes": {"containerName": "sidecar", "operator": "In", "values": [42]},
                }
            ),
        ),
        [pod("f", "Failed", exit_code=42, finished=-60)],
        conditions=[],
        counts=(1, 0, 1),
    ),
    Case(
        "podFailurePolicy FailIndex fails the index at once",
        indexed(
            backoffLimitPerIndex=3,
            podFailurePolicy=policy(
                {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [3]}}
            ),
        ),
        [
            pod("i0", "Failed", index=0, exit_code=3, annotations=COUNT_0),
            pod("i1", index=1),
            pod("i2", index=2),
        ],
        created=0,
        status={"failedIndexes": "0", "failed": 1},
        conditions=[],
    ),
    Case(
        "activeDeadlineSeconds passed: DeadlineExceeded",
        job(activeDeadlineSeconds=50, status={"startTime": stamp(-100)}),
        [pod("r")],
        conditions=["FailureTarget"],
        deleted=["ns/r"],
    ),
    Case(
        "activeDeadlineSeconds pending: requeue at the deadline",
        job(activeDeadlineSeconds=300, status={"startTime": stamp(-100)}),
        [pod("r")],
        conditions=[],
        requeue_after=200.0,
        deleted=[],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_batchjob_failures(case: Case) -> None:
    check(case)


def test_deadline_condition_reason() -> None:
    actions = check(Case("deadline", job(activeDeadlineSeconds=1, status={"startTime": stamp(-5)})))
    assert actions.status is not None
    assert status_json(actions)["conditions"][0]["reason"] == "DeadlineExceeded"


def test_per_index_replacement_annotation() -> None:
    actions = check(
        Case(
            "per-index",
            indexed(backoffLimitPerIndex=2),
            [
                pod("i0", "Failed", index=0, annotations=COUNT_1, finished=-100),
                pod("i1", index=1),
                pod("i2", index=2),
            ],
        )
    )
    annotations = actions.create[0]["metadata"]["annotations"]
    assert annotations["batch.kubernetes.io/job-index-failure-count"] == "2"
