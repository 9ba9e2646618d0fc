"""Admission in kubesim as on a real cluster: Volcano's and the training operator's webhooks
refuse as kube-apiserver reports a webhook's refusal (Volcano's 400, controller-runtime's 403)
with upstream's message (Volcano's own invalid examples, via kubectl, are in
tests/e2e/test_webhook_admission.py, on both control planes), Kubernetes'
batch/v1 Job validation and the API server's size limits refuse with 422 / 413."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from services.kubesim.app import KubeSim

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
Obj = dict[str, Any]


async def call(sim: KubeSim, method: str, path: str, body: Obj | bytes | None = None,
               content_type: str = "application/json") -> tuple[int, Obj]:  # fmt: skip
    data = body if isinstance(body, bytes) else json.dumps(body).encode() if body else None
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, sim.url + path, data=data, headers={"Content-Type": content_type}
        ) as response,
    ):
        return response.status, await response.json()


def _vcjob(name: str, queue: str, replicas: int = 1) -> Obj:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "queue": queue,
            "tasks": [{"name": "t", "replicas": replicas, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}],
        },
    }  # fmt: skip


VCJOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
PODGROUPS = "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups"
QUEUES = "/apis/scheduling.volcano.sh/v1beta1/queues"
PYTORCHJOBS = "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs"
JOBS = "/apis/batch/v1/namespaces/default/jobs"


async def test_job_to_missing_or_closed_queue_is_refused(sim: KubeSim) -> None:
    code, status = await call(sim, "POST", VCJOBS, _vcjob("lost", "nowhere"))
    assert code == 400 and "reason" not in status
    assert status["message"].endswith(
        'denied the request: unable to find job queue: queue.scheduling.volcano.sh "nowhere" '
        "not found;"
    )
    closed = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
              "metadata": {"name": "shut"}, "spec": {"weight": 1}}  # fmt: skip
    assert (await call(sim, "POST", QUEUES, closed))[0] == 201
    code, queue = await call(sim, "GET", f"{QUEUES}/shut")
    queue["status"] = {"state": "Closed"}
    assert (await call(sim, "PUT", f"{QUEUES}/shut/status", queue))[0] == 200
    code, status = await call(sim, "POST", VCJOBS, _vcjob("late", "shut"))
    assert code == 400
    assert (
        "can only submit job to queue with state `Open`, queue `shut` status is `Closed`;"
        in (status["message"])
    )
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "pg"}, "spec": {"queue": "nowhere", "minMember": 1}}  # fmt: skip
    code, status = await call(sim, "POST", PODGROUPS, pg)
    assert code == 400 and 'admission webhook "validatepodgroup.volcano.sh"' in status["message"]


async def test_default_queue_cannot_be_deleted(sim: KubeSim) -> None:
    code, status = await call(sim, "DELETE", f"{QUEUES}/default")
    assert code == 400
    assert status["message"] == (
        'admission webhook "validatequeue.volcano.sh" denied the request: '
        "`default` queue can not be deleted"
    )


async def test_pytorchjob_master_must_be_one(sim: KubeSim) -> None:
    replica = {"replicas": 2, "template": {"spec": {"containers": [
        {"name": "pytorch", "image": "pytorch"}]}}}  # fmt: skip
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "pt"},
           "spec": {"pytorchReplicaSpecs": {"Master": replica}}}  # fmt: skip
    code, status = await call(sim, "POST", PYTORCHJOBS, job)
    assert (code, status["reason"]) == (403, "Forbidden")  # controller-runtime's Denied
    assert status["message"] == (
        'admission webhook "validator.pytorchjob.training-operator.kubeflow.org" denied the '
        "request: spec.pytorchReplicaSpecs[Master].replicas: Forbidden: must be 1"
    )


def _job(name: str, **spec: Any) -> Obj:
    template = {"spec": {"restartPolicy": spec.pop("restartPolicy", "Never"),
                         "containers": [{"name": "c", "image": "busybox"}]}}  # fmt: skip
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": template, **spec}}  # fmt: skip


@pytest.mark.parametrize(
    ("job", "message"),
    [
        (_job("pfp", restartPolicy="OnFailure",
              podFailurePolicy={"rules": [{"action": "FailJob", "onExitCodes": {
                  "operator": "In", "values": [1]}}]}),
         'Job.batch "pfp" is invalid: spec.template.spec.restartPolicy: Invalid value: '
         '"OnFailure": only "Never" is supported when podFailurePolicy is specified'),
        (_job("per-index", backoffLimitPerIndex=1),
         'Job.batch "per-index" is invalid: spec.backoffLimitPerIndex: Invalid value: 1: '
         "requires indexed completion mode"),
        (_job("indexed", completionMode="Indexed", parallelism=2),
         'Job.batch "indexed" is invalid: spec.completions: Required value: when completion '
         "mode is Indexed"),
        (_job("manual", manualSelector=True, selector={"matchLabels": {"a": "b"}}),
         'Job.batch "manual" is invalid: spec.template.metadata.labels: Invalid value: null: '
         "`selector` does not match template `labels`"),
    ],
    ids=["pod-failure-policy-needs-never", "per-index-needs-indexed", "indexed-needs-completions",
         "manual-selector-must-match-labels"],
)  # fmt: skip
async def test_batch_job_validation(sim: KubeSim, job: Obj, message: str) -> None:
    code, status = await call(sim, "POST", JOBS, job)
    assert (code, status["reason"], status["message"]) == (422, "Invalid", message)


async def test_batch_job_template_is_immutable(sim: KubeSim) -> None:
    assert (await call(sim, "POST", JOBS, _job("frozen")))[0] == 201
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "other"}]}}}}
    code, status = await call(sim, "PATCH", f"{JOBS}/frozen", patch, "application/merge-patch+json")
    assert code == 422
    assert status["message"].startswith('Job.batch "frozen" is invalid: spec.template: ')
    assert status["message"].endswith(": field is immutable")


async def test_request_body_over_3_mib_is_413(sim: KubeSim) -> None:
    body = json.dumps({"metadata": {"name": "big"}, "data": {"x": "y" * (3 * 1024 * 1024)}})
    code, status = await call(sim, "POST", "/api/v1/namespaces/default/configmaps", body.encode())
    assert (code, status["reason"]) == (413, "RequestEntityTooLarge")
    assert status["message"] == "Request entity too large: limit is 3145728"


async def test_annotations_over_256_kib_are_422(sim: KubeSim) -> None:
    body = {"metadata": {"name": "noted", "annotations": {"a": "b" * (256 * 1024)}}}
    code, status = await call(sim, "POST", "/api/v1/namespaces/default/configmaps", body)
    assert code == 422
    assert status["message"] == (
        'ConfigMap "noted" is invalid: metadata.annotations: Too long: may not be more than '
        "262144 bytes"
    )


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/nodes", {"metadata": {"name": "huge"},
                           "status": {"capacity": {"cpu": "1e30", "memory": "1Gi"}}},
         "status.capacity[cpu]"),
        ("/api/v1/nodes", {"metadata": {"name": "deep"},
                           "status": {"capacity": {"cpu": "4", "memory": "16Ei"}}},
         "status.capacity[memory]"),
    ],
    ids=["node-cpu-1e30", "node-memory-16Ei"],
)  # fmt: skip
async def test_absurd_sizes_are_422(sim: KubeSim, path: str, body: Obj, field: str) -> None:
    code, status = await call(sim, "POST", path, body)
    assert code == 422
    assert f"{field}: Invalid value: " in status["message"]
    assert status["details"]["causes"][0]["field"] == field


async def test_a_billion_replicas_are_stored_as_by_kube_apiserver(sim: KubeSim) -> None:
    """Upstream's CRD and webhook set no bound on a task's replicas: the job controller refuses
    such a job with an Event (tests/e2e/test_live_poison.py), not the API server."""
    code, stored = await call(sim, "POST", VCJOBS, _vcjob("legion", "default", 1_000_000_000))
    assert code == 201, stored
    assert stored["spec"]["tasks"][0]["replicas"] == 1_000_000_000


async def test_webhook_warnings_reach_the_client(sim: KubeSim) -> None:
    replica = {"replicas": 1, "template": {"spec": {"containers": [
        {"name": "pytorch", "image": "pytorch"}]}}}  # fmt: skip
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "elastic"},
           "spec": {"elasticPolicy": {"nProcPerNode": 1},
                    "pytorchReplicaSpecs": {"Master": replica, "Worker": replica}}}  # fmt: skip
    async with (
        aiohttp.ClientSession() as session,
        session.post(sim.url + PYTORCHJOBS, json=job) as response,
    ):
        assert response.status == 201
        assert response.headers.getall("Warning") == [
            '299 - "spec.elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead"'
        ]
