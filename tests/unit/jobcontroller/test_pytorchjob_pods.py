"""PyTorchJob: pods (names, labels, env, restartPolicy), headless Services and the PodGroup."""

from __future__ import annotations

import pytest

from services.jobcontroller.core import Observed
from services.jobcontroller.pytorchjob import reconcile
from shared.models import Json, PyTorchJob
from tests.unit.jobcontroller.pytorch_cases import (
    NOW,
    all_services,
    created,
    ptjob,
    ptpg,
    ptpod,
    run,
    sample,
)


def env_of(pod: Json) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in pod["spec"]["containers"][0]["env"]}


def test_master_and_workers_get_ranks_and_master_address() -> None:
    job = sample("pytorchjob-master-workers.yaml")
    pg = ptpg()
    pg.metadata.name = job.metadata.name
    actions = reconcile(job, Observed(podgroups=[pg]), NOW)
    pods = {p["metadata"]["name"]: p for p in created(actions, "Pod")}
    assert sorted(pods) == ["resnet-ddp-master-0", "resnet-ddp-worker-0", "resnet-ddp-worker-1"]
    expected_rank = {
        "resnet-ddp-master-0": "0",
        "resnet-ddp-worker-0": "1",
        "resnet-ddp-worker-1": "2",
    }
    for name, pod in pods.items():
        # The training operator's setPodEnv (release-1.9 envvar.go, master.go), in its order.
        assert [e["name"] for e in pod["spec"]["containers"][0]["env"]] == [
            "PYTHONUNBUFFERED", "MASTER_PORT", "PET_MASTER_PORT", "MASTER_ADDR",
            "PET_MASTER_ADDR", "WORLD_SIZE", "RANK", "PET_NODE_RANK", "PET_NPROC_PER_NODE",
            "PET_NNODES",
        ]  # fmt: skip
        assert env_of(pod) == {
            "PYTHONUNBUFFERED": "1",
            "MASTER_PORT": "29500",
            "PET_MASTER_PORT": "29500",
            "MASTER_ADDR": "resnet-ddp-master-0",
            "PET_MASTER_ADDR": "resnet-ddp-master-0",
            "WORLD_SIZE": "3",
            "RANK": expected_rank[name],
            "PET_NODE_RANK": expected_rank[name],
            "PET_NPROC_PER_NODE": "auto",  # the webhook's default
            "PET_NNODES": "3",
        }
        assert pod["metadata"]["annotations"] == {
            "scheduling.k8s.io/group-name": "resnet-ddp",
            "volcano.sh/task-spec": name.split("-")[2],
        }
        assert pod["spec"]["schedulerName"] == "volcano"
    master = pods["resnet-ddp-master-0"]
    assert master["metadata"]["labels"] == {
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/job-name": "resnet-ddp",
        "training.kubeflow.org/replica-type": "master",
        "training.kubeflow.org/replica-index": "0",
        "training.kubeflow.org/job-role": "master",
    }
    assert master["spec"]["restartPolicy"] == "OnFailure"
    assert pods["resnet-ddp-worker-1"]["spec"]["restartPolicy"] == "Never"  # ExitCode
    assert "training.kubeflow.org/job-role" not in pods["resnet-ddp-worker-1"]["metadata"]["labels"]


def test_one_headless_service_per_replica() -> None:
    job = sample("pytorchjob-master-workers.yaml")
    pg = ptpg()
    pg.metadata.name = job.metadata.name
    services = created(reconcile(job, Observed(podgroups=[pg]), NOW), "Service")
    assert [s["metadata"]["name"] for s in services] == [
        "resnet-ddp-master-0", "resnet-ddp-worker-0", "resnet-ddp-worker-1",
    ]  # fmt: skip
    worker = services[2]
    assert worker["spec"]["clusterIP"] == "None"
    assert worker["spec"]["selector"] == {
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/job-name": "resnet-ddp",
        "training.kubeflow.org/replica-type": "worker",
        "training.kubeflow.org/replica-index": "1",
    }
    assert worker["spec"]["ports"] == [{"name": "pytorchjob-port", "port": 23456}]
    assert services[0]["spec"]["ports"] == [{"name": "pytorchjob-port", "port": 29500}]
    assert worker["metadata"]["ownerReferences"][0]["kind"] == "PyTorchJob"


def test_elastic_job_gets_torchrun_rendezvous_env() -> None:
    job = sample("pytorchjob-elastic.yaml")
    first = reconcile(job, Observed(), NOW)
    pg = created(first, "PodGroup")[0]
    # ReconcileJobs: minMember is every replica; the elastic bounds do not lower it.
    assert pg["spec"]["minMember"] == 3
    assert pg["spec"]["minResources"] == {"cpu": "12", "memory": "48Gi", "nvidia.com/gpu": "12"}
    admitted = ptpg()
    admitted.metadata.name = job.metadata.name
    pods = created(reconcile(job, Observed(podgroups=[admitted]), NOW), "Pod")
    assert len(pods) == 3
    assert env_of(pods[1]) == {
        "PYTHONUNBUFFERED": "1",
        "PET_RDZV_ENDPOINT": "elastic-imagenet-worker-0:23456",
        "PET_RDZV_BACKEND": "c10d",
        "PET_NNODES": "2:4",
        "PET_MAX_RESTARTS": "10",
        "PET_NPROC_PER_NODE": "4",
        "PET_RDZV_ID": "imagenet-run-1",
    }
    assert pods[1]["spec"]["schedulerName"] == "shoal"  # kept: the template asked for it


@pytest.mark.parametrize(
    ("nproc", "world_size"),
    [("2", "6"), ("auto", "3"), ("gpu", "3")],
    ids=["numeric-multiplies", "auto-counts-nodes", "gpu-counts-nodes"],
)
def test_world_size_is_replicas_times_nproc_per_node(nproc: str, world_size: str) -> None:
    # getNprocPerNodeInt: a number multiplies the world size; anything else counts as 1.
    job = sample("pytorchjob-master-workers.yaml")
    job.spec.nprocPerNode = nproc
    pg = ptpg()
    pg.metadata.name = job.metadata.name
    pods = created(reconcile(job, Observed(podgroups=[pg]), NOW), "Pod")
    for pod in pods:
        assert env_of(pod)["WORLD_SIZE"] == world_size
        assert env_of(pod)["PET_NPROC_PER_NODE"] == nproc


@pytest.mark.parametrize(
    ("job", "gang"),
    [
        (ptjob(), False),
        (ptjob(scheduler="volcano"), True),
        (ptjob(scheduler="shoal"), True),
        (ptjob(schedulingPolicy={"queue": "q"}), True),
    ],
    ids=["default-scheduler", "volcano-template", "shoal-template", "scheduling-policy"],
)
def test_gang_scheduling_is_enabled_by_scheduler_or_policy(job: PyTorchJob, gang: bool) -> None:
    actions = run(job)
    assert bool(created(actions, "PodGroup")) is gang
    assert len(created(actions, "Pod")) == (0 if gang else 3)  # gang pods wait for the PodGroup


def test_gang_scheduler_names_are_a_setting() -> None:
    # Like the operator's --gang-scheduler-name: an empty setting turns it off for templates.
    job = ptjob(scheduler="volcano")
    off = reconcile(job, Observed(gang_scheduler_names=frozenset()), NOW)
    assert created(off, "PodGroup") == [] and len(created(off, "Pod")) == 3
    custom = reconcile(
        ptjob(scheduler="kai"), Observed(gang_scheduler_names=frozenset({"kai"})), NOW
    )
    assert len(created(custom, "PodGroup")) == 1


def test_gang_pods_join_the_job_podgroup_and_unnamed_templates_get_its_scheduler() -> None:
    # DecoratePodTemplateSpec: schedulerName when unset, group name, task spec; the
    # policy-only job uses the operator's gang scheduler, volcano.
    job = ptjob(schedulingPolicy={"queue": "q"})
    job.metadata.annotations = {"team": "vision"}
    pg = created(run(job), "PodGroup")[0]
    assert pg["metadata"]["annotations"] == {"team": "vision"}  # SyncPodGroup copies them
    admitted = ptpg()
    pods = created(reconcile(job, Observed(podgroups=[admitted]), NOW), "Pod")
    assert len(pods) == 3
    for pod in pods:
        assert pod["spec"]["schedulerName"] == "volcano"
        assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == "ddp"


def test_a_template_with_another_scheduler_keeps_it_with_a_warning() -> None:
    job = ptjob(scheduler="volcano")
    job.spec.pytorchReplicaSpecs["Worker"].template["spec"]["schedulerName"] = "other"
    actions = reconcile(job, Observed(podgroups=[ptpg()]), NOW)
    workers = [p for p in created(actions, "Pod") if "worker" in p["metadata"]["name"]]
    assert {p["spec"]["schedulerName"] for p in workers} == {"other"}
    assert (
        "Warning",
        "SetPodTemplateSchedulerName",
        "Another scheduler is specified when gang-scheduling is enabled and it will not be "
        "overwritten",
    ) in actions.events


def test_existing_podgroup_keeps_its_queue_and_gets_the_whole_spec() -> None:
    # SyncPodGroup keeps a queue already set on the PodGroup and replaces the rest of the spec.
    job = ptjob(scheduler="volcano", schedulingPolicy={"queue": "q"})
    pg = ptpg()
    pg.spec.queue, pg.spec.minMember, pg.spec.priorityClassName = "team-a", 1, "old"
    actions = reconcile(job, Observed(podgroups=[pg]), NOW)
    (patch,) = [p for p in actions.patch if p.kind == "PodGroup"]
    assert patch.key == "ml/ddp"
    assert patch.patch["spec"]["queue"] == "team-a"
    assert patch.patch["spec"]["minMember"] == 3
    assert patch.patch["spec"]["priorityClassName"] is None


def test_podgroup_from_scheduling_policy() -> None:
    job = ptjob(schedulingPolicy={"minAvailable": 2, "queue": "q", "priorityClass": "p",
                                  "minResources": {"cpu": "10"}})  # fmt: skip
    pg = created(run(job), "PodGroup")[0]
    assert pg["metadata"]["name"] == "ddp"
    assert pg["spec"] == {"minMember": 2, "queue": "q", "minResources": {"cpu": "10"},
                          "priorityClassName": "p"}  # fmt: skip


def test_existing_pods_and_services_are_not_recreated_and_extra_ones_deleted() -> None:
    job = ptjob(workers=1)
    pods = [ptpod("master", 0), ptpod("worker", 0), ptpod("worker", 1)]
    actions = run(job, pods, services=all_services())
    assert actions.create == []
    assert actions.delete == ["ml/ddp-worker-1", "ml/ddp-worker-1"]
    assert actions.delete_kinds == ["Pod", "Service"]


def test_same_input_same_output() -> None:
    job = sample("pytorchjob-elastic.yaml")
    assert reconcile(job, Observed(), NOW) == reconcile(job, Observed(), NOW)
