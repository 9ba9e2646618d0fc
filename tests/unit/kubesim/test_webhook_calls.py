"""kubesim as kube-apiserver calling Shoal's webhook core: mutation applied from the JSON
Patch, a refusal as the API server's webhook error, the HyperNode policy's denial, Kueue's
conversion on the way in and out, and validation switched off leaving mutation on."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.admission import StoreView, Webhooks
from services.kubesim.apierrors import ApiError
from services.kubesim.conversion import from_storage, to_storage
from services.kubesim.definitions import custom_resources
from services.kubesim.registry import Registry
from services.kubesim.store import Store, new_uid
from services.webhook.core.kueue_jobs import KUEUE_QUEUE_LABEL

Obj = dict[str, Any]
REGISTRY = Registry()


def _store(*, validating: bool = True) -> Store:
    store = Store(Registry(), clock=lambda: 1_700_000_000.0, strict_namespaces=False)
    store.webhooks.validating = validating
    return store


def _rtype(group: str, version: str, plural: str) -> Any:
    rtype = REGISTRY.lookup(group, version, plural)
    assert rtype is not None
    return rtype


def _empty_view() -> StoreView:
    return StoreView(list, lambda namespace: None, lambda namespace: False)


def hyper_node() -> Obj:
    return {"metadata": {"name": "s0"}, "spec": {"tier": 1, "members": []}}


def test_a_hypernode_policy_denial_is_the_api_servers_policy_error() -> None:
    (rtype,) = [r for r in custom_resources() if r.kind == "HyperNode"]
    webhooks = Webhooks(_empty_view, uid=new_uid)
    with pytest.raises(ApiError) as raised:
        webhooks("CREATE", rtype, hyper_node(), None)
    denied = (
        "ValidatingAdmissionPolicy 'hypernode-validation-policy' with binding "
        "'hypernode-validation-policy-binding' denied request: member must have at least one member"
    )
    status = raised.value.status()
    assert status["code"] == 422 and status["reason"] == "Invalid"
    assert status["message"] == f'hypernodes.topology.volcano.sh "s0" is forbidden: {denied}'
    assert status["details"]["causes"] == [{"message": denied}]
    webhooks("DELETE", rtype, hyper_node(), None)  # deletes are not validated


def test_a_volcano_webhook_refusal_is_400_with_the_webhooks_name_and_message() -> None:
    """As kube-apiserver's ``ToStatusErr``: Volcano's webhook sets no code (so 400), no
    reason, and the message follows ``admission webhook "<name>" denied the request``."""
    store = _store(validating=False)
    queues = _rtype("scheduling.volcano.sh", "v1beta1", "queues")
    store.create(queues, "", {"metadata": {"name": "default"}, "spec": {}})
    store.webhooks.validating = True
    with pytest.raises(ApiError) as raised:
        store.delete(queues, "", "default")
    status = raised.value.status()
    assert status["code"] == 400 and "reason" not in status
    assert status["message"] == (
        'admission webhook "validatequeue.volcano.sh" denied the request: '
        "`default` queue can not be deleted"
    )


def test_validation_off_still_mutates() -> None:
    store = _store(validating=False)
    jobs = _rtype("batch.volcano.sh", "v1alpha1", "jobs")
    # No Queue exists: the validating webhook would refuse the job.
    task = {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
    created = store.create(jobs, "team", {"metadata": {"name": "j"}, "spec": {"tasks": [task]}})
    assert created["spec"]["queue"] == "default" and created["spec"]["maxRetry"] == 3


def test_a_volcano_job_is_stored_with_the_mutating_webhooks_defaults() -> None:
    store = _store(validating=False)
    jobs = _rtype("batch.volcano.sh", "v1alpha1", "jobs")
    template = {"spec": {"containers": [{"name": "c", "image": "i"}]}}
    spec = {"tasks": [{"replicas": 2, "template": template}], "plugins": {"pytorch": []}}
    created = store.create(jobs, "team", {"metadata": {"name": "j"}, "spec": spec})
    assert created["spec"]["schedulerName"] == "volcano"
    assert created["spec"]["minAvailable"] == 2
    assert created["spec"]["plugins"] == {"pytorch": [], "svc": []}
    task = created["spec"]["tasks"][0]
    assert (task["name"], task["minAvailable"], task["maxRetry"]) == ("default0", 2, 3)


def test_a_job_created_where_a_default_local_queue_exists_is_queued_and_suspended() -> None:
    store = _store()
    local_queues = _rtype("kueue.x-k8s.io", "v1beta1", "localqueues")
    jobs = _rtype("batch", "v1", "jobs")

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


@pytest.mark.parametrize(
    ("namespace", "labels", "gated"),
    [
        ("team", {KUEUE_QUEUE_LABEL: "user-queue"}, True),
        ("team", {}, False),
        ("kube-system", {KUEUE_QUEUE_LABEL: "user-queue"}, False),
    ],
    ids=["queue-labelled", "no-queue", "kube-system"],
)
def test_a_pod_of_a_kueue_queue_is_stored_gated_by_kueues_pod_webhook(
    namespace: str, labels: dict[str, str], gated: bool
) -> None:
    store = _store()
    pods = _rtype("", "v1", "pods")
    body = {
        "metadata": {"name": "p", "labels": labels},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    created = store.create(pods, namespace, body)
    gates = [g["name"] for g in created["spec"].get("schedulingGates") or []]
    managed = created["metadata"]["labels"].get("kueue.x-k8s.io/managed")
    finalizers = created["metadata"].get("finalizers") or []
    if gated:
        assert gates == ["kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology"]
        assert managed == "true" and finalizers == ["kueue.x-k8s.io/managed"]
        assert len(created["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"]) == 8
    else:
        assert (gates, managed, finalizers) == ([], None, [])


@pytest.mark.parametrize(
    "plural",
    ["resourceflavors", "clusterqueues", "localqueues", "workloads", "workloadpriorityclasses",
     "cohorts"],
)  # fmt: skip
def test_every_kueue_kind_is_served_in_both_versions_stored_in_v1beta2(plural: str) -> None:
    for version in ("v1beta1", "v1beta2"):
        rtype = REGISTRY.lookup("kueue.x-k8s.io", version, plural)
        assert rtype is not None and rtype.stored_as == "v1beta2"
        assert bool(rtype.deprecation_warning) == (version == "v1beta1")


def test_kueue_objects_convert_through_the_webhook_in_and_out() -> None:
    rtype = _rtype("kueue.x-k8s.io", "v1beta1", "clusterqueues")
    body = {"apiVersion": "kueue.x-k8s.io/v1beta1", "spec": {"cohort": "team"}}
    stored = to_storage(rtype, body)
    assert stored == {"apiVersion": "kueue.x-k8s.io/v1beta2", "spec": {"cohortName": "team"}}
    assert from_storage(rtype, stored) == body


def test_a_workload_status_write_goes_through_kueues_workload_webhook() -> None:
    """``vworkload.kb.io`` names ``workloads/status``: a status write that reserves quota
    without an admission is refused as kube-apiserver refuses it (403), with Kueue's message;
    one with its admission is stored."""
    store = _store()
    workloads = _rtype("kueue.x-k8s.io", "v1beta2", "workloads")
    pod_set = {"name": "main", "count": 1,
               "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}  # fmt: skip
    body = {"metadata": {"name": "w", "namespace": "ns"}, "spec": {"podSets": [pod_set]}}
    store.create(workloads, "ns", body)
    reserved = {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}  # fmt: skip
    no_admission = {"metadata": {"name": "w"}, "status": {"conditions": [reserved]}}
    with pytest.raises(ApiError) as raised:
        store.update(workloads, "ns", "w", no_admission, status=True)
    status = raised.value.status()
    assert status["code"] == 403 and status["reason"] == "Forbidden"
    assert status["message"] == (
        'admission webhook "vworkload.kb.io" denied the request: status.admission: '
        "Required value: must be set while the QuotaReserved condition is true"
    )
    admission = {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 1}]}
    written = store.update(
        workloads, "ns", "w",
        {"metadata": {"name": "w"}, "status": {"conditions": [reserved], "admission": admission}},
        status=True,
    )  # fmt: skip
    assert written["status"]["admission"] == admission
