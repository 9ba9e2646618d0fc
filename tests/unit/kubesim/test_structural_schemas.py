"""kubesim applies each CRD's structural schema as the apiextensions server does: unknown fields
pruned (reported per ``fieldValidation``), defaults filled in, and the schema's checks with the
API server's messages. The schemas are the CRDs Shoal ships (upstream's)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from services.kubesim import structural
from services.kubesim.apierrors import ApiError
from services.kubesim.apiwarnings import Collecting
from services.kubesim.definitions import custom_resources
from services.kubesim.resourcetype import ResourceType

Obj = dict[str, Any]


def rtype(kind: str, group: str) -> ResourceType:
    (found,) = [r for r in custom_resources() if r.kind == kind and r.group == group]
    return found


VCJOB = rtype("Job", "batch.volcano.sh")
PODGROUP = rtype("PodGroup", "scheduling.volcano.sh")
QUEUE = rtype("Queue", "scheduling.volcano.sh")
PYTORCHJOB = rtype("PyTorchJob", "kubeflow.org")


def vcjob(**spec: Any) -> Obj:
    task = {
        "name": "worker",
        "replicas": 2,
        "template": {
            "metadata": {"labels": {"app": "x"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        },
    }
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "ns", "generateName": "kept-"},
        "spec": {"minAvailable": 2, "tasks": [task], **spec},
    }


def _task_spec(obj: Obj) -> Obj:
    spec: Obj = obj["spec"]["tasks"][0]["template"]["spec"]
    return spec


PRUNE = [
    ("known-fields-kept", VCJOB, vcjob(), []),
    ("typo-in-spec", VCJOB, vcjob(minAvaliable=1), ["spec.minAvaliable"]),
    (
        "typo-in-pod-template",
        VCJOB,
        vcjob(tasks=[{"name": "w", "template": {"spec": {"priorityClass": "high"}}}]),
        ["spec.tasks[0].template.spec.priorityClass"],
    ),
    (
        "template-metadata-beyond-embedded-object-meta",
        VCJOB,
        vcjob(tasks=[{"name": "w", "template": {"metadata": {"generateName": "x-"}}}]),
        ["spec.tasks[0].template.metadata.generateName"],
    ),
    (
        "podgroup-status-typo",
        PODGROUP,
        {"metadata": {"name": "pg"}, "spec": {}, "status": {"phase": "Running", "runing": 1}},
        ["status.runing"],
    ),
    (
        "pytorchjob-replica-map",
        PYTORCHJOB,
        {"metadata": {"name": "p"}, "spec": {"pytorchReplicaSpecs": {"Master": {"replica": 1}}}},
        ["spec.pytorchReplicaSpecs.Master.replica"],
    ),
]


@pytest.mark.parametrize(
    ("rt", "obj", "unknown"), [r[1:] for r in PRUNE], ids=[r[0] for r in PRUNE]
)
def test_unknown_fields_are_pruned_and_warned(
    rt: ResourceType, obj: Obj, unknown: list[str]
) -> None:
    body = copy.deepcopy(obj)
    with Collecting() as warnings:
        structural.decode(rt, body, "Warn")
    assert warnings == [f'unknown field "{p}"' for p in unknown]
    assert body["metadata"] == obj["metadata"]  # the object's own metadata is not the schema's
    for path in unknown:
        parent: Any = body
        for part in path.replace("[0]", ".0").split(".")[:-1]:
            parent = parent[int(part)] if part.isdigit() else parent[part]
        assert path.rsplit(".", 1)[-1] not in parent


@pytest.mark.parametrize(
    ("mode", "raises", "warned"),
    [("Strict", True, False), ("Warn", False, True), ("Ignore", False, False)],
    ids=["strict", "warn", "ignore"],
)
def test_field_validation_modes(mode: str, raises: bool, warned: bool) -> None:
    body = vcjob(minAvaliable=1, queu="q")
    with Collecting() as warnings:
        if raises:
            with pytest.raises(ApiError) as err:
                structural.decode(VCJOB, body, mode)
            assert err.value.code == 400
            assert str(err.value) == (
                'Job in version "v1alpha1" cannot be handled as a Job: strict decoding error: '
                'unknown field "spec.minAvaliable", unknown field "spec.queu"'
            )
        else:
            structural.decode(VCJOB, body, mode)
            assert "minAvaliable" not in body["spec"]
    assert bool(warnings) is warned


def test_defaults_fill_absent_fields_and_replace_nulls() -> None:
    body = vcjob()
    _task_spec(body)["containers"][0]["ports"] = [{"containerPort": 80}]
    body["spec"]["queue"] = None
    body["spec"]["priorityClassName"] = None
    structural.decode(VCJOB, body)
    # `protocol` defaults to TCP in the PodSpec of the job's template (upstream's schema).
    assert _task_spec(body)["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert (body["spec"]["queue"], body["spec"]["maxRetry"]) == ("default", 3)  # null, absent
    assert "priorityClassName" not in body["spec"]  # a null of a field without a default


VALIDATE = [
    ("valid", VCJOB, vcjob(), []),
    (
        "type",
        VCJOB,
        vcjob(minAvailable="two"),
        [("spec.minAvailable", "FieldValueTypeInvalid",
          'Invalid value: "string": spec.minAvailable in body must be of type integer: "string"')],
    ),
    (
        "minimum",
        PODGROUP,
        {"metadata": {"name": "pg"}, "spec": {"minMember": -1}},
        [("spec.minMember", "FieldValueInvalid",
          "Invalid value: -1: spec.minMember in body should be greater than or equal to 0")],
    ),
    (
        "enum",
        VCJOB,
        vcjob(policies=[{"event": "PodFailure", "action": "RestartJob"}]),
        [("spec.policies[0].event", "FieldValueNotSupported",
          'Unsupported value: "PodFailure": supported values: "*", "PodPending", "PodRunning", '
          '"PodFailed", "PodEvicted", "Unknown", "TaskCompleted", "OutOfSync", "CommandIssued", '
          '"JobUpdated", "TaskFailed"')],
    ),
    (
        "required",
        PYTORCHJOB,
        {"metadata": {"name": "p"}, "spec": {"runPolicy": {}}},
        [("spec.pytorchReplicaSpecs", "FieldValueRequired", "Required value")],
    ),
    (
        "int-or-string",
        QUEUE,
        {"metadata": {"name": "q"}, "spec": {"capability": {"cpu": 2, "memory": "1Gi"}}},
        [],
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rt", "obj", "causes"), [r[1:] for r in VALIDATE], ids=[r[0] for r in VALIDATE]
)
def test_schema_checks_name_the_field(rt: ResourceType, obj: Obj, causes: list[Any]) -> None:
    assert structural.validate(rt, obj) == causes


def test_each_schema_is_compiled_once() -> None:
    assert structural.compiled(VCJOB) is structural.compiled(VCJOB)
