"""What the webhook service reads before a review: the namespace's default LocalQueue only
when Kueue's webhooks could use it (an object naming no queue, in a managed namespace, not
controlled by a Kueue job kind)."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.webhooks import BY_PATH
from services.webhook.lookups import ClusterReader
from shared.kube.client import ApiError

Obj = dict[str, Any]
POD_WEBHOOK = BY_PATH["/kueue/mutate--v1-pod"]


class CountingKube:
    """Answers a GET of the ``default`` LocalQueue as present, counting the GETs."""

    def __init__(self) -> None:
        self.gets = 0

    async def get(self, rt: Any, name: str, namespace: str | None = None) -> Obj:
        self.gets += 1
        if name != "default":
            raise ApiError(404, "NotFound", "not found")
        return {"metadata": {"name": name, "namespace": namespace}}


def _request(namespace: str, labels: dict[str, str], owner: str = "") -> Obj:
    meta: Obj = {"name": "p", "namespace": namespace, "labels": labels}
    if owner:
        meta["ownerReferences"] = [
            {"apiVersion": "batch/v1", "kind": owner, "name": "o", "uid": "u", "controller": True}
        ]
    return {"namespace": namespace, "object": {"metadata": meta}}


@pytest.mark.parametrize(
    ("request_", "reads"),
    [
        (_request("team", {}), 1),
        (_request("team", {"kueue.x-k8s.io/queue-name": "q"}), 0),
        (_request("kube-system", {}), 0),
        (_request("team", {}, owner="Job"), 0),
        (_request("team", {}, owner="CronJob"), 1),
    ],
    ids=["no-queue", "queue-named", "unmanaged-namespace", "job-pod", "cronjob-owned"],
)
async def test_the_default_local_queue_is_read_only_when_it_can_apply(
    request_: Obj, reads: int
) -> None:
    kube = CountingKube()
    snapshot = await ClusterReader(kube).snapshot(POD_WEBHOOK, request_)  # type: ignore[arg-type]
    assert kube.gets == reads
    assert snapshot.default_local_queue_exists(request_["namespace"]) is bool(reads)
