"""Validation names the field at fault, as ``field.Error`` does."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.validation import validate


def _pod(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    base.update(spec)
    return {"metadata": {"name": "p"}, "spec": base}


@pytest.mark.parametrize(
    ("api_version", "kind", "obj", "fields"),
    [
        ("v1", "Pod", _pod(), []),
        ("v1", "Pod", _pod(containers=[]), ["spec.containers"]),
        ("v1", "Pod", _pod(containers=[{"name": "c"}]), ["spec.containers[0].image"]),
        ("v1", "Pod", _pod(containers=[{"image": "i"}]), ["spec.containers[0].name"]),
        (
            "v1",
            "Pod",
            _pod(containers=[{"name": "c", "image": "i"}] * 2),
            ["spec.containers[1].name"],
        ),
        ("v1", "Pod", _pod(restartPolicy="Sometimes"), ["spec.restartPolicy"]),
        (
            "v1",
            "Pod",
            _pod(
                containers=[{"name": "c", "image": "i", "resources": {"limits": {"memory": "1Qi"}}}]
            ),
            ["spec.containers[0].resources.limits[memory]"],
        ),
        (
            "v1",
            "Pod",
            _pod(
                containers=[
                    {"name": "c", "image": "i", "resources": {"requests": {"cpu": {"m": 1}}}},
                    {"name": "d", "image": "i", "resources": {"requests": {"cpu": "-1"}}},
                    {"name": "e", "image": "i", "resources": {"requests": {"cpu": True}}},
                ]
            ),
            [
                "spec.containers[0].resources.requests[cpu]",
                "spec.containers[1].resources.requests[cpu]",
                "spec.containers[2].resources.requests[cpu]",
            ],
        ),
        (
            "v1",
            "Pod",
            _pod(
                containers=[
                    {"name": "c", "image": "i", "resources": {"requests": {"cpu": 1}}},
                    {"name": "d", "image": "i", "resources": {"requests": {"cpu": 1.0}}},
                    {"name": "e", "image": "i", "resources": {"requests": {"cpu": "1"}}},
                ]
            ),
            [],
        ),
        ("v1", "Pod", {"metadata": {"name": "UPPER"}, "spec": _pod()["spec"]}, ["metadata.name"]),
        ("v1", "Namespace", {"metadata": {"name": "a.b"}}, ["metadata.name"]),
        ("v1", "ConfigMap", {"metadata": {"name": "a.b"}}, []),
        (
            "v1",
            "ConfigMap",
            {"metadata": {"name": "x", "labels": {"k": "bad value"}}},
            ["metadata.labels"],
        ),
        (
            "batch/v1",
            "Job",
            {
                "metadata": {"name": "j"},
                "spec": {"template": {"spec": _pod(restartPolicy="Bad")["spec"]}},
            },
            ["spec.template.spec.restartPolicy"],
        ),
        (
            "batch.volcano.sh/v1alpha1",
            "Job",
            {"metadata": {"name": "j"}, "spec": {}},
            ["spec.tasks"],
        ),
        (
            "kubeflow.org/v1",
            "PyTorchJob",
            {"metadata": {"name": "j"}, "spec": {"pytorchReplicaSpecs": {"Master": {}}}},
            ["spec.pytorchReplicaSpecs[Master].template"],
        ),
        (
            "scheduling.volcano.sh/v1beta1",
            "PodGroup",
            {"metadata": {"name": "g"}, "spec": {"minMember": -1}},
            ["spec.minMember"],
        ),
    ],
    ids=[
        "valid-pod",
        "no-containers",
        "no-image",
        "no-name",
        "duplicate-name",
        "restart-policy",
        "bad-quantity",
        "bad-quantities-unhashable-negative-bool",
        "equal-quantities-of-three-types",
        "upper-case-name",
        "namespace-label",
        "configmap-subdomain",
        "label-value",
        "job-restart-always",
        "vcjob-no-tasks",
        "pytorch-no-template",
        "podgroup-negative",
    ],
)
def test_validation_names_fields(
    api_version: str, kind: str, obj: dict[str, Any], fields: list[str]
) -> None:
    assert [cause[0] for cause in validate(api_version, kind, obj)] == fields
