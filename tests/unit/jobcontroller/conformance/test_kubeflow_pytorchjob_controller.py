"""kubeflow/training-operator release-1.9
``pkg/controller.v1/pytorch/pytorchjob_controller_test.go``, ported.

Upstream's cases are Ginkgo scenarios against envtest (an API server, the operator's webhooks,
no gang scheduler); here the same steps go through Shoal's pure reconcile and a small in-memory
world that applies its actions (creations, deletions, the status), with the steps upstream
takes by hand (a pod's phase, ``suspend``) done on that world. Each test is named after its
upstream ``It``; the ones that cannot be expressed are listed in docs/compatibility.md.
"""

from __future__ import annotations

from typing import Any

import msgspec

from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.pytorchjob import reconcile
from shared.kube.timefmt import format_rfc3339
from shared.models import Json, Pod, PyTorchJob, Service, convert, to_dict

NOW = 1_714_557_600.0
EXPECTED_PORT = 8080
PORT = {"name": "pytorchjob-port", "containerPort": EXPECTED_PORT, "protocol": "TCP"}
OWNER = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "uid": "job-uid",
         "controller": True, "blockOwnerDeletion": True}  # fmt: skip


def replica(replicas: int) -> Json:
    container = {"image": "test-image", "name": "pytorch", "ports": [dict(PORT)]}
    return {"replicas": replicas, "template": {"spec": {"containers": [container]}}}


def new_job(name: str = "test-job", *, workers: int = 2, master: bool = True, **spec: Any) -> Json:
    replicas = {"Worker": replica(workers)}
    if master:
        replicas["Master"] = replica(1)
    body: Json = {"pytorchReplicaSpecs": replicas, "runPolicy": {}}
    body.update(spec)
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": name, "namespace": "ns", "uid": "job-uid"},
        "spec": body,
    }


class World:
    """What the API server would hold after each sync's actions are applied."""

    def __init__(self, job: Json) -> None:
        self.job = convert(job, PyTorchJob)
        self.pods: dict[str, Pod] = {}
        self.services: dict[str, Service] = {}
        self.now = NOW

    def sync(self, *, seconds_later: float = 1.0) -> Actions:
        self.now += seconds_later
        observed = Observed(pods=list(self.pods.values()), services=list(self.services.values()))
        actions = reconcile(self.job, observed, self.now)
        for obj in actions.create:
            meta = obj["metadata"]
            created = {**obj, "metadata": {**meta, "uid": meta["name"]}}
            if obj["kind"] == "Pod":
                self.pods[meta["name"]] = convert({**created, "status": {"phase": "Pending"}}, Pod)
            elif obj["kind"] == "Service":
                self.services[meta["name"]] = convert(created, Service)
        for kind, key in zip(actions.delete_kinds, actions.delete, strict=True):
            name = key.partition("/")[2]
            (self.pods if kind == "Pod" else self.services).pop(name, None)
        if actions.status is not None:
            assert isinstance(actions.status, type(self.job.status))
            self.job = msgspec.structs.replace(self.job, status=actions.status)
        return actions

    def set_phase(self, pod: str, phase: str) -> None:
        status = msgspec.structs.replace(self.pods[pod].status, phase=phase)
        self.pods[pod] = msgspec.structs.replace(self.pods[pod], status=status)

    def set_suspend(self, suspend: bool) -> None:
        run = msgspec.structs.replace(self.job.spec.runPolicy, suspend=suspend)
        spec = msgspec.structs.replace(self.job.spec, runPolicy=run)
        self.job = msgspec.structs.replace(self.job, spec=spec)

    @property
    def status(self) -> Json:
        return to_dict(self.job.status)

    def conditions(self) -> list[tuple[str, str, str, str]]:
        return [
            (c["type"], c["status"], c.get("reason", ""), c.get("message", ""))
            for c in self.status.get("conditions", [])
        ]


def env_of(pod: Pod) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in to_dict(pod)["spec"]["containers"][0]["env"]}


def created(name: str) -> tuple[str, str, str, str]:
    return ("Created", "True", "PyTorchJobCreated", f"PyTorchJob {name} is created.")


def running(name: str) -> tuple[str, str, str, str]:
    return ("Running", "True", "PyTorchJobRunning", f"PyTorchJob {name} is running.")


def suspended(name: str, kind: str = "Suspended") -> tuple[str, str, str, str]:
    status = "True" if kind == "Suspended" else "False"
    return (kind, status, "PyTorchJobSuspended", f"PyTorchJob {name} is suspended.")


def assert_owned(obj: Pod | Service, name: str) -> None:
    assert {**OWNER, "name": name} in to_dict(obj)["metadata"]["ownerReferences"]


# --- Context "When creating the PyTorchJob" -------------------------------------------------------


def test_should_get_the_corresponding_resources_successfully() -> None:
    world = World(new_job())
    world.sync()
    master_pod, master_svc = world.pods["test-job-master-0"], world.services["test-job-master-0"]
    assert PORT in to_dict(master_pod)["spec"]["containers"][0]["ports"]
    env = env_of(master_pod)
    service_port = to_dict(master_svc)["spec"]["ports"][0]["port"]
    assert env["MASTER_PORT"] == str(service_port)
    assert env["MASTER_ADDR"] == "test-job-master-0"
    assert env["PET_NPROC_PER_NODE"] == "auto"  # the webhook's DefaultNprocPerNode
    assert service_port == EXPECTED_PORT
    assert_owned(master_pod, "test-job")
    assert_owned(master_svc, "test-job")
    world.set_phase("test-job-master-0", "Succeeded")
    world.sync()
    assert world.status["replicaStatuses"]["Master"]["succeeded"] == 1
    assert ("Succeeded", "True") in [(c[0], c[1]) for c in world.conditions()]


def test_shouldnt_create_resources_if_pytorchjob_is_suspended() -> None:
    world = World(new_job(workers=1, runPolicy={"suspend": True}))
    for _ in range(3):  # "Consistently"
        world.sync()
        assert "startTime" not in world.status
        assert world.pods == {} and world.services == {}
    assert world.conditions() == [created("test-job"), suspended("test-job")]


def test_should_delete_resources_after_suspended_and_resume_after_unsuspended() -> None:
    world = World(new_job(workers=1))
    world.sync()
    started = world.status["startTime"]
    assert (
        sorted(world.pods) == sorted(world.services) == ["test-job-master-0", "test-job-worker-0"]
    )
    world.set_phase("test-job-master-0", "Running")
    world.set_phase("test-job-worker-0", "Running")
    world.sync()
    assert world.conditions() == [created("test-job"), running("test-job")]

    world.set_suspend(True)
    world.sync()
    world.sync()  # "Consistently": nothing comes back
    assert world.pods == {} and world.services == {}
    replicas = world.status["replicaStatuses"]
    assert replicas["Master"].get("active", 0) == replicas["Worker"].get("active", 0) == 0
    assert world.status["startTime"] == started
    assert world.conditions() == [
        created("test-job"),
        suspended("test-job", "Running"),
        suspended("test-job"),
    ]

    world.set_suspend(False)
    world.sync(seconds_later=60)
    assert world.status["startTime"] != started
    assert world.status["startTime"] == format_rfc3339(world.now)
    assert (
        sorted(world.pods) == sorted(world.services) == ["test-job-master-0", "test-job-worker-0"]
    )
    world.set_phase("test-job-master-0", "Running")
    world.set_phase("test-job-worker-0", "Running")
    world.sync()
    assert world.conditions() == [
        created("test-job"),
        ("Suspended", "False", "PyTorchJobResumed", "PyTorchJob test-job is resumed."),
        running("test-job"),
    ]


def test_should_not_reconcile_a_job_while_managed_by_external_controller() -> None:
    world = World(
        new_job(workers=1, runPolicy={"managedBy": "kueue.x-k8s.io/multikueue", "suspend": True})
    )
    for suspend in (True, False):
        world.set_suspend(suspend)
        world.sync()
        assert "startTime" not in world.status
        assert world.pods == {} and world.services == {}
        assert world.conditions() == []


# --- Context "When creating the elastic PyTorchJob" -----------------------------------------------


def test_elastic_should_get_the_corresponding_resources_successfully() -> None:
    policy = {"rdzvBackend": "c10d", "minReplicas": 1, "maxReplicas": 3, "maxRestarts": 3,
              "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                  "type": "Utilization", "averageValue": "80"}}}]}  # fmt: skip
    world = World(new_job("elastic-job", workers=1, master=False, elasticPolicy=policy))
    world.sync()
    pod, svc = world.pods["elastic-job-worker-0"], world.services["elastic-job-worker-0"]
    assert PORT in to_dict(pod)["spec"]["containers"][0]["ports"]
    env = env_of(pod)
    assert env["PET_RDZV_BACKEND"] == "c10d"
    assert env["PET_NNODES"] == "1:3"
    assert env["PET_RDZV_ENDPOINT"] == f"elastic-job-worker-0:{EXPECTED_PORT}"
    assert env["PET_MAX_RESTARTS"] == "3"
    assert to_dict(svc)["spec"]["ports"][0]["port"] == EXPECTED_PORT
    assert_owned(pod, "elastic-job")
    assert_owned(svc, "elastic-job")
    world.set_phase("elastic-job-worker-0", "Succeeded")
    world.sync()
    assert world.status["replicaStatuses"]["Worker"]["succeeded"] == 1
    assert ("Succeeded", "True") in [(c[0], c[1]) for c in world.conditions()]
