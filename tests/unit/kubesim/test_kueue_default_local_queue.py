"""Kueue's LocalQueue defaulting in kubesim's job webhook.

Rows named ``upstream: ...`` are kueue ``pkg/controller/jobframework/defaults_test.go``
(``TestApplyDefaultLocalQueue``, every namespace but ``unmanaged-ns`` managed, the default
LocalQueue present); the others cover what that function's callers decide: whether the
namespace has a LocalQueue named ``default``, Kueue's default managedJobsNamespaceSelector,
a job whose controller Kueue manages, and the kinds whose webhooks default it.
"""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.defaulting import KUEUE_QUEUE_LABEL, default_local_queue
from services.kubesim.registry import Registry
from services.kubesim.store import Store

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
    default_local_queue(obj, lambda namespace: namespace != "bare-ns")
    assert (obj["metadata"].get("labels") or {}).get(KUEUE_QUEUE_LABEL, "") == want


def test_a_job_created_where_a_default_local_queue_exists_is_queued_and_suspended() -> None:
    store = Store(Registry(), clock=lambda: 1_700_000_000.0, strict_namespaces=False)
    local_queues = store.registry.lookup("kueue.x-k8s.io", "v1beta1", "localqueues")
    jobs = store.registry.lookup("batch", "v1", "jobs")
    assert local_queues is not None and jobs is not None

    def spec() -> Obj:
        pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
        return {"template": {"spec": pod}}

    before = store.create(jobs, "team", {"metadata": {"name": "early"}, "spec": spec()})
    store.create(
        local_queues, "team", {"metadata": {"name": "default"}, "spec": {"clusterQueue": "cq"}}
    )
    after = store.create(jobs, "team", {"metadata": {"name": "late"}, "spec": spec()})
    assert KUEUE_QUEUE_LABEL not in (before["metadata"].get("labels") or {})
    assert before["spec"]["suspend"] is False
    assert after["metadata"]["labels"][KUEUE_QUEUE_LABEL] == "default"
    assert after["spec"]["suspend"] is True
