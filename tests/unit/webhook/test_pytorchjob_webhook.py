"""Ported from kubeflow/training-operator release-1.9
pkg/webhooks/pytorch/pytorchjob_webhook_test.go (``TestValidateV1PyTorchJob``). Upstream
compares field errors by type and path, ignoring detail and value; each row here lists the
expected errors' "<path>: <type>" prefixes."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.pytorchjob import validate_pytorchjob

Obj = dict[str, Any]
IMAGE = "gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0"
WORKERS = "spec.pytorchReplicaSpecs[Worker]"
DEPRECATED = "spec.elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead"


def replica(replicas: int | None = 1, containers: list[Obj] | None = None) -> Obj:
    out: Obj = {"template": {"spec": {"containers": containers if containers is not None else [
        {"name": "pytorch", "image": IMAGE}]}}}  # fmt: skip
    if replicas is not None:
        out["replicas"] = replicas
    return out


VALID_SPECS = {"Master": replica(), "Worker": replica()}


def job(name: str = "test", **spec: Any) -> Obj:
    return {"metadata": {"name": name}, "spec": spec}


CASES = [
    ("valid_PyTorchJob",
     None, job(runPolicy={"managedBy": "kubeflow.org/training-operator"},
               elasticPolicy={"rdzvBackend": "c10d"}, pytorchReplicaSpecs=VALID_SPECS), [], []),
    ("pytorchJob_name_does_not_meet_DNS1035",
     None, job("0-test", pytorchReplicaSpecs=VALID_SPECS), ["metadata.name: Invalid value"], []),
    ("no_containers",
     None, job(pytorchReplicaSpecs={"Worker": replica(None, [])}),
     [f"{WORKERS}.template.spec.containers: Required value"] * 2, []),
    ("image_is_empty",
     None, job(pytorchReplicaSpecs={"Worker": replica(None, [{"name": "pytorch", "image": ""}])}),
     [f"{WORKERS}.template.spec.containers[0].image: Required value"], []),
    ("pytorchJob_default_container_name_doesn't_present",
     None, job(pytorchReplicaSpecs={"Worker": replica(None, [{"name": "", "image": IMAGE}])}),
     [f"{WORKERS}.template.spec.containers: Required value"], []),
    ("the_number_of_replicas_in_masterReplica_is_other_than_1",
     None, job(pytorchReplicaSpecs={"Master": replica(2)}),
     ["spec.pytorchReplicaSpecs[Master].replicas: Forbidden"], []),
    ("Spec.ElasticPolicy.NProcPerNode_are_set",
     None, job(elasticPolicy={"nProcPerNode": 1},
               pytorchReplicaSpecs={"Master": replica(), "Worker": replica()}), [], [DEPRECATED]),
    ("Spec.NprocPerNode_and_Spec.ElasticPolicy.NProcPerNode_are_set",
     None, job(nprocPerNode="1", elasticPolicy={"nProcPerNode": 1},
               pytorchReplicaSpecs={"Master": replica(), "Worker": replica()}),
     ["spec.elasticPolicy.nProcPerNode: Forbidden"], [DEPRECATED]),
    ("attempt_to_set_unsupported_managedBy_controller_name_gets_rejected",
     None, job(runPolicy={"managedBy": "other-job-controller"}, pytorchReplicaSpecs=VALID_SPECS),
     ["spec.runPolicy.managedBy: Unsupported value"], []),
    ("attempt_to_update_the_managedBy_field_gets_rejected",
     job(runPolicy={"managedBy": "kubeflow.org/training-operator"},
         pytorchReplicaSpecs=VALID_SPECS),
     job(runPolicy={"managedBy": "kueue.x-k8s.io/multikueue"}, pytorchReplicaSpecs=VALID_SPECS),
     ["spec.runPolicy.managedBy: Invalid value"], []),
    ("attempt_to_configure_elasticPolicy_when_no_worker_is_configured",
     None, job(elasticPolicy={}, pytorchReplicaSpecs={"Master": replica()}),
     [f"{WORKERS}: Required value"], []),
    ("attempt_to_configure_worker_with_0_replicas",
     None, job(elasticPolicy={}, pytorchReplicaSpecs={"Worker": replica(0)}),
     [f"{WORKERS}.replicas: Forbidden"], []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "errors", "warnings"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_validate_v1_pytorchjob(
    old: Obj | None, new: Obj, errors: list[str], warnings: list[str]
) -> None:
    got_warnings, got_errors = validate_pytorchjob(old, new)
    assert sorted(got_warnings) == sorted(warnings)
    assert len(got_errors) == len(errors)
    for got, want in zip(got_errors, errors, strict=True):
        assert got.startswith(want), got
