"""Kueue's LocalQueue defaulting in its job webhooks.

Rows named ``upstream: ...`` are kueue ``pkg/controller/jobframework/defaults_test.go``
(``TestApplyDefaultLocalQueue``, every namespace but ``unmanaged-ns`` managed, the default
LocalQueue present); the others cover what that function's callers decide: whether the
namespace has a LocalQueue named ``default``, Kueue's default managedJobsNamespaceSelector,
a job whose controller Kueue manages, and the kinds whose webhooks default it.
"""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.kueue_jobs import KUEUE_QUEUE_LABEL, default_local_queue
from services.webhook.core.queues import Snapshot

Obj = dict[str, Any]


def job(namespace: str, *, queue: str = "", kind: str = "Job", owner: str = "") -> Obj:
    api_version = "batch/v1" if kind == "Job" else "kubeflow.org/v1"
    meta: Obj = {"name": "test-job", "namespace": namespace}
    if queue:
        meta["labels"] = {KUEUE_QUEUE_LABEL: queue}
    if owner:
        meta["ownerReferences"] = [
            {"apiVersion": "kubeflow.org/v1", "kind": owner, "name": "o", "uid": "u"}
            | {"controller": True}
        ]
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


CASES = [
    ("upstream: job in managed namespace gets default queue label", job("managed-ns"), "default"),
    ("upstream: job in unmanaged namespace does not get default queue label",
     job("kube-system"), ""),
    ("upstream: job in managed namespace with existing queue label is not overwritten",
     job("managed-ns", queue="other"), "other"),
    ("no LocalQueue named default in the namespace", job("bare-ns"), ""),
    ("a PyTorchJob gets it too", job("managed-ns", kind="PyTorchJob"), "default"),
    ("a job controlled by a Kueue-managed job is not defaulted",
     job("managed-ns", owner="PyTorchJob"), ""),
    ("kueue-system is not managed", job("kueue-system"), ""),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_apply_default_local_queue(obj: Obj, want: str) -> None:
    cluster = Snapshot(default_local_queues=["managed-ns", "kube-system", "kueue-system"])
    default_local_queue(obj, cluster)
    assert (obj["metadata"].get("labels") or {}).get(KUEUE_QUEUE_LABEL, "") == want
