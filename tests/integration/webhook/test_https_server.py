"""The webhook's HTTPS server on a free port, over TLS: garbage, an oversized body, unknown
paths and kinds, a cluster it cannot read, and valid reviews; it keeps serving throughout."""

from __future__ import annotations

import datetime
import json
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from prometheus_client import CollectorRegistry

from services.webhook.certmanager import write_serving_files
from services.webhook.certs import issue
from services.webhook.core.queues import ClusterView, Snapshot
from services.webhook.core.review import build_admission_review, build_conversion_review
from services.webhook.core.webhooks import Webhook
from services.webhook.server import (
    MAX_BODY_BYTES,
    WebhookServer,
    build_app,
    server_ssl_context,
    start_server,
)

Obj = dict[str, Any]
UID = "0df28fbd-5f5f-11e8-b7cc-42010a800002"
OPEN_DEFAULT = {"metadata": {"name": "default"}, "spec": {}, "status": {"state": "Open"}}


async def read_cluster(webhook: Webhook, request: Obj) -> ClusterView:
    if request.get("namespace") == "unreadable":
        raise OSError("connection refused")
    return Snapshot([OPEN_DEFAULT])


class Served:
    def __init__(self, server: WebhookServer, client: aiohttp.ClientSession) -> None:
        self.server, self.client = server, client

    async def post(self, path: str, body: bytes, *, host: str = "localhost") -> tuple[int, Any]:
        url = f"https://{host}:{self.server.port}{path}"
        headers = {"Content-Type": "application/json"}
        async with self.client.post(url, data=body, headers=headers) as response:
            text = await response.text()
            try:
                return response.status, json.loads(text)
            except ValueError:
                return response.status, text


@pytest_asyncio.fixture(loop_scope="session")
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    certs = issue(["localhost", "127.0.0.1"], datetime.datetime.now(datetime.UTC))
    cert, key = write_serving_files(certs, tmp_path)
    app = build_app(read=read_cluster, registry=CollectorRegistry())
    server = await start_server(
        app, host="127.0.0.1", port=0, context=server_ssl_context(str(cert), str(key))
    )
    trust = ssl.create_default_context(cadata=certs.ca_cert.decode())
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=trust)) as client:
            yield Served(server, client)
    finally:
        await server.stop()


def job_review(namespace: str = "ns", resource: str = "jobs") -> bytes:
    task = {"name": "t", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "j", "namespace": namespace},
           "spec": {"queue": "default", "minAvailable": 1, "tasks": [task]}}  # fmt: skip
    review = build_admission_review(
        uid=UID,
        operation="CREATE",
        kind=("batch.volcano.sh", "v1alpha1", "Job"),
        resource=("batch.volcano.sh", "v1alpha1", resource),
        name="j",
        namespace=namespace,
        obj=job,
        old=None,
    )
    return json.dumps(review).encode()


REFUSED = [
    ("not JSON", "/volcano/jobs/validate", b"{not json", 400),
    ("not UTF-8", "/volcano/jobs/validate", b"\xff\xfe\x00", 400),
    ("JSON but not a review", "/volcano/jobs/validate", b'{"kind": "Pod"}', 400),
    ("a ConversionReview to an admission path", "/volcano/jobs/validate",
     json.dumps(build_conversion_review(UID, "kueue.x-k8s.io/v1beta2", [])).encode(), 400),
    ("an AdmissionReview to the conversion path", "/kueue/convert", job_review(), 400),
    ("over 3 MiB", "/volcano/jobs/validate", b" " * (MAX_BODY_BYTES + 1), 413),
    ("an unknown path", "/validate-everything", job_review(), 404),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "body", "status"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
async def test_what_is_not_a_review_gets_a_4xx_and_the_server_keeps_serving(
    served: Served, path: str, body: bytes, status: int
) -> None:
    got, _ = await served.post(path, body)
    assert got == status
    got, answer = await served.post("/volcano/jobs/validate", job_review())
    assert (got, answer["response"]) == (200, {"uid": UID, "allowed": True})


async def test_a_valid_volcano_job_review_is_allowed_with_its_uid(served: Served) -> None:
    status, answer = await served.post("/volcano/jobs/validate", job_review())
    assert status == 200
    assert answer == {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {"uid": UID, "allowed": True},
    }


async def test_the_mutation_comes_back_as_a_json_patch(served: Served) -> None:
    status, answer = await served.post("/volcano/jobs/mutate", job_review())
    assert status == 200 and answer["response"]["patchType"] == "JSONPatch"


async def test_a_kind_the_path_does_not_serve_is_refused_in_the_review(served: Served) -> None:
    status, answer = await served.post("/volcano/jobs/validate", job_review(resource="pods"))
    assert status == 200
    assert answer["response"] == {
        "uid": UID,
        "allowed": False,
        "status": {
            "message": "webhook validatejob.volcano.sh does not serve batch.volcano.sh/v1alpha1, "
            "Resource=pods"
        },
    }


async def test_a_cluster_it_cannot_read_refuses_the_write(served: Served) -> None:
    status, answer = await served.post("/volcano/jobs/validate", job_review("unreadable"))
    assert status == 200
    assert answer["response"]["allowed"] is False
    assert answer["response"]["status"]["code"] == 500
    assert "connection refused" in answer["response"]["status"]["message"]


async def test_a_conversion_review_is_converted(served: Served) -> None:
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
          "metadata": {"name": "cq"}, "spec": {"cohort": "team"}}  # fmt: skip
    body = json.dumps(build_conversion_review(UID, "kueue.x-k8s.io/v1beta2", [cq])).encode()
    status, answer = await served.post("/kueue/convert", body)
    assert status == 200
    assert answer["response"]["uid"] == UID
    assert answer["response"]["convertedObjects"][0]["spec"] == {"cohortName": "team"}


async def test_a_webhook_reached_by_ip_address_verifies(served: Served) -> None:
    status, answer = await served.post("/volcano/jobs/validate", job_review(), host="127.0.0.1")
    assert (status, answer["response"]["allowed"]) == (200, True)
