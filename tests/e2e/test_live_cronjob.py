"""batch/v1 CronJobs through the whole system, on both control planes.

An ordinary ``*/1 * * * *`` CronJob with ``concurrencyPolicy: Forbid`` and a history of 3: while
a Job of it still runs, the schedule that comes due is skipped (``JobAlreadyActive``); once that
Job finishes, the skipped time — still within ``startingDeadlineSeconds`` — gets its Job; and of
the finished Jobs only the newest 3 are kept. Kueue's ``sample-cronjob`` runs its Job through
the queue: the Job carries the template's queue label, is created suspended and starts once its
Workload is admitted.

A schedule due during the test, without waiting for minutes: the CronJob is created suspended,
its status says it last ran a minute before the latest minute boundary (as a CronJob whose
controller was down would read), and it is resumed; the boundary's time is then due at once.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from services.cli.stack import Stack
from shared.kube import KubeClient
from shared.kube.resources import resource_for
from shared.kube.timefmt import format_rfc3339
from tests.e2e.e2e_cluster import BATCHJOB, container, eventually, kubectl

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]
CRONJOB = resource_for("batch/v1", "CronJob")
EVENT = resource_for("v1", "Event")
WORKLOAD = resource_for("kueue.x-k8s.io/v1beta1", "Workload")
UPSTREAM = Path(__file__).parents[1] / "data" / "upstream" / "kueue"
SCHEDULED = "batch.kubernetes.io/cronjob-scheduled-timestamp"


def pod_template(duration: str) -> Json:
    return {
        "metadata": {
            "annotations": {"sim.shoal.io/duration": duration, "sim.shoal.io/start-delay": "50ms"}
        },
        "spec": {
            "schedulerName": "shoal",
            "restartPolicy": "Never",
            "containers": [container("work", "100m", "64Mi")],
        },
    }


def cron_job(name: str, namespace: str) -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "schedule": "*/1 * * * *",
            "concurrencyPolicy": "Forbid",
            "successfulJobsHistoryLimit": 3,
            "startingDeadlineSeconds": 600,
            "suspend": True,
            "jobTemplate": {"spec": {"template": pod_template("300ms")}},
        },
    }


def owned_job(cj: Json, minute: int, duration: str) -> Json:
    """A Job of an earlier run, named and owned as the CronJob controller makes them."""
    meta = cj["metadata"]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": f"{meta['name']}-{minute}",
            "namespace": meta["namespace"],
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "CronJob",
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"template": pod_template(duration)},
    }


def complete(job: Json) -> bool:
    return any(
        c.get("type") == "Complete" and c.get("status") == "True"
        for c in (job.get("status") or {}).get("conditions") or []
    )


async def reasons(kube: KubeClient, namespace: str, name: str) -> list[str]:
    events, _ = await kube.list_all(EVENT, namespace=namespace)
    return [
        str(e.get("reason"))
        for e in events
        if (e.get("involvedObject") or {}).get("kind") == "CronJob"
        and (e.get("involvedObject") or {}).get("name") == name
    ]


async def test_forbid_skips_while_running_and_keeps_three(kube: KubeClient, namespace: str) -> None:
    cj = await kube.create(CRONJOB, cron_job("every-minute", namespace), namespace)
    assert cj["spec"]["failedJobsHistoryLimit"] == 1, "defaulted as kube-apiserver does"
    boundary = int(time.time()) // 60  # the latest minute boundary, in minutes
    # Three short runs of earlier minutes, and one still running when the boundary is due.
    for minute in range(boundary - 4, boundary - 1):
        await kube.create(BATCHJOB, owned_job(cj, minute, "200ms"), namespace)
    running = await kube.create(BATCHJOB, owned_job(cj, boundary - 1, "8s"), namespace)
    ref = {"apiVersion": "batch/v1", "kind": "Job", "namespace": namespace,
           "name": running["metadata"]["name"], "uid": running["metadata"]["uid"]}  # fmt: skip
    status = {"lastScheduleTime": format_rfc3339((boundary - 1) * 60), "active": [ref]}
    await kube.patch(CRONJOB, "every-minute", {"status": status}, namespace=namespace,
                     subresource="status")  # fmt: skip
    await kube.patch(CRONJOB, "every-minute", {"spec": {"suspend": False}}, namespace=namespace)

    async def skipped() -> bool:
        return "JobAlreadyActive" in await reasons(kube, namespace, "every-minute")

    await eventually(skipped, timeout=20, what="the due run skipped under Forbid")
    jobs, _ = await kube.list_all(BATCHJOB, namespace=namespace)
    assert len(jobs) == 4, "no Job starts while the previous one runs"

    started: dict[str, str] = {}  # every Job seen: its startTime, for byJobStartTime

    async def jobs_now() -> list[Json]:
        found, _ = await kube.list_all(BATCHJOB, namespace=namespace)
        for job in found:
            start = (job.get("status") or {}).get("startTime")
            if start:
                started[job["metadata"]["name"]] = start
        return found

    late: list[Json] = []

    async def ran_late_and_finished() -> bool:
        nonlocal late
        late = [j for j in await jobs_now() if minute_of(j) >= boundary]
        return bool(late) and complete(min(late, key=minute_of))

    await eventually(ran_late_and_finished, timeout=60, what="the skipped time's Job to run")
    first_late = min(late, key=minute_of)
    owner = first_late["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("CronJob", "every-minute", True)
    assert SCHEDULED in first_late["metadata"]["annotations"]

    async def three_kept() -> bool:
        found = await jobs_now()
        current = await kube.get(CRONJOB, "every-minute", namespace)
        return (
            len(found) == 3
            and all(complete(j) for j in found)
            and not (current.get("status") or {}).get("active")
            and bool((current.get("status") or {}).get("lastSuccessfulTime"))
        )

    await eventually(three_kept, timeout=30, what="the history cut to the newest 3")
    kept = {j["metadata"]["name"] for j in await jobs_now()}
    newest = sorted(started, key=lambda n: (started[n], n))[-3:]
    assert kept == set(newest), f"kept {sorted(kept)}, started {started}"
    assert first_late["metadata"]["name"] in kept
    seen = await reasons(kube, namespace, "every-minute")
    for reason in ("JobAlreadyActive", "SawCompletedJob", "SuccessfulCreate", "SuccessfulDelete"):
        assert reason in seen, f"{reason} not in {seen}"
    current = await kube.get(CRONJOB, "every-minute", namespace)
    last_run = max(minute_of(j) for j in late)
    assert current["status"]["lastScheduleTime"] >= format_rfc3339(last_run * 60)


def minute_of(job: Json) -> int:
    """The scheduled time in a CronJob's Job name, in minutes since the epoch."""
    return int(job["metadata"]["name"].rsplit("-", 1)[1])


async def test_kueue_sample_cronjob_runs_through_the_queue(stack: Stack, kube: KubeClient) -> None:
    await kubectl(stack, "apply", "-f", str(UPSTREAM / "single-clusterqueue-setup.yaml"))
    manifest = (UPSTREAM / "sample-cronjob.yaml").read_text()
    # kubesim and kwok run no containers: the sample's 30 s sleep becomes a simulated 2 s.
    annotated = manifest.replace(
        "      template:\n        spec:\n",
        "      template:\n        metadata:\n          annotations:\n"
        '            sim.shoal.io/duration: "2s"\n        spec:\n',
    )
    assert annotated != manifest
    await kubectl(stack, "apply", "-f", "-", stdin=annotated)
    boundary = int(time.time()) // 60
    status = {"lastScheduleTime": format_rfc3339((boundary - 1) * 60)}
    await kube.patch(CRONJOB, "sample-cronjob", {"status": status}, namespace="default",
                     subresource="status")  # fmt: skip
    job: Json = {}

    async def finished() -> bool:
        nonlocal job
        found, _ = await kube.list_all(BATCHJOB, namespace="default")
        ours = [j for j in found if j["metadata"]["name"].startswith("sample-cronjob-")]
        job = ours[0] if ours else {}
        return bool(ours) and complete(ours[0])

    await eventually(finished, timeout=120, what="the sample CronJob's Job to finish")
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "user-queue"
    conditions = {c["type"]: c for c in job["status"]["conditions"]}
    assert conditions["Suspended"]["reason"] == "JobResumed", "held suspended until admitted"
    workloads, _ = await kube.list_all(WORKLOAD, namespace="default")
    mine = [
        w for w in workloads if w["metadata"]["ownerReferences"][0]["uid"] == job["metadata"]["uid"]
    ]
    assert len(mine) == 1, "one Workload for the CronJob's Job"
    assert mine[0]["status"]["admission"]["clusterQueue"] == "cluster-queue"
    await kubectl(stack, "delete", "cronjob", "sample-cronjob", "-n", "default")
