"""Kueue through the whole system, with Kueue's own quick-start applied by kubectl.

``single-clusterqueue-setup.yaml`` (v1beta2, unchanged: 9 CPU of quota) and more copies of
``sample-job.yaml`` (3 pods of 1 CPU each) than the quota holds: Kueue's webhook (played by
kubesim) creates each Job suspended, the job controller gives it one Workload, the scheduler
admits Workloads within quota, the binder writes the admission, the job controller starts the
Job; never more CPU runs than the quota allows, and every Job finishes. The only change to the
sample Job is a simulated run time (kubesim does not run containers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.cli.stack import Stack
from shared.kube import ApiError, KubeClient
from shared.kube.resources import resource_for
from tests.e2e.e2e_cluster import BATCHJOB, KUBECTL, POD, PYTORCHJOB, VCJOB, eventually, kubectl

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(240),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]

Json = dict[str, Any]
UPSTREAM = Path(__file__).parents[1] / "data" / "upstream" / "kueue"
WORKLOAD = resource_for("kueue.x-k8s.io/v1beta1", "Workload")
CLUSTER_QUEUE = resource_for("kueue.x-k8s.io/v1beta1", "ClusterQueue")
LOCAL_QUEUE = resource_for("kueue.x-k8s.io/v1beta1", "LocalQueue")
FLAVOR = resource_for("kueue.x-k8s.io/v1beta1", "ResourceFlavor")
QUOTA_CPU = 9
JOBS = 5


def sample_job() -> str:
    job: Json = yaml.safe_load((UPSTREAM / "sample-job.yaml").read_text())
    meta = job["spec"]["template"].setdefault("metadata", {})
    meta["annotations"] = {"sim.shoal.io/duration": "2s", "sim.shoal.io/start-delay": "50ms"}
    return yaml.safe_dump(job)


def _running_cpu(pods: list[Json]) -> int:
    """CPUs held by the sample jobs' pods: bound and not finished."""
    return sum(
        1
        for pod in pods
        if (pod.get("spec") or {}).get("nodeName")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        and str((pod.get("metadata") or {}).get("name") or "").startswith("sample-job-")
    )


async def test_quick_start_never_runs_more_than_the_quota(stack: Stack, kube: KubeClient) -> None:
    await kubectl(stack, "apply", "-f", str(UPSTREAM / "single-clusterqueue-setup.yaml"))
    for _ in range(JOBS):
        await kubectl(stack, "create", "-f", "-", stdin=sample_job())

    peak = reserved = 0

    async def all_finished() -> bool:
        nonlocal peak, reserved
        pods, _ = await kube.list_all(POD, namespace="default")
        peak = max(peak, _running_cpu(pods))
        workloads, _ = await kube.list_all(WORKLOAD, namespace="default")
        reserved = max(reserved, _reserved(workloads))
        jobs, _ = await kube.list_all(BATCHJOB, namespace="default")
        done = [
            j
            for j in jobs
            if any(
                c.get("type") == "Complete" and c.get("status") == "True"
                for c in (j.get("status") or {}).get("conditions") or []
            )
        ]
        return len(done) == JOBS

    await eventually(all_finished, timeout=180, what=f"{JOBS} sample jobs Complete", every=0.2)
    assert 0 < peak <= QUOTA_CPU, f"{peak} CPUs ran at once, quota {QUOTA_CPU}"
    # Reservations last from admission to the end of the job: a sure sign, where a 2-second
    # overlap of pods can fall between two looks on a loaded machine.
    assert reserved == QUOTA_CPU, f"three sample jobs fit the quota together: {reserved}"

    async def workloads_finished() -> bool:
        found, _ = await kube.list_all(WORKLOAD, namespace="default")
        return len(found) == JOBS and all("Finished" in _conditions(w) for w in found)

    await eventually(workloads_finished, timeout=30, what="every Workload Finished")
    jobs, _ = await kube.list_all(BATCHJOB, namespace="default")
    workloads, _ = await kube.list_all(WORKLOAD, namespace="default")
    owners = [w["metadata"]["ownerReferences"][0]["uid"] for w in workloads]
    assert sorted(owners) == sorted(j["metadata"]["uid"] for j in jobs), "one Workload per job"
    for wl in workloads:
        kinds = {c["type"]: c for c in wl["status"]["conditions"]}
        assert kinds["Finished"]["status"] == "True", wl["metadata"]["name"]
        assert kinds["Finished"]["reason"] == "Succeeded"
        assert wl["status"]["admission"]["clusterQueue"] == "cluster-queue"

    async def queue_drained() -> bool:
        cq = await kube.get(CLUSTER_QUEUE, "cluster-queue")
        status = cq.get("status") or {}
        return status.get("pendingWorkloads") == 0 and status.get("admittedWorkloads") == 0

    await eventually(queue_drained, timeout=30, what="ClusterQueue counters back at 0")
    out = await kubectl(stack, "get", "workloads.kueue.x-k8s.io", "-n", "default")
    assert "cluster-queue" in out


def _kueue(kind: str, name: str, spec: Json, namespace: str | None = None) -> Json:
    meta: Json = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": kind, "metadata": meta, "spec": spec}


def _team_queue(name: str, cpu: int) -> Json:
    return _kueue(
        "ClusterQueue",
        name,
        {
            "cohort": "team",
            "namespaceSelector": {},
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "Never"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {
                            "name": "default-flavor",
                            "resources": [{"name": "cpu", "nominalQuota": cpu}],
                        }
                    ],
                }
            ],
        },
    )


def _job(name: str, namespace: str, queue: str, pods: int, duration: str) -> Json:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kueue.x-k8s.io/queue-name": queue},
        },
        # Created suspended, as Kueue's sample Jobs are: Kueue's webhook would suspend it, and
        # only kubesim plays that webhook (the real control plane has none yet).
        "spec": {
            "suspend": True,
            "parallelism": pods,
            "completions": pods,
            "template": {
                "metadata": {"annotations": {"sim.shoal.io/duration": duration}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
                    ],
                },
            },
        },
    }


# The CRDs serve v1beta1 and v1beta2 and store v1beta2: these tests write v1beta1, as a user
# of older manifests does, so a v1beta1 ClusterQueue's spec.cohort reaches the services only
# through Kueue's conversion (kubesim's in-process, Shoal's webhook on the real control plane).


def _conditions(obj: Json) -> dict[str, Json]:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


async def test_cohort_borrows_then_reclaims(stack: Stack, kube: KubeClient, namespace: str) -> None:
    """Team A borrows B's idle quota; when B's job arrives, B reclaims it: one of A's Workloads
    is evicted (Preempted, InCohortReclamation), its Job suspended and requeued, B's job runs,
    and everything finishes."""
    for cq in (_team_queue(f"{namespace}-a", 4), _team_queue(f"{namespace}-b", 4)):
        await kube.create(CLUSTER_QUEUE, cq)
    for team in ("a", "b"):
        lq = _kueue("LocalQueue", team, {"clusterQueue": f"{namespace}-{team}"}, namespace)
        await kube.create(LOCAL_QUEUE, lq, namespace=namespace)
    for name in ("a1", "a2"):
        await kube.create(BATCHJOB, _job(name, namespace, "a", 4, "8s"), namespace=namespace)

    async def a_borrows() -> bool:
        pods, _ = await kube.list_all(POD, namespace=namespace)
        return _running_in(pods, ("a1-", "a2-")) == 8

    await eventually(a_borrows, timeout=90, what="team A running 8 CPUs on 4 + 4 borrowed")
    await kube.create(BATCHJOB, _job("b1", namespace, "b", 4, "1s"), namespace=namespace)

    async def all_done() -> bool:
        jobs, _ = await kube.list_all(BATCHJOB, namespace=namespace)
        return len(jobs) == 3 and all("Complete" in _conditions(j) for j in jobs)

    await eventually(all_done, timeout=150, what="a1, a2 and b1 Complete")

    async def workloads_finished() -> bool:
        found, _ = await kube.list_all(WORKLOAD, namespace=namespace)
        return len(found) == 3 and all("Finished" in _conditions(w) for w in found)

    await eventually(workloads_finished, timeout=30, what="every Workload Finished")
    workloads, _ = await kube.list_all(WORKLOAD, namespace=namespace)
    evicted = [w for w in workloads if "Evicted" in _conditions(w)]
    assert len(evicted) == 1, [w["metadata"]["name"] for w in workloads]
    # Readmitted since: SetQuotaReservation turned Preempted false, "Previously: <message>".
    preempted = _conditions(evicted[0])["Preempted"]
    assert (preempted["status"], preempted["reason"]) == ("False", "QuotaReserved")
    assert "due to reclamation within the cohort" in preempted["message"]
    assert _conditions(evicted[0])["Requeued"]["status"] == "True"
    for wl in workloads:
        assert _conditions(wl)["Finished"]["reason"] == "Succeeded"


def _running_in(pods: list[Json], prefixes: tuple[str, ...]) -> int:
    return sum(
        1
        for pod in pods
        if (pod.get("spec") or {}).get("nodeName")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        and str(pod["metadata"]["name"]).startswith(prefixes)
    )


def _reserved(workloads: list[Json]) -> int:
    """Pods (one CPU each) of the Workloads that hold quota: reserved and not finished."""
    return sum(
        p["count"]
        for wl in workloads
        if _conditions(wl).get("QuotaReserved", {}).get("status") == "True"
        and _conditions(wl).get("Finished", {}).get("status") != "True"
        for p in wl["spec"]["podSets"]
    )


async def _three_cpu_queue(kube: KubeClient, namespace: str, name: str) -> None:
    """A ClusterQueue ``<namespace>-<name>`` of 3 CPUs of ``default-flavor`` and the
    LocalQueue ``name`` in ``namespace`` that feeds it (and the flavor, if no test made it yet:
    tests run alone too)."""
    with contextlib.suppress(ApiError):
        await kube.create(FLAVOR, _kueue("ResourceFlavor", "default-flavor", {}))
    cq = _kueue(
        "ClusterQueue",
        f"{namespace}-{name}",
        {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {
                            "name": "default-flavor",
                            "resources": [{"name": "cpu", "nominalQuota": 3}],
                        }
                    ],
                }
            ],
        },
    )
    await kube.create(CLUSTER_QUEUE, cq)
    lq = _kueue("LocalQueue", name, {"clusterQueue": f"{namespace}-{name}"}, namespace)
    await kube.create(LOCAL_QUEUE, lq, namespace=namespace)


async def test_pytorchjob_waits_for_quota_then_runs(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    """Two PyTorchJobs of master + 2 workers on 3 CPUs of quota: one runs at a time, each has
    one Workload with the master and worker pod sets, both succeed."""
    await _three_cpu_queue(kube, namespace, "pt")
    template = {
        "metadata": {"annotations": {"sim.shoal.io/duration": "2s"}},
        "spec": {
            "containers": [
                {"name": "pytorch", "image": "pytorch", "resources": {"requests": {"cpu": "1"}}}
            ]
        },
    }
    for name in ("pt1", "pt2"):
        job = {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": {"kueue.x-k8s.io/queue-name": "pt"},
            },
            "spec": {
                "runPolicy": {"suspend": True},  # as the job webhook would (see _job)
                "pytorchReplicaSpecs": {
                    "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": template},
                    "Worker": {"replicas": 2, "restartPolicy": "OnFailure", "template": template},
                },
            },
        }
        await kube.create(PYTORCHJOB, job, namespace=namespace)
    peak = 0

    async def both_succeeded() -> bool:
        nonlocal peak
        # Kueue's guarantee is on admitted Workloads: the quota is free again once a job
        # finishes, and a PyTorchJob finishes with its master (cleanPodPolicy None leaves its
        # workers to end on their own), so pods alone may briefly exceed it, as upstream.
        workloads, _ = await kube.list_all(WORKLOAD, namespace=namespace)
        peak = max(peak, _reserved(workloads))
        jobs, _ = await kube.list_all(PYTORCHJOB, namespace=namespace)
        return len(jobs) == 2 and all(
            _conditions(j).get("Succeeded", {}).get("status") == "True" for j in jobs
        )

    await eventually(both_succeeded, timeout=150, what="both PyTorchJobs Succeeded", every=0.2)
    assert 0 < peak <= 3, f"{peak} CPUs reserved at once on 3 of quota"
    workloads, _ = await kube.list_all(WORKLOAD, namespace=namespace)
    assert len(workloads) == 2
    for wl in workloads:
        sets = [(p["name"], p["count"]) for p in wl["spec"]["podSets"]]
        assert sets == [("master", 1), ("worker", 2)]


async def test_volcano_jobs_hold_no_pod_before_admission_and_run_within_quota(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    """Three Volcano Jobs of master + 2 workers on 3 CPUs of quota: a job has no pod before
    its Workload is admitted, one runs at a time, each has one Workload (a pod set per task),
    all complete and their Workloads finish."""
    await _three_cpu_queue(kube, namespace, "vc")
    template = {
        "metadata": {"annotations": {"sim.shoal.io/duration": "1s"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
            ],
        },
    }
    names = ("vc1", "vc2", "vc3")
    for name in names:
        job = {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": {"kueue.x-k8s.io/queue-name": "vc"},
            },
            "spec": {
                "minAvailable": 3,
                "schedulerName": "volcano",
                "tasks": [
                    {"name": "master", "replicas": 1, "template": template},
                    {"name": "worker", "replicas": 2, "template": template},
                ],
            },
        }
        await kube.create(VCJOB, job, namespace=namespace)
    peak = 0
    early: set[str] = set()

    async def all_completed() -> bool:
        nonlocal peak
        pods, _ = await kube.list_all(POD, namespace=namespace)
        workloads, _ = await kube.list_all(WORKLOAD, namespace=namespace)
        admitted = {
            w["metadata"]["ownerReferences"][0]["name"]
            for w in workloads
            if "Admitted" in _conditions(w) or "Finished" in _conditions(w)
        }
        for pod in pods:
            owner = pod["metadata"]["labels"].get("volcano.sh/job-name", "")
            if owner not in admitted:
                early.add(pod["metadata"]["name"])
        peak = max(peak, _running_in(pods, tuple(f"{n}-" for n in names)))
        jobs, _ = await kube.list_all(VCJOB, namespace=namespace)
        phases = [((j.get("status") or {}).get("state") or {}).get("phase") for j in jobs]
        return phases == ["Completed"] * len(names)

    await eventually(all_completed, timeout=150, what="three Volcano Jobs Completed", every=0.2)
    assert not early, f"pods existed before their Workload was admitted: {sorted(early)}"
    assert 0 < peak <= 3, f"{peak} CPUs ran at once on 3 of quota"

    async def workloads_finished() -> bool:
        found, _ = await kube.list_all(WORKLOAD, namespace=namespace)
        return len(found) == len(names) and all("Finished" in _conditions(w) for w in found)

    await eventually(workloads_finished, timeout=30, what="every Workload Finished")
    workloads, _ = await kube.list_all(WORKLOAD, namespace=namespace)
    for wl in workloads:
        assert [(p["name"], p["count"]) for p in wl["spec"]["podSets"]] == [
            ("master", 1),
            ("worker", 2),
        ]
        assert _conditions(wl)["Finished"]["reason"] == "Succeeded"


async def test_a_job_without_a_queue_goes_to_the_namespaces_default_local_queue(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    """Kueue's LocalQueue defaulting: in a namespace with a LocalQueue named ``default``, a
    Job without the queue label is labelled for it, created suspended, and runs once its
    Workload is admitted there."""
    with contextlib.suppress(ApiError):  # the quick-start test may have made it already
        await kube.create(FLAVOR, _kueue("ResourceFlavor", "default-flavor", {}))
    await kube.create(CLUSTER_QUEUE, _team_queue(f"{namespace}-d", 2))
    lq = _kueue("LocalQueue", "default", {"clusterQueue": f"{namespace}-d"}, namespace)
    await kube.create(LOCAL_QUEUE, lq, namespace=namespace)
    unlabelled = _job("plain", namespace, "", 2, "1s")
    del unlabelled["metadata"]["labels"]
    created = await kube.create(BATCHJOB, unlabelled, namespace=namespace)
    assert created["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default"
    assert created["spec"]["suspend"] is True

    async def complete() -> bool:
        job = await kube.get(BATCHJOB, "plain", namespace)
        return "Complete" in _conditions(job)

    await eventually(complete, timeout=90, what="the defaulted Job to complete")
    workloads, _ = await kube.list_all(WORKLOAD, namespace=namespace)
    assert [w["spec"]["queueName"] for w in workloads] == ["default"]


def _usage(status: Json, key: str) -> dict[str, tuple[str, str | None]]:
    return {
        f"{f['name']}/{r['name']}": (r.get("total"), r.get("borrowed"))
        for f in status.get(key) or []
        for r in f["resources"]
    }


async def test_queue_status_shows_reservations_and_usage(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    """Kueue's queue reconcilers' status through the whole system: three Jobs of 2 pods (1 CPU,
    512Mi) in a ClusterQueue of 4 CPU whose cohort has a lender of 2 idle CPU: the third
    borrows. The ClusterQueue shows what its workloads reserve and use
    (``flavorsReservation``/``flavorsUsage`` with ``borrowed``, Kueue's quantities), the
    LocalQueue the same (v1beta1 ``flavorUsage``, v1beta2 ``flavorsUsage``), and both drop back
    to 0 when the Jobs are deleted."""
    with contextlib.suppress(ApiError):  # the quick-start test may have made it already
        await kube.create(FLAVOR, _kueue("ResourceFlavor", "default-flavor", {}))
    name = f"{namespace}-usage"
    cq = _team_queue(name, 4)
    cq["spec"]["cohort"] = namespace  # a cohort of its own: other tests' queues lend to "team"
    group = cq["spec"]["resourceGroups"][0]
    group["coveredResources"] = ["cpu", "memory"]
    group["flavors"][0]["resources"].append({"name": "memory", "nominalQuota": "8Gi"})
    await kube.create(CLUSTER_QUEUE, cq)
    lender = _team_queue(f"{namespace}-lender", 2)
    lender["spec"]["cohort"] = namespace
    await kube.create(CLUSTER_QUEUE, lender)
    lq = _kueue("LocalQueue", "usage", {"clusterQueue": name}, namespace)
    await kube.create(LOCAL_QUEUE, lq, namespace=namespace)
    for job_name in ("u1", "u2", "u3"):
        job = _job(job_name, namespace, "usage", 2, "600s")
        container = job["spec"]["template"]["spec"]["containers"][0]
        container["resources"]["requests"]["memory"] = "512Mi"
        await kube.create(BATCHJOB, job, namespace=namespace)
    held = {"default-flavor/cpu": ("6", "2"), "default-flavor/memory": ("3Gi", "0")}

    async def reserved() -> bool:
        status = (await kube.get(CLUSTER_QUEUE, name)).get("status") or {}
        counts = [status.get(k) for k in ("pendingWorkloads", "reservingWorkloads")]
        return counts == [0, 3] and _usage(status, "flavorsReservation") == held

    await eventually(reserved, timeout=90, what="6 CPU (2 borrowed) and 3Gi reserved")
    status = (await kube.get(CLUSTER_QUEUE, name))["status"]
    assert _usage(status, "flavorsUsage") == held
    assert status["admittedWorkloads"] == 3
    lq_held = {k: (v[0], None) for k, v in held.items()}

    async def local_queue_shows_it() -> bool:
        shown = (await kube.get(LOCAL_QUEUE, "usage", namespace)).get("status") or {}
        return _usage(shown, "flavorsReservation") == lq_held

    await eventually(local_queue_shows_it, timeout=30, what="the LocalQueue's reservation")
    v1beta1 = (await kube.get(LOCAL_QUEUE, "usage", namespace))["status"]
    assert _usage(v1beta1, "flavorUsage") == lq_held
    v1beta2 = await kubectl(
        stack, "get", "localqueues.v1beta2.kueue.x-k8s.io", "usage", "-n", namespace, "-o", "json"
    )
    assert _usage(json.loads(v1beta2)["status"], "flavorsUsage") == lq_held

    for job_name in ("u1", "u2", "u3"):
        await kube.delete(BATCHJOB, job_name, namespace, propagation_policy="Background")
    empty = {"default-flavor/cpu": ("0", "0"), "default-flavor/memory": ("0", "0")}

    async def released() -> bool:
        status = (await kube.get(CLUSTER_QUEUE, name)).get("status") or {}
        return status.get("reservingWorkloads") == 0 and (
            _usage(status, "flavorsReservation") == empty
        )

    await eventually(released, timeout=60, what="the reservation back to 0 once the Jobs are gone")


async def test_explain_answers_with_the_reason_the_workload_shows(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    """A Job larger than its ClusterQueue's quota waits; its Workload says why
    (``QuotaReserved=False ExceedsMaxQuota``), and ``shoal explain --bootstrap`` over the
    scheduler's log answers with the same reason and message."""
    with contextlib.suppress(ApiError):
        await kube.create(FLAVOR, _kueue("ResourceFlavor", "default-flavor", {}))
    cq = _team_queue(f"{namespace}-small", 2)
    cq["spec"]["cohort"] = namespace
    await kube.create(CLUSTER_QUEUE, cq)
    lq = _kueue("LocalQueue", "small", {"clusterQueue": f"{namespace}-small"}, namespace)
    await kube.create(LOCAL_QUEUE, lq, namespace=namespace)
    await kube.create(BATCHJOB, _job("big", namespace, "small", 4, "1s"), namespace=namespace)
    shown: Json = {}

    async def explained() -> bool:
        found, _ = await kube.list_all(WORKLOAD, namespace=namespace)
        reserved = _conditions(found[0]).get("QuotaReserved") if found else None
        if reserved is None or reserved["status"] != "False":
            return False
        shown.update(name=found[0]["metadata"]["name"], condition=reserved)
        return True

    await eventually(explained, timeout=60, what="the Workload's QuotaReserved=False")
    assert shown["condition"]["reason"] == "ExceedsMaxQuota"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.cli.main",
        "explain",
        "--bootstrap",
        stack.bootstrap,
        "--topic-prefix",
        stack.config.topic_prefix,
        f"{namespace}/{shown['name']}",
        "-o",
        "json",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # the stack's broker kind: the embedded Tansu takes no idempotent producer
        env={**os.environ, "SHOAL_BROKER": stack.broker_kind},
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    doc = json.loads(out)
    assert doc["state"] == "Pending"
    assert (doc["reason"], doc["message"]) == (
        shown["condition"]["reason"],
        shown["condition"]["message"],
    )
