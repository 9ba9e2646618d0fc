"""Volcano's ``validatejob.volcano.sh`` webhook (pkg/webhooks/admission/jobs/validate).

``validate_job_create`` builds the message as ``validateJobCreate`` does: every finding is
appended (most with a leading space and a trailing ``;``); the first three checks stop at
once. ``validate_job_update`` returns the first refusal of
``validateJobUpdate``. Go's map order is random where upstream prints the valid events and
actions; they are listed here in upstream's declaration order.
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.queues import QueueLister
from services.webhook.core.volcano_policies import (
    VALID_ACTIONS,
    VALID_EVENTS,
    go_list,
    validate_policies,
)
from services.webhook.core.volcano_topology import (
    topo_sort,
    validate_network_topology,
    validate_partition_policy,
)
from shared.errors import QuantityError
from shared.kube.fielderrors import qualified_name_errors
from shared.quantities import parse_quantity

Obj = dict[str, Any]
WEBHOOK = "validatejob.volcano.sh"
# pkg/controllers/job/plugins/factory.go
JOB_PLUGINS = ("ssh", "env", "svc", "tensorflow", "mpi", "pytorch", "hcclrank", "ray")
# pkg/controllers/job/plugins/distributed-framework/mpi: MPIPluginName, DefaultMaster.
MPI_PLUGIN = "mpi"
MPI_DEFAULT_MASTER = "master"


def _mpi_master(arguments: list[str]) -> str:
    """The ``--master`` flag of the mpi plugin's arguments (Go's flag syntax)."""
    master = MPI_DEFAULT_MASTER
    for i, arg in enumerate(arguments):
        name, eq, value = arg.lstrip("-").partition("=")
        if name == "master" and arg.startswith("-"):
            master = value if eq else (arguments[i + 1] if i + 1 < len(arguments) else master)
    return master


def _task_topology_policy(task: Obj, index: int) -> str:
    """``validateTaskTopoPolicy``: with a topology policy, every container's CPU request (its
    limit when it has no requests) must be a whole number of CPUs."""
    if task.get("topologyPolicy") in (None, "", "none"):
        return ""
    spec = ((task.get("template") or {}).get("spec")) or {}
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    for i, container in enumerate(containers):
        resources = container.get("resources") or {}
        requests = resources.get("requests") or resources.get("limits") or {}
        if not _whole_cpus(requests.get("cpu")):
            return f"the cpu request isn't an integer in spec.task[{index}] container[{i}]."
    return ""


def _whole_cpus(value: Any) -> bool:
    if value is None:
        return False
    try:
        milli = parse_quantity(value).milli()
    except QuantityError:
        return False
    return milli > 0 and milli % 1000 == 0


def _io(volumes: list[Obj]) -> str:
    """``validateIO``: the first problem among the job's volumes."""
    seen: set[str] = set()
    for volume in volumes:
        path = volume.get("mountPath") or ""
        if not path:
            return " mountPath is required;"
        if path in seen:
            return f" duplicated mountPath: {path};"
        claim, claim_name = volume.get("volumeClaim"), volume.get("volumeClaimName") or ""
        if claim is None and not claim_name:
            return " either VolumeClaim or VolumeClaimName must be specified;"
        if claim_name and claim is not None:
            return (
                "conflict: If you want to use an existing PVC, just specify VolumeClaimName."
                "If you want to create a new PVC, you do not need to specify VolumeClaimName"
            )
        seen.add(path)
    return ""


def _queue(spec: Obj, queues: QueueLister) -> str:
    name = spec.get("queue") or ""
    queue = queues.get(name)
    if queue is None:
        return f' unable to find job queue: queue.scheduling.volcano.sh "{name}" not found;'
    out = ""
    state = (queue.get("status") or {}).get("state", "")
    if state != "Open":
        out += (
            f" can only submit job to queue with state `Open`, queue `{name}` status is `{state}`;"
        )
    if name == "root":
        return out + " can not submit job to root queue;"
    children = queues.children(name)
    if children:
        out += (
            f" can only submit job to leaf queue, queue `{name}` has {len(children)} child queues;"
        )
    return out


def validate_job_create(job: Obj, queues: QueueLister) -> str:
    """The refusal text of ``validateJobCreate`` (empty: admitted); untrimmed, as upstream's
    function returns it (``AdmitJobs`` trims it into the response)."""
    meta, spec = job.get("metadata") or {}, job.get("spec") or {}
    name = meta.get("name", "")
    tasks: list[Obj] = spec.get("tasks") or []
    if not tasks:
        return "No task specified in job spec"
    plugins: dict[str, list[str]] = spec.get("plugins") or {}
    if MPI_PLUGIN in plugins:
        master = _mpi_master(plugins[MPI_PLUGIN] or [])
        if master not in [t.get("name") for t in tasks]:
            return "The specified mpi master task was not found"
    out = validate_network_topology(spec.get("networkTopology"))
    total, names, dependencies = 0, set(), False
    for index, task in enumerate(tasks):
        task_name = task.get("name", "")
        dependencies = dependencies or task.get("dependsOn") is not None
        replicas = task.get("replicas", 0)
        if task.get("minAvailable") is not None and task["minAvailable"] > replicas:
            out += f" 'minAvailable' is greater than 'replicas' in task: {task_name}, job: {name};"
        total += replicas
        if task_name in names:
            out += f" duplicated task name {task_name};"
            break
        names.add(task_name)
        error = validate_policies(task.get("policies") or [], "spec.tasks.policies")
        if error:
            out += error + _valid_policy_values()
        pod_name = f"{name}-{task_name}-{index}"
        if errors := qualified_name_errors(pod_name):
            out += f"create pod with name {pod_name} validate failed {go_list(errors)};"
        out += _task_topology_policy(task, index)
        out += validate_partition_policy(task, name)
    if errors := qualified_name_errors(name):
        out += f"create job with name {name} validate failed {go_list(errors)}"
    if total < spec.get("minAvailable", 0):
        out += " job 'minAvailable' should not be greater than total replicas in tasks;"
    error = validate_policies(spec.get("policies") or [], "spec.policies")
    if error:
        out += error + _valid_policy_values()
    for plugin in plugins:
        if plugin not in JOB_PLUGINS:
            out += f" unable to find job plugin: {plugin};"
    out += _io(spec.get("volumes") or [])
    out += _queue(spec, queues)
    if dependencies and topo_sort(tasks) is None:
        out += (
            " job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);"
        )
    return out


def _valid_policy_values() -> str:
    return f" valid events are {go_list(VALID_EVENTS)}, valid actions are {go_list(VALID_ACTIONS)};"


def _comparable(spec: Obj, old: Obj) -> Obj:
    """``spec`` with the fields an update may change taken from ``old`` (as upstream resets)."""
    out = {
        **spec,
        "minAvailable": old.get("minAvailable"),
        "priorityClassName": old.get("priorityClassName"),
    }
    tasks = []
    for task, old_task in zip(spec.get("tasks") or [], old.get("tasks") or [], strict=False):
        tasks.append(
            {
                **task,
                "replicas": old_task.get("replicas"),
                "minAvailable": old_task.get("minAvailable"),
            }
        )
    out["tasks"] = tasks
    out["volumes"] = [_without_claim_name(v) for v in spec.get("volumes") or []]
    return {k: v for k, v in out.items() if v is not None}


def _without_claim_name(volume: Obj) -> Obj:
    # The job controller fills in volumeClaimName for the claims it creates.
    if volume.get("volumeClaim") is not None:
        return {k: v for k, v in volume.items() if k != "volumeClaimName"}
    return volume


def validate_job_update(old: Obj, new: Obj) -> str:
    """The refusal message of ``validateJobUpdate`` (empty: admitted)."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    total = 0
    for task in spec.get("tasks") or []:
        name, replicas = task.get("name", ""), task.get("replicas", 0)
        if replicas < 0:
            return f"'replicas' must be >= 0 in task: {name}"
        min_available = task.get("minAvailable")
        if min_available is not None and min_available < 0:
            return f"'minAvailable' must be >= 0 in task: {name}"
        if min_available is not None and min_available > replicas:
            return f"'minAvailable' must be <= 'replicas' in task: {name}"
        if message := validate_partition_policy(task, new["metadata"].get("name", "")):
            return message
        total += replicas
    if spec.get("minAvailable", 0) > total:
        return "job 'minAvailable' must not be greater than total replicas"
    if spec.get("minAvailable", 0) < 0:
        return "job 'minAvailable' must be >= 0"
    if message := validate_network_topology(spec.get("networkTopology")):
        return message
    if len(old_spec.get("tasks") or []) != len(spec.get("tasks") or []):
        return "job updates may not add or remove tasks"
    old_comparable = {**_comparable(old_spec, old_spec)}
    if _comparable(spec, old_spec) != old_comparable:
        return (
            "job updates may not change fields other than `minAvailable`, "
            "`tasks[*].replicas under spec` and `PriorityClassName`"
        )
    return ""
