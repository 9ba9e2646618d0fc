"""PodGroups for plain pods (Volcano's podgroup controller): which pods get one, and its shape."""

from __future__ import annotations

import pytest

from services.jobcontroller.podgroups import podgroup_for_pod
from shared.models import Json, Pod, convert

JOB_OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "etl", "uid": "job-uid",
             "controller": True, "blockOwnerDeletion": True}  # fmt: skip


def pod(
    scheduler: str | None = "volcano",
    *,
    annotations: dict[str, str] | None = None,
    owners: list[Json] | None = None,
    phase: str = "Pending",
    priority_class: str | None = None,
) -> Pod:
    spec: Json = {
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}},
            {"name": "b", "resources": {"limits": {"cpu": "1", "nvidia.com/gpu": "1"}}},
        ]
    }
    if scheduler:
        spec["schedulerName"] = scheduler
    if priority_class:
        spec["priorityClassName"] = priority_class
    meta: Json = {"name": "etl-x7k2p", "namespace": "data", "uid": "pod-uid",
                  "annotations": annotations or {}, "ownerReferences": owners or []}  # fmt: skip
    return convert({"metadata": meta, "spec": spec, "status": {"phase": phase}}, Pod)


@pytest.mark.parametrize(
    "candidate",
    [
        pod(None),
        pod("default-scheduler"),
        pod(annotations={"scheduling.k8s.io/group-name": "existing"}),
        pod(phase="Succeeded"),
    ],
    ids=["no-scheduler-name", "default-scheduler", "already-grouped", "finished"],
)
def test_pods_that_need_no_podgroup(candidate: Pod) -> None:
    assert podgroup_for_pod(candidate) is None


@pytest.mark.parametrize(
    ("candidate", "name", "queue", "owner"),
    [
        (pod("volcano", owners=[JOB_OWNER]), "podgroup-job-uid", "default", JOB_OWNER),
        (
            pod("shoal", annotations={"scheduling.volcano.sh/queue-name": "etl-q"}),
            "podgroup-pod-uid",
            "etl-q",
            {"apiVersion": "v1", "kind": "Pod", "name": "etl-x7k2p", "uid": "pod-uid",
             "controller": True},
        ),
    ],
    ids=["owned-by-batch-job", "bare-pod-with-queue-annotation"],
)  # fmt: skip
def test_podgroup_for_plain_pod(candidate: Pod, name: str, queue: str, owner: Json) -> None:
    result = podgroup_for_pod(candidate)
    assert result is not None
    pg = result.podgroup
    assert pg["metadata"]["name"] == name
    assert pg["metadata"]["namespace"] == "data"
    assert pg["metadata"]["ownerReferences"] == [owner]
    assert pg["spec"] == {
        "minMember": 1,
        "queue": queue,
        "minResources": {"cpu": "1500m", "memory": "1Gi", "nvidia.com/gpu": "1"},
    }
    assert result.pod_patch == {"metadata": {"annotations": {"scheduling.k8s.io/group-name": name}}}


def test_priority_class_and_scheduler_names_are_honoured() -> None:
    result = podgroup_for_pod(pod("custom", priority_class="batch"), scheduler_names={"custom"})
    assert result is not None
    assert result.podgroup["spec"]["priorityClassName"] == "batch"
    assert podgroup_for_pod(pod("volcano"), scheduler_names={"custom"}) is None
