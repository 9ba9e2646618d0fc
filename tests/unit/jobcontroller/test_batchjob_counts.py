"""batch/v1 Job reconcile: parallelism, completions, Indexed mode, slow start, deletion order."""

from __future__ import annotations

import pytest

from tests.unit.jobcontroller.batchjob_cases import INDEX, NO_UNCOUNTED, Case, check, job, pod, sync
from tests.unit.jobcontroller.statusjson import status_json

CASES = [
    Case(
        "new job creates parallelism pods",
        job(parallelism=3, completions=5),
        created=3,
        counts=(3, 0, 0),
        batches=[1, 2],
        status={"startTime": "2023-11-14T22:13:20Z"},
    ),
    Case(
        "parallelism capped by remaining completions",
        job(parallelism=4, completions=3),
        [pod("a", "Succeeded"), pod("b")],
        created=1,
        counts=(2, 1, 0),
    ),
    Case("defaults: one pod, one completion", job(), created=1, counts=(1, 0, 0)),
    Case(
        "work queue (no completions) stops creating after a success",
        job(parallelism=3),
        [pod("a", "Succeeded"), pod("b")],
        created=0,
        counts=(1, 1, 0),
    ),
    Case(
        "work queue completes when a pod succeeded and none runs",
        job(parallelism=3),
        [pod("a", "Succeeded"), pod("b", "Succeeded")],
        created=0,
        conditions=["SuccessCriteriaMet", "Complete"],
        counts=(0, 2, 0),
    ),
    Case(
        "completions reached: SuccessCriteriaMet then Complete with completionTime",
        job(parallelism=2, completions=2),
        [pod("a", "Succeeded"), pod("b", "Succeeded")],
        conditions=["SuccessCriteriaMet", "Complete"],
        counts=(0, 2, 0),
        status={"completionTime": "2023-11-14T22:13:20Z", "uncountedTerminatedPods": NO_UNCOUNTED},
    ),
    Case(
        "ready pods are counted",
        job(parallelism=2, completions=2),
        [pod("a", ready=True), pod("b")],
        created=0,
        status={"ready": 1, "active": 2},
    ),
    Case(
        "indexed: lowest missing indexes, names carry the index",
        job(parallelism=3, completions=5, completionMode="Indexed"),
        [pod("work-1-aaaaa", index=1), pod("work-3-bbbbb", "Succeeded", index=3)],
        created_indexes=[0, 2],
        created_names=["work-0-dc2mq", "work-2-xfsk7"],
        status={"completedIndexes": "3", "succeeded": 1},
    ),
    Case(
        "indexed: completedIndexes interval string",
        job(
            parallelism=1,
            completions=8,
            completionMode="Indexed",
            status={"completedIndexes": "1,3-4", "succeeded": 3},
        ),
        [pod("p5", "Succeeded", index=5), pod("p2", "Succeeded", index=2)],
        status={"completedIndexes": "1-5", "succeeded": 5},
        created_indexes=[0],
    ),
    Case(
        "indexed: duplicated and out-of-range indexes are deleted first, nothing created",
        job(parallelism=3, completions=3, completionMode="Indexed"),
        [
            pod("dup-old", index=0, created=-200, ready=True),
            pod("dup-new", index=0, created=-10),
            pod("out", index=7),
            pod("none"),
        ],
        deleted=["ns/none", "ns/dup-new", "ns/out"],
        created=0,
    ),
    Case(
        "slow start: 20 pods in batches 1,2,4,8,5",
        job(parallelism=20, completions=20),
        created=20,
        batches=[1, 2, 4, 8, 5],
    ),
    Case(
        "at most 500 creations per sync",
        job(parallelism=700, completions=700),
        created=500,
        batches=[1, 2, 4, 8, 16, 32, 64, 128, 245],
    ),
    Case(
        "excess pods are deleted before anything is created: cheapest first",
        job(parallelism=2, completions=10),
        [
            pod("running-ready-old", ready=True, created=-300),
            pod("unassigned", "Pending", node=None),
            pod("pending", "Pending"),
            pod("running", restarts=0),
            pod("running-restarts", restarts=3),
        ],
        deleted=["ns/unassigned", "ns/pending", "ns/running-restarts"],
        created=0,
        counts=(2, 0, 0),
        status={"terminating": 3},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_batchjob_counts(case: Case) -> None:
    check(case)


def test_indexed_pod_manifest_is_complete() -> None:
    spec = job(parallelism=1, completions=2, completionMode="Indexed")
    spec["spec"]["template"]["spec"]["subdomain"] = "svc"
    created = sync(spec).create[0]
    meta = created["metadata"]
    assert meta["annotations"][INDEX] == "0" and meta["labels"][INDEX] == "0"
    assert meta["generateName"] == "work-0-" and meta["name"].startswith("work-0-")
    assert meta["finalizers"] == ["batch.kubernetes.io/job-tracking"]
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "work",
            "uid": "uid-1",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert meta["labels"]["batch.kubernetes.io/job-name"] == "work"
    assert meta["labels"]["controller-uid"] == "uid-1"
    assert created["spec"]["hostname"] == "work-0"
    assert created["spec"]["containers"][0]["env"] == [
        {
            "name": "JOB_COMPLETION_INDEX",
            "valueFrom": {
                "fieldRef": {
                    "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"
                }
            },
        }
    ]


def test_names_are_deterministic_and_avoid_taken_names() -> None:
    spec = job(parallelism=3, completions=3)
    first = [p["metadata"]["name"] for p in sync(spec).create]
    again = [p["metadata"]["name"] for p in sync(spec).create]
    assert first == again and len(set(first)) == 3
    assert all(n.startswith("work-") and len(n) == len("work-") + 5 for n in first)
    taken = sync(spec, [pod(first[0])]).create
    assert first[0] not in [p["metadata"]["name"] for p in taken]


def test_unsatisfied_expectations_update_status_only() -> None:
    spec = job(parallelism=2, completions=2)
    pods = [pod("a", "Succeeded"), pod("b", "Succeeded")]
    actions = sync(spec, [pod("a", "Succeeded")], satisfied=False)
    assert actions.create == [] and actions.delete == []
    assert status_json(actions)["succeeded"] == 1
    finished = sync(spec, pods, satisfied=False)
    assert "conditions" not in status_json(finished)
    excess = sync(job(parallelism=1, completions=5), [pod("a"), pod("b")], satisfied=False)
    assert excess.delete == []
