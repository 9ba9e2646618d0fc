"""Volcano Job: the PodGroup, the pods and the plugin objects a sync creates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from services.jobcontroller.core import Observed
from services.jobcontroller.volcanojob import reconcile
from services.jobcontroller.volcanojob.objects import min_resources
from services.jobcontroller.volcanojob.spec import job_view
from shared.errors import QuantityError, UserError
from shared.models import Json, VolcanoJob, convert, load_manifests, of_kind
from shared.models.volcano import VolcanoJobStatus
from tests.unit.jobcontroller.statusjson import status_json
from tests.unit.jobcontroller.volcano_cases import (
    NOW,
    PG_NAME,
    UID,
    all_running,
    created_names,
    deleted,
    phase_of,
    run,
    vcjob,
    vcpod,
)

DATA = Path(__file__).parents[2] / "data" / "jobcontroller"


def test_new_job_creates_only_its_podgroup_and_turns_pending() -> None:
    actions = run(vcjob(), pg=None)
    assert [obj["kind"] for obj in actions.create] == ["PodGroup"]
    pg = actions.create[0]
    assert pg["metadata"]["name"] == PG_NAME
    assert pg["metadata"]["ownerReferences"][0] == {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train", "uid": UID,
        "controller": True, "blockOwnerDeletion": True,
    }  # fmt: skip
    assert pg["spec"] == {
        "minMember": 3,
        "minTaskMember": {"master": 1, "worker": 2},
        "queue": "default",
        "minResources": {"cpu": "3"},
    }
    assert actions.status is not None
    assert status_json(actions)["state"] == {
        "phase": "Pending",
        "lastTransitionTime": "2024-05-01T10:00:00Z",
    }
    assert status_json(actions)["conditions"] == [
        {"status": "Pending", "lastTransitionTime": "2024-05-01T10:00:00Z"}
    ]
    assert status_json(actions)["minAvailable"] == 3


@pytest.mark.parametrize(
    ("pg_phase", "pods_created"),
    [("Pending", 0), ("Inqueue", 3), ("Running", 3)],
    ids=["podgroup-pending-holds-pods", "inqueue-creates", "running-creates"],
)
def test_pods_wait_until_the_podgroup_is_admitted(pg_phase: str, pods_created: int) -> None:
    actions = run(vcjob(phase="Pending"), pg=pg_phase)
    assert len(created_names(actions)) == pods_created


def test_pod_carries_volcano_annotations_labels_and_owner() -> None:
    job = vcjob(phase="Pending", version=2, retry=1, queue="research", priorityClassName="high")
    pods = {p["metadata"]["name"]: p for p in run(job).create if p["kind"] == "Pod"}
    assert sorted(pods) == ["train-master-0", "train-worker-0", "train-worker-1"]
    pod = pods["train-worker-1"]
    assert pod["metadata"]["annotations"] == {
        "volcano.sh/task-index": "1",
        "volcano.sh/task-spec": "worker",
        "scheduling.k8s.io/group-name": PG_NAME,
        "volcano.sh/job-name": "train",
        "volcano.sh/queue-name": "research",
        "volcano.sh/job-version": "2",
        "volcano.sh/template-uid": "train-worker",
        "volcano.sh/job-retry-count": "1",
    }
    assert pod["metadata"]["labels"] == {
        "volcano.sh/task-index": "1",
        "volcano.sh/job-name": "train",
        "volcano.sh/task-spec": "worker",
        "volcano.sh/job-namespace": "ns",
        "volcano.sh/queue-name": "research",
    }
    assert pod["spec"]["schedulerName"] == "volcano"
    assert pod["spec"]["priorityClassName"] == "high"
    assert pod["metadata"]["ownerReferences"][0]["uid"] == UID


def test_existing_pods_are_counted_and_missing_ones_created() -> None:
    actions = run(vcjob(phase="Pending"), [vcpod("master", 0), vcpod("worker", 1, "Pending")])
    assert created_names(actions) == ["train-worker-0"]
    assert actions.status is not None
    assert (status_json(actions)["running"], status_json(actions)["pending"]) == (1, 2)
    assert status_json(actions)["taskStatusCount"] == {
        "master": {"phase": {"Running": 1}},
        "worker": {"phase": {"Pending": 2}},
    }


def test_scale_down_deletes_pods_beyond_replicas() -> None:
    job = vcjob((("master", 1), ("worker", 1)), phase="Running")
    actions = run(job, all_running())
    assert deleted(actions) == ["ns/train-worker-1"]
    assert status_json(actions)["terminating"] == 1


@pytest.mark.parametrize(
    ("task_min", "min_available", "expected_cpu"),
    [
        ({"master": 1, "worker": 2}, 3, "3"),
        ({"master": 1, "worker": 1}, 2, "2"),
        ({"master": 1, "worker": 0}, 2, "2"),
        ({"master": 1, "worker": 1}, 1, "1"),
    ],
    ids=["all", "task-minimums", "topped-up-from-spare-replicas", "capped-by-job-minimum"],
)
def test_podgroup_min_resources_count_the_first_min_available_pods(
    task_min: dict[str, int], min_available: int, expected_cpu: str
) -> None:
    job = vcjob(task_min=task_min, minAvailable=min_available)
    pg = run(job, pg=None).create[0]
    assert pg["spec"]["minMember"] == min_available
    assert pg["spec"]["minResources"] == {"cpu": expected_cpu}


@pytest.mark.parametrize(
    ("topology", "expected"),
    [
        ({"mode": "hard", "highestTierAllowed": 1}, {"mode": "hard", "highestTierAllowed": 1}),
        ({"highestTierName": "rack"}, {"mode": "hard", "highestTierName": "rack"}),
        (
            {"mode": "soft", "highestTierAllowed": 2, "highestTierName": "rack"},
            {"mode": "soft", "highestTierAllowed": 2},
        ),
    ],
    ids=["hard-tier", "tier-name-mode-defaulted", "tier-wins-over-name"],
)
def test_podgroup_gets_the_jobs_network_topology(topology: dict[str, Any], expected: Json) -> None:
    pg = run(vcjob(networkTopology=topology), pg=None).create[0]
    assert pg["spec"]["networkTopology"] == expected


def test_podgroup_spec_drift_is_patched() -> None:
    actions = run(vcjob(phase="Pending", minAvailable=2))
    assert [(p.kind, p.key) for p in actions.patch] == [("PodGroup", f"ns/{PG_NAME}")]
    assert actions.patch[0].patch["spec"]["minMember"] == 2


def test_mpi_job_with_env_svc_ssh_plugins() -> None:
    text = (DATA / "volcano-mpi-job.yaml").read_text()
    job = of_kind(load_manifests(text), VolcanoJob)[0]
    first = reconcile(job, Observed(), NOW)
    kinds = [(o["kind"], o["metadata"]["name"]) for o in first.create]
    assert kinds == [
        ("Secret", "lm-mpi-job-ssh"),
        ("ConfigMap", "lm-mpi-job-svc"),
        ("Service", "lm-mpi-job"),
        ("NetworkPolicy", "lm-mpi-job"),
        ("PodGroup", f"lm-mpi-job-{job.metadata.uid}"),
    ]
    config_map = first.create[1]
    assert config_map["data"]["VC_MPIWORKER_HOSTS"] == (
        "lm-mpi-job-mpiworker-0.lm-mpi-job,lm-mpi-job-mpiworker-1.lm-mpi-job"
    )
    assert config_map["data"]["VC_MPIWORKER_NUM"] == "2"
    assert first.create[2]["spec"]["clusterIP"] == "None"
    pg = first.create[4]
    assert pg["spec"]["minResources"] == {"cpu": "2500m", "memory": "2560Mi", "nvidia.com/gpu": "2"}
    assert pg["spec"]["queue"] == "research"
    assert pg["spec"]["priorityClassName"] == "high-priority"
    assert status_json(first)["controlledResources"] == {
        "plugin-env": "env", "plugin-ssh": "ssh", "plugin-svc": "svc",
    }  # fmt: skip

    job.status = of_kind(load_manifests(text), VolcanoJob)[0].status

    job.status = convert(status_json(first), VolcanoJobStatus)
    admitted = convert(
        {**pg, "status": {"phase": "Inqueue"}},
        (of_kind([], VolcanoJob) and None)
        or type(__import__("shared.models", fromlist=["PodGroup"]).PodGroup()),
    )
    second = reconcile(job, Observed(podgroups=[admitted]), NOW + 1)
    assert [o["kind"] for o in second.create] == ["Pod", "Pod", "Pod"]
    worker = second.create[2]
    assert worker["metadata"]["name"] == "lm-mpi-job-mpiworker-1"
    spec = worker["spec"]
    assert (spec["hostname"], spec["subdomain"]) == ("lm-mpi-job-mpiworker-1", "lm-mpi-job")
    env = {e["name"]: e for e in spec["containers"][0]["env"]}
    assert env["VC_TASK_INDEX"]["value"] == env["VK_TASK_INDEX"]["value"] == "1"
    assert env["VC_MPIMASTER_HOSTS"]["valueFrom"] == {
        "configMapKeyRef": {"name": "lm-mpi-job-svc", "key": "VC_MPIMASTER_HOSTS"}
    }
    mounts = {m["name"]: m for m in spec["containers"][0]["volumeMounts"]}
    assert mounts["lm-mpi-job-ssh"] == {
        "name": "lm-mpi-job-ssh", "mountPath": "/root/.ssh", "subPath": ".ssh",
    }  # fmt: skip
    assert mounts["lm-mpi-job-svc"]["mountPath"] == "/etc/volcano"
    assert phase_of(second) == "Pending"


def test_same_input_same_output() -> None:
    job = vcjob(phase="Running", plugins={"svc": [], "env": []})
    pods = [vcpod("master", 0, "Failed", exit_code=1)]
    assert run(job, pods) == run(job, pods)


def test_partition_policy_becomes_the_podgroups_sub_group_policy() -> None:
    """Upstream ``setPgSubGroupPolicy``, the partition-id label its pods carry, and
    ``updatePgSubGroupPolicy`` once the policy changes."""
    job = vcjob((("worker", 4),))
    partition = {
        "totalPartitions": 2,
        "partitionSize": 2,
        "networkTopology": {"highestTierName": "rack"},
    }
    job.spec.tasks[0] = msgspec.structs.replace(job.spec.tasks[0], partitionPolicy=partition)
    pg = next(o for o in run(job, pg=None).create if o["kind"] == "PodGroup")
    policy = {
        "name": "worker",
        "subGroupSize": 2,
        "minSubGroups": 0,
        "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "worker"}},
        "matchLabelKeys": ["volcano.sh/partition-id"],
        "networkTopology": {"mode": "hard", "highestTierName": "rack"},
    }
    assert pg["spec"]["subGroupPolicy"] == [policy]
    actions = run(job)
    partitions = {
        o["metadata"]["name"]: o["metadata"]["labels"].get("volcano.sh/partition-id")
        for o in actions.create
        if o["kind"] == "Pod"
    }
    assert {name[-1]: value for name, value in partitions.items()} == {
        "0": "0",
        "1": "0",
        "2": "1",
        "3": "1",
    }
    (patch,) = [p for p in actions.patch if p.kind == "PodGroup"]
    assert patch.patch["spec"]["subGroupPolicy"] == [policy]


@pytest.mark.parametrize(
    ("cpus", "expected"),
    [(("1", "1"), ["3", "3"]), (("1", "2"), ["3", "6"]), (("2", "1"), ["6", "3"])],
    ids=["same-template-twice", "changed-request", "changed-back"],
)
def test_min_resources_follow_each_template(cpus: tuple[str, str], expected: list[str]) -> None:
    """Requests are remembered per template spec, so a job whose template changed gets the
    new template's requests, never the last job's."""

    got = [min_resources(job_view(vcjob(cpu=cpu))).to_list()["cpu"] for cpu in cpus]
    assert got == expected


def test_an_unreadable_template_is_refused_after_a_readable_one() -> None:

    min_resources(job_view(vcjob(cpu="1")))
    with pytest.raises((UserError, QuantityError)):
        min_resources(job_view(vcjob(cpu="lots")))
