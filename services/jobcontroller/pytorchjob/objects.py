"""What a PyTorchJob owns: pods and headless Services ``<job>-<type>-<index>``, and a PodGroup.

Pods get the operator's labels, the distributed-training environment (``MASTER_ADDR``,
``MASTER_PORT``, ``WORLD_SIZE``, ``RANK`` and, for elastic jobs, torchrun's ``PET_*`` variables),
the replica's restartPolicy (``ExitCode`` runs the pod as ``Never``: the operator itself decides
from the exit code whether to recreate it), with gang scheduling the PodGroup annotation, and,
when there is a Master, Workers get the operator's ``init-pytorch`` init container that waits
until the master's name resolves (``setInitContainer``, its default template, image and tries).
"""

from __future__ import annotations

import copy

from services.jobcontroller.pytorchjob.spec import (
    DEFAULT_PORT,
    DEFAULT_PORT_NAME,
    MASTER,
    OPERATOR_NAME,
    WORKER,
    PyTorchView,
    Replica,
)
from shared.models import Json, PodSpec, convert
from shared.models.volcano import GROUP_NAME_ANNOTATION, TASK_SPEC_KEY
from shared.resources import EMPTY, Resources, spec_requests

JOB_NAME_LABEL = "training.kubeflow.org/job-name"
OPERATOR_NAME_LABEL = "training.kubeflow.org/operator-name"
REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type"
REPLICA_INDEX_LABEL = "training.kubeflow.org/replica-index"
JOB_ROLE_LABEL = "training.kubeflow.org/job-role"
# The operator's defaults (pkg/config: PyTorchInitContainerImageDefault, ...MaxTriesDefault).
INIT_CONTAINER_IMAGE = "alpine:3.10"
INIT_CONTAINER_MAX_TRIES = 100


def object_name(job: PyTorchView, replica: Replica, index: int) -> str:
    return f"{job.name}-{replica.rt}-{index}".replace("/", "-")


def replica_selector(job: PyTorchView, replica: Replica) -> dict[str, str]:
    return {
        OPERATOR_NAME_LABEL: OPERATOR_NAME,
        JOB_NAME_LABEL: job.name.replace("/", "-"),
        REPLICA_TYPE_LABEL: replica.rt,
    }


def replica_labels(job: PyTorchView, replica: Replica, index: int) -> dict[str, str]:
    return {**replica_selector(job, replica), REPLICA_INDEX_LABEL: str(index)}


def _port(job: PyTorchView, type_: str) -> int:
    replica = job.replica(type_)
    return (replica.ports() if replica else {}).get(DEFAULT_PORT_NAME, DEFAULT_PORT)


def elastic_env(job: PyTorchView) -> list[Json]:
    """The operator's ``ElasticEnvVarGenerator``: torchrun's rendezvous variables (none without an
    elastic policy)."""
    policy = job.elastic
    if policy is None:
        return []
    host = policy.rdzvHost or f"{job.name}-worker-0"
    port = policy.rdzvPort if policy.rdzvPort is not None else _port(job, WORKER)
    env: list[Json] = [
        {"name": "PET_RDZV_ENDPOINT", "value": f"{host}:{port}"},
        {"name": "PET_RDZV_BACKEND", "value": policy.rdzvBackend or "c10d"},
        {"name": "PET_NNODES", "value": f"{policy.minReplicas}:{policy.maxReplicas}"},
    ]
    if policy.maxRestarts is not None:
        env.append({"name": "PET_MAX_RESTARTS", "value": str(policy.maxRestarts)})
    if policy.nProcPerNode is not None:
        env.append({"name": "PET_NPROC_PER_NODE", "value": str(policy.nProcPerNode)})
    if policy.rdzvId is not None:
        env.append({"name": "PET_RDZV_ID", "value": policy.rdzvId})
    if policy.rdzvConf:
        conf = ",".join(f"{c.get('key')}={c.get('value')}" for c in policy.rdzvConf)
        env.append({"name": "PET_RDZV_CONF", "value": conf})
    if policy.standalone:
        env.append({"name": "PET_STANDALONE", "value": ""})
    return env


def pod_env(job: PyTorchView, replica: Replica, index: int) -> list[Json]:
    """The variables the operator's ``setPodEnv`` appends to every container, in its order."""
    env: list[Json] = [{"name": "PYTHONUNBUFFERED", "value": "1"}]
    total = job.total_replicas
    if job.replica(MASTER) is not None:
        port, addr = str(_port(job, MASTER)), f"{job.name}-master-0"
        rank = str(index + 1 if replica.type == WORKER else index)
        env += [
            {"name": "MASTER_PORT", "value": port},
            {"name": "PET_MASTER_PORT", "value": port},
            {"name": "MASTER_ADDR", "value": addr},
            {"name": "PET_MASTER_ADDR", "value": addr},
            {"name": "WORLD_SIZE", "value": str(total * _nproc_int(job.nproc_per_node))},
            {"name": "RANK", "value": rank},
            {"name": "PET_NODE_RANK", "value": rank},
        ]
    if job.nproc_per_node is not None:
        env.append({"name": "PET_NPROC_PER_NODE", "value": job.nproc_per_node})
    if job.elastic is not None:
        return env + elastic_env(job)
    return [*env, {"name": "PET_NNODES", "value": str(total)}]


def _nproc_int(nproc: str | None) -> int:
    """``getNprocPerNodeInt``: the number, or 1 (``auto``, ``gpu``, unset)."""
    try:
        return int(nproc) if nproc is not None else 1
    except ValueError:
        return 1


def build_pod(job: PyTorchView, replica: Replica, index: int) -> Json:
    template = copy.deepcopy(replica.template)
    meta = template.get("metadata") or {}
    spec: Json = template.get("spec") or {}
    labels = {**(meta.get("labels") or {}), **replica_labels(job, replica, index)}
    if replica.type == MASTER:
        labels[JOB_ROLE_LABEL] = "master"
    annotations: dict[str, str] = dict(meta.get("annotations") or {})
    env = pod_env(job, replica, index)
    for container in spec.get("containers") or []:
        container["env"] = [*(container.get("env") or []), *env]
    if replica.type == WORKER and job.replica(MASTER) is not None:
        spec["initContainers"] = [*(spec.get("initContainers") or []), init_container(job)]
    policy = replica.restart_policy
    spec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
    if job.gang_scheduler is not None:
        # ``VolcanoControl.DecoratePodTemplateSpec``: a template's own scheduler stays.
        if not spec.get("schedulerName"):
            spec["schedulerName"] = job.gang_scheduler
        annotations[GROUP_NAME_ANNOTATION] = podgroup_name(job)
        annotations[TASK_SPEC_KEY] = replica.rt
    metadata: Json = {
        "name": object_name(job, replica, index),
        "namespace": job.namespace,
        "labels": labels,
        "ownerReferences": [job.owner_reference()],
    }
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def init_container(job: PyTorchView) -> Json:
    """``initContainerTemplate`` of the operator, for a Worker of a job with a Master."""
    master = f"{job.name}-master-0"
    script = (
        f"err=1;for i in $(seq {INIT_CONTAINER_MAX_TRIES}); do if nslookup {master}; "
        "then err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err"
    )
    return {
        "name": "init-pytorch",
        "image": INIT_CONTAINER_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "resources": {
            "limits": {"cpu": "100m", "memory": "20Mi"},
            "requests": {"cpu": "50m", "memory": "10Mi"},
        },
        "command": ["sh", "-c", script],
    }


def build_service(job: PyTorchView, replica: Replica, index: int) -> Json:
    labels = replica_labels(job, replica, index)
    ports = [{"name": name, "port": port} for name, port in sorted(replica.ports().items())]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": object_name(job, replica, index),
            "namespace": job.namespace,
            "labels": dict(labels),
            "ownerReferences": [job.owner_reference()],
        },
        "spec": {"clusterIP": "None", "selector": labels, "ports": ports},
    }


def podgroup_name(job: PyTorchView) -> str:
    """The operator's ``SyncPodGroup`` names the PodGroup after the job."""
    return job.name


def min_member(job: PyTorchView) -> int:
    """``ReconcileJobs``: every replica (elastic ones too), or ``schedulingPolicy.minAvailable``."""
    policy = job.scheduling
    if policy is not None and policy.minAvailable is not None:
        return policy.minAvailable
    return job.total_replicas


def _min_resources(job: PyTorchView, members: int) -> Resources:
    """Requests of the first ``members`` pods, Master first (the operator's CalcPGMinResources)."""
    total, left = EMPTY, members
    for replica in job.replicas:
        take = min(replica.replicas, left)
        if take <= 0:
            break
        spec = convert(replica.template.get("spec") or {}, PodSpec, document=replica.type)
        total = total + spec_requests(spec).scale(take)
        left -= take
    return total


def podgroup_spec(job: PyTorchView, queue: str | None = None) -> Json:
    """The Volcano PodGroup spec as the operator fills it; ``queue``: the existing PodGroup's
    queue, which the operator keeps over ``schedulingPolicy.queue``."""
    members = min_member(job)
    policy = job.scheduling
    spec: Json = {
        "minMember": members,
        "queue": queue or (policy.queue if policy else None) or "default",
        "minResources": (
            Resources.from_list(policy.minResources).to_list()
            if policy is not None and policy.minResources
            else _min_resources(job, members).to_list()
        ),
    }
    if policy is not None and policy.priorityClass:
        spec["priorityClassName"] = policy.priorityClass
    return spec


def build_podgroup(job: PyTorchView) -> Json:
    metadata: Json = {
        "name": podgroup_name(job),
        "namespace": job.namespace,
        "ownerReferences": [job.owner_reference()],
    }
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)  # SyncPodGroup copies them
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": podgroup_spec(job),
    }
