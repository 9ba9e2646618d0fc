"""PodGroups for plain pods (Volcano's podgroup controller): which pods get one, its shape, and
the sync of a plain pod as ``Actions`` (create the PodGroup, then annotate the pod)."""

from __future__ import annotations

import pytest

from services.jobcontroller.core import Patch
from services.jobcontroller.podgroups import reconcile_pod
from shared.models import Job, Json, Pod, convert

JOB_OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "etl", "uid": "job-uid",
             "controller": True, "blockOwnerDeletion": True}  # fmt: skip
FINALIZER = "batch.kubernetes.io/job-tracking"


def pod(
    scheduler: str | None = "volcano",
    *,
    annotations: dict[str, str] | None = None,
    owners: list[Json] | None = None,
    phase: str = "Pending",
    priority_class: str | None = None,
    finalizers: list[str] | None = None,
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
                  "annotations": annotations or {}, "ownerReferences": owners or [],
                  "finalizers": finalizers or []}  # fmt: skip
    return convert({"metadata": meta, "spec": spec, "status": {"phase": phase}}, Pod)


def etl_job() -> Job:
    return convert({"metadata": {"name": "etl", "namespace": "data", "uid": "job-uid"}}, Job)


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
    actions = reconcile_pod(candidate, job=None, podgroup_exists=False)
    assert not actions.changes_objects()


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
    actions = reconcile_pod(candidate, job=etl_job(), podgroup_exists=False)
    (pg,) = actions.create
    assert pg["metadata"]["name"] == name
    assert pg["metadata"]["namespace"] == "data"
    assert pg["metadata"]["ownerReferences"] == [owner]
    assert pg["spec"] == {
        "minMember": 1,
        "queue": queue,
        "minResources": {"cpu": "1500m", "memory": "1Gi", "nvidia.com/gpu": "1"},
    }
    annotate = {"metadata": {"annotations": {"scheduling.k8s.io/group-name": name}}}
    # The pod joins the group only after it exists (a failed creation leaves it unannotated,
    # so the next sync tries again).
    assert actions.patch == []
    assert actions.patch_after_create == [Patch("Pod", "data/etl-x7k2p", annotate)]


def test_an_existing_podgroup_is_only_joined() -> None:
    actions = reconcile_pod(pod(owners=[JOB_OWNER]), job=etl_job(), podgroup_exists=True)
    assert actions.create == []
    assert [p.key for p in actions.patch_after_create] == ["data/etl-x7k2p"]


def test_orphans_finalizer_is_released_before_the_podgroup() -> None:
    orphan = pod(owners=[JOB_OWNER], finalizers=[FINALIZER])
    actions = reconcile_pod(orphan, job=None, podgroup_exists=False)
    (release,) = actions.patch
    assert release.key == "data/etl-x7k2p" and release.releases == "pod-uid"
    assert len(actions.create) == 1 and len(actions.patch_after_create) == 1


def test_priority_class_and_scheduler_names_are_honoured() -> None:
    custom = reconcile_pod(
        pod("custom", priority_class="batch"),
        job=None,
        podgroup_exists=False,
        scheduler_names={"custom"},
    )
    assert custom.create[0]["spec"]["priorityClassName"] == "batch"
    volcano = reconcile_pod(
        pod("volcano"), job=None, podgroup_exists=False, scheduler_names={"custom"}
    )
    assert not volcano.changes_objects()
