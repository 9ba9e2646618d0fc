"""A CronJob through the job controller's shell: its Jobs indexed under it, the Job of a due
schedule created and its reference completed with the Job's uid, an active Job gone from
the API server dropped (``MissingJob``), the controller waking at the next schedule."""

from __future__ import annotations

import time

import pytest

from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.cronjob.sync import sync_cron_job
from services.jobcontroller.executor import ActionExecutor
from services.jobcontroller.syncing import Syncer
from services.jobcontroller.workkeys import CRON_JOB, WorkKey
from shared.events import ObjectAdded, ObjectDeleted, ObjectEvent, ObjectModified, raw_object
from shared.expectations import Expectations
from shared.kube import ApiError
from shared.kube.timefmt import format_rfc3339
from shared.models import Json
from shared.models.batch import ObjectReference
from tests.unit.jobcontroller.conformance.k8s_cronjob_cases import TOP, as_job, cron_job
from tests.unit.jobcontroller.fakekube import FakeKube
from tests.unit.jobcontroller.test_shell_service import Cluster, eventually, running

CRONJOB = "batch/v1/CronJob"


def cron_job_manifest(name: str, *, last: float, active: list[Json] | None = None) -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {
            "schedule": "*/1 * * * *",
            "concurrencyPolicy": "Forbid",
            "startingDeadlineSeconds": 600,
            "jobTemplate": {
                "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
                "spec": {
                    "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c"}]}}
                },
            },
        },
        "status": {"lastScheduleTime": format_rfc3339(last), "active": active or []},
    }


def stored_status(holder: Cluster | FakeKube, key: str) -> Json:
    kube = holder.kube if isinstance(holder, Cluster) else holder
    found = kube.stored(CRONJOB, key)
    return (found or {}).get("status") or {}


async def test_due_schedule_creates_its_job_and_records_it_by_uid() -> None:
    cluster = Cluster()
    await cluster.start()
    boundary = int(time.time()) // 60
    cluster.kube.put(cron_job_manifest("nightly", last=(boundary - 1) * 60))
    async with running(cluster):
        await eventually(lambda: bool(cluster.kube.verbs("create", "Job")))
        job = cluster.kube.stored("batch/v1/Job", f"ns/nightly-{boundary}")
        assert job is not None, cluster.kube.verbs("create", "Job")
        assert job["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "user-queue"}
        owner = job["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["controller"]) == ("CronJob", "nightly", True)
        uid = job["metadata"]["uid"]
        await eventually(
            lambda: (
                [r.get("uid") for r in stored_status(cluster, "ns/nightly").get("active", [])]
                == [uid]
            )
        )
        status = stored_status(cluster, "ns/nightly")
        assert status["lastScheduleTime"] == format_rfc3339(boundary * 60)
        assert len(cluster.kube.verbs("create", "Job")) == 1, "one Job per scheduled time"


async def test_active_job_gone_from_the_api_server_is_dropped() -> None:
    cluster = Cluster()
    await cluster.start()
    boundary = int(time.time()) // 60
    gone = {"apiVersion": "batch/v1", "kind": "Job", "namespace": "ns", "name": "nightly-1",
            "uid": "gone-uid"}  # fmt: skip
    cluster.kube.put(cron_job_manifest("nightly", last=boundary * 60, active=[gone]))
    async with running(cluster):
        await eventually(lambda: not stored_status(cluster, "ns/nightly").get("active"))
        reasons = [e.get("reason") for e in cluster.kube.of_kind("Event")]
        assert "MissingJob" in reasons
        assert not cluster.kube.verbs("create", "Job"), "the boundary's time already ran"


def test_reference_written_before_the_uid_was_known_is_completed() -> None:
    """A Job this controller created is referenced by name until the cache holds it; then
    the reference gets its uid, with no UnexpectedJob Event."""
    cj = cron_job(schedule="0 * * * *")
    job = as_job({"metadata": {"name": "mycronjob-1", "namespace": "snazzycats",
                               "ownerReferences": [{"name": "mycronjob", "controller": True}]}},
                 uid="u-1", created=0)  # fmt: skip
    cj.status.active = [
        ObjectReference(apiVersion="batch/v1", kind="Job", namespace="snazzycats", name=job_name)
        for job_name in ("mycronjob-1",)
    ]
    result = sync_cron_job(cj, [job], 0.0)
    assert [r.uid for r in result.cj.status.active] == ["u-1"]
    assert result.update_status
    assert not [e for e in result.events if e[1] == "UnexpectedJob"]


def observe(cache: ControllerCache, event: ObjectEvent) -> None:
    """What the watcher publishes, applied at once."""
    assert isinstance(event, ObjectAdded | ObjectModified | ObjectDeleted)
    cache.apply(event)


async def test_one_job_each_minute_with_an_injected_clock() -> None:
    """The Syncer at two clock readings a minute apart: each sync starts the minute's Job and
    asks to be woken at the next one (``requeue_after``, which the service's queue honours)."""
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    kube = FakeKube(on_change=lambda event: observe(cache, event))
    clock = [TOP + 30]
    executor = ActionExecutor(kube, cache, wall_clock=lambda: clock[0])
    syncer = Syncer(cache=cache, executor=executor, wall_clock=lambda: clock[0])
    manifest = cron_job_manifest("every-minute", last=TOP - 60)
    manifest["spec"]["concurrencyPolicy"] = "Allow"
    kube.put(manifest)
    key = WorkKey(CRON_JOB, "ns/every-minute")
    first = await syncer.sync(key)
    assert first.requeue_after == pytest.approx(30.1)
    clock[0] = TOP + 90
    second = await syncer.sync(key)
    assert second.requeue_after == pytest.approx(30.1)
    created = kube.verbs("create", "Job")
    minute = int(TOP) // 60
    assert created == [f"ns/every-minute-{minute}", f"ns/every-minute-{minute + 1}"]
    status = stored_status(kube, "ns/every-minute")
    assert status["lastScheduleTime"] == format_rfc3339(TOP + 60)
    assert len(status["active"]) == 2


async def test_active_job_the_cache_lacks_is_read_from_the_api_server() -> None:
    """A slow watch: the CronJob's own Job is on the API server but not yet in the cache, so
    it stays active; a Job of a referenced name that someone else made is not adopted."""
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    kube = FakeKube()
    syncer = Syncer(cache=cache, executor=ActionExecutor(kube, cache), wall_clock=lambda: TOP)
    refs = [{"apiVersion": "batch/v1", "kind": "Job", "namespace": "ns", "name": name}
            for name in ("mine", "foreign")]  # fmt: skip
    cj = kube.put(cron_job_manifest("nightly", last=TOP, active=refs))
    observe(cache, ObjectAdded(key="ns/nightly", kind="CronJob", resourceVersion="1",
                               object=raw_object(cj)))  # fmt: skip
    owner = {"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly",
             "uid": cj["metadata"]["uid"], "controller": True}  # fmt: skip
    kube.put(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "mine", "namespace": "ns", "ownerReferences": [owner]},
        }
    )
    kube.put({"apiVersion": "batch/v1", "kind": "Job",
              "metadata": {"name": "foreign", "namespace": "ns"}})  # fmt: skip
    await syncer.sync(WorkKey(CRON_JOB, "ns/nightly"))
    assert [r["name"] for r in stored_status(kube, "ns/nightly")["active"]] == ["mine"]
    reasons = [(e.get("reason"), e.get("message")) for e in kube.of_kind("Event")]
    assert ("MissingJob", "Active job went missing: foreign") in reasons


async def test_failed_create_is_a_failed_create_event_and_no_success() -> None:
    """``FailedCreate`` with the API server's error (``Error creating job: %v``) instead of
    ``SuccessfulCreate``; the sync fails, so it is retried with back-off."""
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    kube = FakeKube(on_change=lambda event: observe(cache, event))
    syncer = Syncer(cache=cache, executor=ActionExecutor(kube, cache), wall_clock=lambda: TOP + 1)
    kube.put(cron_job_manifest("nightly", last=TOP - 60))
    quota = 'jobs.batch "nightly-1" is forbidden: exceeded quota: jobs'
    kube.fail("create", "Job", "*", ApiError(403, "Forbidden", quota))
    result = await syncer.sync(WorkKey(CRON_JOB, "ns/nightly"))
    assert result.outcome.failed
    events = [(e.get("type"), e.get("reason"), e.get("message")) for e in kube.of_kind("Event")]
    assert events == [("Warning", "FailedCreate", f"Error creating job: {quota}")]


async def test_running_job_missing_from_the_cached_status_is_checked_on_the_api_server() -> None:
    """The cache holds an older CronJob than the API server: its running Job is in the API
    server's ``status.active``, so it is not unexpected."""
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    kube = FakeKube()
    syncer = Syncer(cache=cache, executor=ActionExecutor(kube, cache), wall_clock=lambda: TOP + 1)
    stale = kube.put(cron_job_manifest("nightly", last=TOP - 60))
    observe(cache, ObjectAdded(key="ns/nightly", kind="CronJob", resourceVersion="1",
                               object=raw_object(stale)))  # fmt: skip
    owner = {"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly",
             "uid": stale["metadata"]["uid"], "controller": True}  # fmt: skip
    minute = int(TOP) // 60
    job = kube.put({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": f"nightly-{minute}", "namespace": "ns", "ownerReferences": [owner]}})  # fmt: skip
    observe(cache, ObjectAdded(key=f"ns/nightly-{minute}", kind="Job", resourceVersion="2",
                               object=raw_object(job)))  # fmt: skip
    ref = {"apiVersion": "batch/v1", "kind": "Job", "namespace": "ns",
           "name": job["metadata"]["name"], "uid": job["metadata"]["uid"]}  # fmt: skip
    kube.stored(CRONJOB, "ns/nightly")["status"] = {  # type: ignore[index]
        "lastScheduleTime": format_rfc3339(TOP),
        "active": [ref],
    }
    await syncer.sync(WorkKey(CRON_JOB, "ns/nightly"))
    assert not [e for e in kube.of_kind("Event") if e.get("reason") == "UnexpectedJob"]
    assert not kube.verbs("create", "Job"), "the due time's Job is the running one"
