"""batch/v1 Jobs through the whole system: every finished pod is counted once, deleted and
evicted pods terminate (issue: live correctness, defects 1 and 2).

These are the behaviours only a running system shows: the job controller syncs again before
the watcher has brought back the effect of its own finalizer patches, and pods leave through
the API server's graceful deletion and the simulated kubelet.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.kube import ApiError, KubeClient
from tests.e2e.e2e_cluster import BATCHJOB, POD, Observer, PodRecord, container, eventually

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]
TRACKING = "batch.kubernetes.io/job-tracking"


def batch_job(
    name: str,
    namespace: str,
    *,
    completions: int | None,
    parallelism: int,
    duration: str | None = "300ms",
    exit_code: int = 0,
    backoff_limit: int | None = None,
    pod_failure_policy: Json | None = None,
) -> Json:
    annotations = {"sim.shoal.io/start-delay": "50ms", "sim.shoal.io/exit-code": str(exit_code)}
    if duration is not None:
        annotations["sim.shoal.io/duration"] = duration
    spec: Json = {
        "parallelism": parallelism,
        "template": {
            "metadata": {"annotations": annotations},
            "spec": {
                "schedulerName": "shoal",
                "restartPolicy": "Never",
                "containers": [container("work", "100m", "64Mi")],
            },
        },
    }
    if completions is not None:
        spec["completions"] = completions
    if backoff_limit is not None:
        spec["backoffLimit"] = backoff_limit
    if pod_failure_policy is not None:
        spec["podFailurePolicy"] = pod_failure_policy
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def condition(job: Json, kind: str) -> Json | None:
    for cond in (job.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind and cond.get("status") == "True":
            return dict(cond)
    return None


async def finished(kube: KubeClient, namespace: str, name: str, *, timeout: float = 120) -> Json:
    job: Json = {}

    async def done() -> bool:
        nonlocal job
        job = await kube.get(BATCHJOB, name, namespace)
        return condition(job, "Complete") is not None or condition(job, "Failed") is not None

    await eventually(done, timeout=timeout, what=f"job {namespace}/{name} to finish")
    return job


def nothing_uncounted(status: Json) -> bool:
    uncounted = status.get("uncountedTerminatedPods") or {}
    return not uncounted.get("succeeded") and not uncounted.get("failed")


def ended(pods: list[PodRecord], phase: str) -> list[PodRecord]:
    return [p for p in pods if p.phases and p.phases[-1] == phase]


async def live_pods(kube: KubeClient, namespace: str) -> list[Json]:
    pods, _ = await kube.list_all(POD, namespace=namespace)
    return pods


async def test_nonindexed_job_completes_only_after_its_completions(
    kube: KubeClient, observer: Observer, namespace: str
) -> None:
    await kube.create(BATCHJOB, batch_job("ten", namespace, completions=10, parallelism=2))
    job = await finished(kube, namespace, "ten")
    status = job["status"]
    pods = observer.pods_of(namespace, "ten")
    assert condition(job, "Complete") is not None, status
    assert status["succeeded"] == 10, status
    assert len(ended(pods, "Succeeded")) == 10, [p.phases for p in pods]
    assert len(pods) == 10  # no pod more than the work needed
    assert status.get("failed", 0) == 0
    assert nothing_uncounted(status), status


async def test_failing_pi_job_counts_each_failed_pod_once(
    kube: KubeClient, observer: Observer, namespace: str
) -> None:
    # The Kubernetes docs' `pi` Job with a container that exits 1; backoffLimit 2 rather than
    # the docs' 4 keeps the pod-failure back-off (10 s, 20 s, ...) within a test's time.
    manifest = batch_job(
        "pi", namespace, completions=None, parallelism=1, exit_code=1, backoff_limit=2
    )
    manifest["spec"]["template"]["metadata"]["annotations"]["sim.shoal.io/duration"] = "100ms"
    await kube.create(BATCHJOB, manifest)
    job = await finished(kube, namespace, "pi", timeout=90)
    status = job["status"]
    failed = condition(job, "Failed")
    assert failed is not None and failed["reason"] == "BackoffLimitExceeded", status
    pods = observer.pods_of(namespace, "pi")
    assert len(ended(pods, "Failed")) == 3, [p.phases for p in pods]
    assert status["failed"] == 3, status
    assert status.get("succeeded", 0) == 0
    assert nothing_uncounted(status), status


async def _running_pods(kube: KubeClient, namespace: str, count: int) -> list[Json]:
    running: list[Json] = []

    async def enough() -> bool:
        nonlocal running
        running = [
            p
            for p in await live_pods(kube, namespace)
            if (p.get("status") or {}).get("phase") == "Running"
            and not p["metadata"].get("deletionTimestamp")
        ]
        return len(running) >= count

    await eventually(enough, timeout=60, what=f"{count} running pods in {namespace}")
    return running


async def _gone(kube: KubeClient, namespace: str, pod: Json) -> None:
    """The pod object is gone (a replacement may reuse its name: compare uids)."""
    name, uid = pod["metadata"]["name"], pod["metadata"]["uid"]
    last: Json = {}

    async def absent() -> bool:
        nonlocal last
        try:
            last = await kube.get(POD, name, namespace)
        except ApiError as exc:
            return exc.status == 404
        return bool(last["metadata"]["uid"] != uid)

    try:
        await eventually(absent, timeout=30, what=f"pod {namespace}/{name} to go away")
    except AssertionError as exc:
        meta, status = last.get("metadata") or {}, last.get("status") or {}
        seen = f"{status.get('phase')} finalizers={meta.get('finalizers')}"
        raise AssertionError(f"{exc}; last seen {seen}") from None


async def test_deleted_pod_terminates_and_is_replaced(
    kube: KubeClient, observer: Observer, namespace: str
) -> None:
    await kube.create(
        BATCHJOB, batch_job("svc", namespace, completions=None, parallelism=2, duration=None)
    )
    victim = (await _running_pods(kube, namespace, 2))[0]
    await kube.delete(POD, victim["metadata"]["name"], namespace)
    await _gone(kube, namespace, victim)
    await _running_pods(kube, namespace, 2)  # a replacement runs

    async def counted() -> bool:
        job = await kube.get(BATCHJOB, "svc", namespace)
        return (job.get("status") or {}).get("failed") == 1

    # A pod deleted before it succeeded counts as failed (podReplacementPolicy
    # TerminatingOrFailed, the default without a podFailurePolicy), exactly once.
    await eventually(counted, timeout=30, what="the deleted pod counted as one failure")
    assert len(observer.pods_of(namespace, "svc")) == 3


async def test_deleting_the_job_removes_its_pods(kube: KubeClient, namespace: str) -> None:
    await kube.create(
        BATCHJOB, batch_job("gone", namespace, completions=None, parallelism=3, duration=None)
    )
    await _running_pods(kube, namespace, 3)
    await kube.delete(BATCHJOB, "gone", namespace, propagation_policy="Background")

    async def empty() -> bool:
        return not await live_pods(kube, namespace)

    await eventually(empty, timeout=45, what="every pod of the deleted job to go away")


async def test_evicted_pod_is_ignored_by_the_disruption_rule(
    kube: KubeClient, observer: Observer, namespace: str
) -> None:
    # podFailurePolicy from the Kubernetes docs: a disruption does not count against backoffLimit.
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    manifest = batch_job(
        "drain",
        namespace,
        completions=None,
        parallelism=1,
        duration=None,
        backoff_limit=0,
        pod_failure_policy=policy,
    )
    await kube.create(BATCHJOB, manifest)
    victim = (await _running_pods(kube, namespace, 1))[0]
    await kube.evict(namespace, victim["metadata"]["name"], uid=victim["metadata"]["uid"])
    await _gone(kube, namespace, victim)
    record = observer.pods[victim["metadata"]["uid"]]
    conditions = (record.last.get("status") or {}).get("conditions") or []
    assert any(c.get("type") == "DisruptionTarget" for c in conditions), conditions
    assert record.phases[-1] == "Failed", record.phases
    await _running_pods(kube, namespace, 1)  # replaced: the Job did not fail
    job = await kube.get(BATCHJOB, "drain", namespace)
    assert condition(job, "Failed") is None, job["status"]
    assert (job.get("status") or {}).get("failed", 0) == 0, job["status"]


async def test_backoff_limit_per_index_ends_with_max_failed_indexes(
    kube: KubeClient, namespace: str
) -> None:
    # With backoffLimitPerIndex, backoffLimit defaults to MaxInt32: only maxFailedIndexes ends
    # the Job (a default of 6 would end it as BackoffLimitExceeded after 7 failures).
    manifest = batch_job("per-index", namespace, completions=8, parallelism=8, exit_code=1)
    manifest["spec"].update(completionMode="Indexed", backoffLimitPerIndex=0, maxFailedIndexes=7)
    created = await kube.create(BATCHJOB, manifest)
    assert created["spec"]["backoffLimit"] == 2**31 - 1
    job = await finished(kube, namespace, "per-index", timeout=60)
    failed = condition(job, "Failed")
    assert failed is not None and failed["reason"] == "MaxFailedIndexesExceeded", job["status"]
    assert job["status"]["failedIndexes"] == "0-7"
    assert job["status"]["failed"] == 8
