"""The review handling around the rules: what is not a review, a review a webhook does not
serve, the uid echoed, a mutation's JSON Patch, warnings, DELETE, and ConversionReviews."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from services.webhook.core.queues import Snapshot
from services.webhook.core.review import (
    ReviewError,
    build_conversion_review,
    deny_admission,
    review_admission,
    review_conversion,
)
from services.webhook.core.webhooks import BY_PATH, OPTIONAL, WEBHOOKS, matching
from tests.unit.webhook.reviews import review

Obj = dict[str, Any]
UID = "705ab4f5-6393-11e8-b7cc-42010a800002"
JOB_VALIDATE = BY_PATH["/volcano/jobs/validate"]
QUEUE_VALIDATE = BY_PATH["/volcano/queues/validate"]
KUEUE_JOB = BY_PATH["/kueue/mutate-batch-v1-job"]
PYTORCH_VALIDATE = BY_PATH["/training-operator/validate-kubeflow-org-v1-pytorchjob"]
OPEN_DEFAULT = {"metadata": {"name": "default"}, "spec": {}, "status": {"state": "Open"}}


def volcano_job(tasks: list[Obj]) -> Obj:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "j", "namespace": "ns"},
            "spec": {"queue": "default", "minAvailable": 1, "tasks": tasks}}  # fmt: skip


TASK = {"name": "t", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}
GARBAGE = [
    ("a list", []),
    ("a string", "hello"),
    ("no apiVersion", {"kind": "AdmissionReview", "request": {"uid": UID}}),
    ("v1beta1 review", {"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview",
                        "request": {"uid": UID}}),
    ("a ConversionReview", {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                            "request": {"uid": UID}}),
    ("no request", {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}),
    ("no uid", {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}}),
]  # fmt: skip


@pytest.mark.parametrize("body", [g[1] for g in GARBAGE], ids=[g[0] for g in GARBAGE])
def test_what_is_not_an_admission_review_is_an_error(body: Any) -> None:
    with pytest.raises(ReviewError):
        review_admission(JOB_VALIDATE, body, Snapshot())


def test_the_uid_is_echoed_and_a_valid_job_allowed() -> None:
    sent = review("batch.volcano.sh", "v1alpha1", "Job", "jobs", volcano_job([TASK]))
    answer = review_admission(JOB_VALIDATE, sent, Snapshot([OPEN_DEFAULT]))
    assert answer == {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {"uid": UID, "allowed": True},
    }


def test_a_refusal_carries_upstreams_message() -> None:
    sent = review("batch.volcano.sh", "v1alpha1", "Job", "jobs", volcano_job([TASK, TASK]))
    response = review_admission(JOB_VALIDATE, sent, Snapshot([OPEN_DEFAULT]))["response"]
    assert response == {"uid": UID, "allowed": False,
                        "status": {"message": "duplicated task name t;"}}  # fmt: skip


WRONG = [
    ("another resource", ("batch", "v1", "Job", "jobs"), "CREATE",
     "webhook validatejob.volcano.sh does not serve batch/v1, Resource=jobs"),
    ("another version", ("batch.volcano.sh", "v1", "Job", "jobs"), "CREATE",
     "webhook validatejob.volcano.sh does not serve batch.volcano.sh/v1, Resource=jobs"),
    ("an operation it is not registered for", ("batch.volcano.sh", "v1alpha1", "Job", "jobs"),
     "CONNECT", "webhook validatejob.volcano.sh does not serve CONNECT"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("gvkr", "operation", "message"), [w[1:] for w in WRONG], ids=[w[0] for w in WRONG]
)
def test_a_review_the_webhook_does_not_serve_is_refused(
    gvkr: tuple[str, str, str, str], operation: str, message: str
) -> None:
    sent = review(*gvkr, volcano_job([TASK]), operation=operation)
    response = review_admission(JOB_VALIDATE, sent, Snapshot([OPEN_DEFAULT]))["response"]
    assert response == {"uid": UID, "allowed": False, "status": {"message": message}}


def test_an_object_of_the_wrong_shape_is_refused_not_raised() -> None:
    obj = volcano_job([{**TASK, "replicas": "two"}])
    sent = review("batch.volcano.sh", "v1alpha1", "Job", "jobs", obj)
    response = review_admission(JOB_VALIDATE, sent, Snapshot([OPEN_DEFAULT]))["response"]
    assert response["allowed"] is False
    assert response["status"]["message"].startswith("webhook validatejob.volcano.sh cannot read")


def test_a_mutation_is_a_base64_json_patch() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "namespace": "ns",
                        "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
           "spec": {"suspend": False}}  # fmt: skip
    response = review_admission(KUEUE_JOB, review("batch", "v1", "Job", "jobs", job), Snapshot())[
        "response"
    ]
    assert response["patchType"] == "JSONPatch"
    assert json.loads(base64.b64decode(response["patch"])) == [
        {"op": "replace", "path": "/spec/suspend", "value": True}
    ]
    assert (response["uid"], response["allowed"]) == (UID, True)


def test_no_mutation_has_no_patch() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ns"}}
    response = review_admission(KUEUE_JOB, review("batch", "v1", "Job", "jobs", job), Snapshot())[
        "response"
    ]
    assert response == {"uid": UID, "allowed": True}


def test_warnings_are_returned() -> None:
    template = {"spec": {"containers": [{"name": "pytorch", "image": "i"}]}}
    replicas = {"Worker": {"replicas": 1, "template": template}}
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"elasticPolicy": {"nProcPerNode": 2}, "pytorchReplicaSpecs": replicas},
    }
    sent = review("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs", job)
    response = review_admission(PYTORCH_VALIDATE, sent, Snapshot())["response"]
    assert response["allowed"] is True
    assert response["warnings"] == [
        "spec.elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead"
    ]


def test_delete_judges_the_old_object() -> None:
    sent = review("scheduling.volcano.sh", "v1beta1", "Queue", "queues", {}, operation="DELETE")
    sent["request"]["object"] = None
    sent["request"]["oldObject"] = {"metadata": {"name": "default"}}
    response = review_admission(QUEUE_VALIDATE, sent, Snapshot())["response"]
    assert response["status"]["message"] == "`default` queue can not be deleted"


def test_deny_admission_keeps_the_uid_and_sets_the_code() -> None:
    sent = review("batch", "v1", "Job", "jobs", {})
    answer = deny_admission(sent, "cannot read", code=500)
    assert answer["response"] == {
        "uid": UID,
        "allowed": False,
        "status": {"message": "cannot read", "code": 500},
    }


def test_every_path_is_unique_and_matching_follows_the_rules() -> None:
    assert len({w.path for w in WEBHOOKS}) == len(WEBHOOKS)
    names = [w.name for w in matching("batch", "v1", "jobs", "CREATE", mutating=True)]
    assert names == ["mjob.kb.io"]
    assert matching("", "v1", "pods", "CREATE", mutating=False) == ()  # optional: not asked for
    chosen = frozenset(OPTIONAL)
    pods = [w.name for w in matching("", "v1", "pods", "CREATE", mutating=False, optional=chosen)]
    assert pods == ["validatepod.volcano.sh"]
    assert matching("", "v1", "pods", "UPDATE", mutating=False, optional=chosen) == ()


def cluster_queue(version: str, spec: Obj) -> Obj:
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "ClusterQueue",
            "metadata": {"name": "cq"}, "spec": spec}  # fmt: skip


def test_a_conversion_review_converts_every_object() -> None:
    objects = [cluster_queue("v1beta1", {"cohort": "team"}), cluster_queue("v1beta2", {})]
    answer = review_conversion(build_conversion_review(UID, "kueue.x-k8s.io/v1beta2", objects))
    assert answer["response"] == {
        "uid": UID,
        "convertedObjects": [cluster_queue("v1beta2", {"cohortName": "team"}),
                             cluster_queue("v1beta2", {})],
        "result": {"status": "Success"},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("desired", "objects"),
    [
        ("kueue.x-k8s.io/v1", [cluster_queue("v1beta1", {})]),
        ("kueue.x-k8s.io/v1beta2", [{"apiVersion": "batch/v1", "kind": "Job"}]),
        ("kueue.x-k8s.io/v1beta2", ["not an object"]),
    ],
    ids=["unknown-version", "not-a-kueue-object", "not-an-object"],
)
def test_a_conversion_it_cannot_do_fails(desired: str, objects: list[Any]) -> None:
    answer = review_conversion(build_conversion_review(UID, desired, objects))
    assert answer["response"]["uid"] == UID
    assert answer["response"]["result"]["status"] == "Failure"
    assert answer["response"]["convertedObjects"] == []


def test_what_is_not_a_conversion_review_is_an_error() -> None:
    with pytest.raises(ReviewError):
        review_conversion({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"})


def test_kueue_workload_status_writes_go_to_the_workload_webhook_alone() -> None:
    """``vworkload.kb.io`` names ``workloads/status`` in its rule (Kueue has no LocalQueue
    webhook: its rules are the CRD's CEL since kueue#1938)."""
    group, version = "kueue.x-k8s.io", "v1beta2"
    status = matching(group, version, "workloads", "UPDATE", mutating=False, subresource="status")
    assert [w.name for w in status] == ["vworkload.kb.io"]
    assert matching(group, version, "clusterqueues", "UPDATE", mutating=False,
                    subresource="status") == ()  # fmt: skip
    assert matching(group, version, "localqueues", "UPDATE", mutating=False) == ()
    assert matching(group, version, "localqueues", "CREATE", mutating=True) == ()


def test_a_status_review_is_judged_by_a_webhook_whose_rule_names_the_subresource() -> None:
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": "w", "namespace": "ns"},
          "spec": {"podSets": [{"name": "main", "count": 1}]},
          "status": {"reclaimablePods": [{"name": "main", "count": 2}]}}  # fmt: skip
    sent = review("kueue.x-k8s.io", "v1beta2", "Workload", "workloads", wl, operation="UPDATE")
    sent["request"]["oldObject"] = wl
    sent["request"]["subResource"] = "status"
    workload_hook = BY_PATH["/kueue/validate-kueue-x-k8s-io-v1beta2-workload"]
    answer = review_admission(workload_hook, sent, Snapshot())["response"]
    assert answer["status"] == {
        "message": "status.reclaimablePods[main].count: Invalid value: 2: "
        "should be less or equal to 1",
        "code": 403,
        "reason": "Forbidden",
    }
    queue_hook = BY_PATH["/kueue/validate-kueue-x-k8s-io-v1beta2-clusterqueue"]
    refused = review_admission(queue_hook, sent, Snapshot())["response"]
    assert refused["status"]["message"] == (
        "webhook vclusterqueue.kb.io does not serve kueue.x-k8s.io/v1beta2, "
        "Resource=workloads/status"
    )
