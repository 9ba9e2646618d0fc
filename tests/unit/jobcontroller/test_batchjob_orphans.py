"""Which pods lose their tracking finalizer outside a Job sync (``syncOrphanPod``), and the
cache waking them when their Job goes or finishes."""

from __future__ import annotations

from typing import Any

import pytest

from services.jobcontroller.batchjob import orphans
from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.workkeys import BATCH_JOB, POD, WorkKey
from shared.events import ObjectAdded, ObjectDeleted, ObjectModified, StateEvent, raw_object
from shared.expectations import Expectations
from shared.models import Job, Pod, convert
from tests.unit.jobcontroller.batchjob_cases import UID, job, pod

COMPLETE = {"conditions": [{"type": "Complete", "status": "True"}]}


def owned_by(kind: str, api_version: str, uid: str = UID) -> dict[str, Any]:
    body = pod("p", "Running")
    body["metadata"]["ownerReferences"] = [
        {"apiVersion": api_version, "kind": kind, "name": "work", "uid": uid, "controller": True}
    ]
    return body


CASES = [
    ("pod of a running job keeps its finalizer", pod("p"), job(), False),
    ("pod whose job is gone loses it", pod("p"), None, True),
    ("pod of a finished job loses it", pod("p", "Succeeded"), job(status=COMPLETE), True),
    ("pod without a controller loses it", pod("p", owned=False), None, True),
    (
        "pod of another job with the same name loses it",
        owned_by("Job", "batch/v1", "x"),
        job(),
        True,
    ),
    (
        "pod controlled by another kind is left alone",
        owned_by("ReplicaSet", "apps/v1"),
        None,
        False,
    ),
    ("pod without the finalizer needs nothing", pod("p", finalizer=False), None, False),
    (
        "pod of a finished job managed elsewhere is left alone",
        pod("p"),
        job(status=COMPLETE, managedBy="kueue.x-k8s.io/multikueue"),
        False,
    ),
]


@pytest.mark.parametrize(
    ("pod_doc", "job_doc", "release"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_needs_release(
    pod_doc: dict[str, Any], job_doc: dict[str, Any] | None, release: bool
) -> None:
    the_job = convert(job_doc, Job) if job_doc is not None else None
    assert orphans.needs_release(convert(pod_doc, Pod), the_job) is release


def _event(
    cls: type[ObjectAdded | ObjectModified | ObjectDeleted], body: dict[str, Any]
) -> StateEvent:
    meta = body["metadata"]
    key = f"{meta['namespace']}/{meta['name']}"
    version = str(meta.get("resourceVersion", "1"))
    return cls(key=key, kind=body["kind"], resourceVersion=version, object=raw_object(body))


@pytest.mark.parametrize("how", ["deleted", "finished"])
def test_a_gone_or_finished_job_wakes_its_tracked_pods(how: str) -> None:
    woken: list[WorkKey] = []
    cache = ControllerCache(expectations=Expectations(), on_work=woken.append)
    the_job = job()
    the_job["metadata"]["resourceVersion"] = "1"
    cache.apply(_event(ObjectAdded, the_job))
    cache.apply(_event(ObjectAdded, pod("p")))
    woken.clear()
    if how == "deleted":
        cache.apply(_event(ObjectDeleted, the_job))
    else:
        done = job(status=COMPLETE)
        done["metadata"]["resourceVersion"] = "2"
        cache.apply(_event(ObjectModified, done))
    assert WorkKey(POD, "ns/p") in woken
    assert WorkKey(BATCH_JOB, "ns/work") in woken
