"""One sync of a PyTorchJob, following the training operator's ``ReconcileJobs``.

Order: skip jobs managed by another controller; clean up finished jobs (cleanPodPolicy, PodGroup,
TTL); honour ``suspend`` (delete everything, Suspended condition) and resumption; fail jobs past
``backoffLimit`` or ``activeDeadlineSeconds``; otherwise sync the PodGroup, then pods and headless
Services per replica (restarting failed pods the restartPolicy allows to restart), and derive the
conditions from the replica counts. With gang scheduling, pods wait until the PodGroup has left
``Pending``. While expectations are unsatisfied nothing is created or deleted and the job is not
finished; replica statuses are still refreshed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.jobcontroller.core import Actions, Observed, Patch, editable_copy
from services.jobcontroller.pytorchjob import conditions as cond
from services.jobcontroller.pytorchjob.objects import (
    REPLICA_INDEX_LABEL,
    REPLICA_TYPE_LABEL,
    build_pod,
    build_podgroup,
    build_service,
    podgroup_name,
    podgroup_spec,
    replica_selector,
)
from services.jobcontroller.pytorchjob.spec import (
    DEFAULT_CONTAINER,
    MANAGED_BY_OPERATOR,
    MASTER,
    SCHEDULER_NAME_MESSAGE,
    SCHEDULER_NAME_REASON,
    WORKER,
    PyTorchView,
    Replica,
    other_scheduler,
    pytorch_view,
)
from shared.kube.keys import namespaced_key
from shared.kube.timefmt import format_rfc3339, parse_rfc3339
from shared.models import Pod, PodGroup, PyTorchJob, Service
from shared.models.kubeflow import PyTorchJobStatus, ReplicaStatus
from shared.resources import Resources

NO_EXIT_CODE = 0xBEEF  # the operator's marker when the pytorch container has not terminated


@dataclass(slots=True)
class _Sync:
    job: PyTorchView
    status: PyTorchJobStatus
    pods: list[Pod]
    services: list[Service]
    podgroup: PodGroup | None
    now: float
    may_act: bool
    actions: Actions = field(default_factory=Actions)
    permanent_failures: dict[str, int] = field(default_factory=dict)

    @property
    def stamp(self) -> str:
        return format_rfc3339(self.now)

    def key(self, name: str) -> str:
        return namespaced_key(self.job.namespace, name)


def reconcile(job: PyTorchJob, observed: Observed, now: float) -> Actions:
    """One sync of ``job`` against ``observed``; pure and deterministic."""
    view = pytorch_view(job, observed.gang_scheduler_names)
    if view.managed_by not in (None, "", MANAGED_BY_OPERATOR):
        return Actions()  # another controller (e.g. Kueue's MultiKueue) owns this job
    if job.metadata.deletionTimestamp is not None:
        return Actions()
    sync = _Sync(
        job=view,
        status=editable_copy(job.status),
        pods=sorted(
            (p for p in observed.pods if _owned(p.metadata.controller_ref(), view)),
            key=lambda p: p.metadata.name,
        ),
        services=[s for s in observed.services if _owned(s.metadata.controller_ref(), view)],
        podgroup=next(
            (pg for pg in observed.podgroups if pg.metadata.name == podgroup_name(view)), None
        ),
        now=now,
        may_act=observed.expectations_satisfied,
    )
    if not any(c.type == cond.CREATED for c in sync.status.conditions):
        message = f"PyTorchJob {view.name} is created."
        cond.set_condition(
            sync.status, cond.CREATED, "True", cond.reason("Created"), message, sync.stamp
        )
    _run(sync)
    sync.actions.status = sync.status
    return sync.actions


def _owned(ref: object, job: PyTorchView) -> bool:
    uid = getattr(ref, "uid", None)
    return ref is not None and getattr(ref, "kind", "") == "PyTorchJob" and uid == job.uid


def _run(sync: _Sync) -> None:
    if cond.is_finished(sync.status):
        _finished(sync)
    elif sync.job.suspend:
        _suspend(sync)
    else:
        if cond.has(sync.status, cond.SUSPENDED):
            message = f"PyTorchJob {sync.job.name} is resumed."
            cond.set_condition(
                sync.status, cond.SUSPENDED, "False", cond.reason("Resumed"), message, sync.stamp
            )
            sync.status.startTime = sync.stamp
        _count_replicas(sync)
        failure = _limit_exceeded(sync)
        if failure is not None and sync.may_act:
            _fail(sync, failure)
        else:
            _sync_replicas(sync)


# -- finished, suspended, failed ----------------------------------------------------------------


def _delete_pods_and_services(sync: _Sync, policy: str) -> None:
    """Delete per cleanPodPolicy: ``None`` keeps all, ``Running`` only live pods, ``All`` all."""
    if policy == "None" or not sync.may_act:
        return
    services = {s.metadata.name for s in sync.services}
    for pod in sync.pods:
        if policy == "Running" and pod.status.phase not in ("Running", "Pending"):
            continue
        if pod.metadata.deletionTimestamp is None:
            sync.actions.delete_object("Pod", sync.key(pod.metadata.name))
        if pod.metadata.name in services:
            sync.actions.delete_object("Service", sync.key(pod.metadata.name))


def _delete_podgroup(sync: _Sync) -> None:
    if sync.job.gang and sync.podgroup is not None and sync.may_act:
        sync.actions.delete_object("PodGroup", sync.key(podgroup_name(sync.job)))


def _finished(sync: _Sync) -> None:
    _delete_pods_and_services(sync, sync.job.clean_pod_policy)
    _delete_podgroup(sync)
    _ttl(sync)
    if cond.has(sync.status, cond.SUCCEEDED):
        for replica in sync.status.replicaStatuses.values():
            replica.succeeded = (replica.succeeded or 0) + (replica.active or 0)
            replica.active = 0


def _ttl(sync: _Sync) -> None:
    ttl = sync.job.ttl_seconds_after_finished
    finished = parse_rfc3339(sync.status.completionTime)
    if ttl is None or finished is None:
        return
    if sync.now >= finished + ttl:
        sync.actions.delete_job = True
    else:
        sync.actions.requeue_after = finished + ttl - sync.now


def _suspend(sync: _Sync) -> None:
    _delete_pods_and_services(sync, "All")
    _delete_podgroup(sync)
    for replica in sync.status.replicaStatuses.values():
        replica.active = 0
    message = f"PyTorchJob {sync.job.name} is suspended."
    why = cond.reason("Suspended")
    if cond.has(sync.status, cond.RUNNING):
        cond.set_condition(sync.status, cond.RUNNING, "False", why, message, sync.stamp)
    if not cond.has(sync.status, cond.SUSPENDED):
        cond.set_condition(sync.status, cond.SUSPENDED, "True", why, message, sync.stamp)
        sync.actions.events.append(("Normal", "Suspended", message))


def _restarts(sync: _Sync) -> int:
    """Container restarts of live pods whose replicas restart in place (OnFailure, Always)."""
    total = 0
    for replica in sync.job.replicas:
        if replica.restart_policy not in ("OnFailure", "Always"):
            continue
        for pod in _pods_of(sync, replica):
            if pod.status.phase in ("Running", "Pending"):
                statuses = [*pod.status.initContainerStatuses, *pod.status.containerStatuses]
                total += sum(s.restartCount for s in statuses)
    return total


def _limit_exceeded(sync: _Sync) -> str | None:
    job = sync.job
    if job.backoff_limit is not None:
        restarts = _restarts(sync)
        past = restarts > 0 if job.backoff_limit == 0 else restarts >= job.backoff_limit
        if past:
            return f"Job {job.name} has failed because it has reached the specified backoff limit"
    started = parse_rfc3339(sync.status.startTime)
    deadline = job.active_deadline_seconds
    if deadline is not None and started is not None:
        if sync.now - started >= deadline:
            return f"Job {job.name} has failed because it was active longer than specified deadline"
        sync.actions.requeue_after = started + deadline - sync.now
    return None


def _fail(sync: _Sync, message: str) -> None:
    if sync.status.completionTime is None:
        sync.status.completionTime = sync.stamp
    _delete_pods_and_services(sync, sync.job.clean_pod_policy)
    _delete_podgroup(sync)
    why = cond.reason("Failed")
    sync.actions.events.append(("Normal", why, message))
    cond.set_condition(sync.status, cond.FAILED, "True", why, message, sync.stamp)
    sync.actions.requeue_after = None
    _ttl(sync)


# -- replicas -----------------------------------------------------------------------------------


def _pods_of(sync: _Sync, replica: Replica) -> list[Pod]:
    return [p for p in sync.pods if p.metadata.labels.get(REPLICA_TYPE_LABEL) == replica.rt]


def _index(obj: Pod | Service) -> int:
    try:
        return int(obj.metadata.labels.get(REPLICA_INDEX_LABEL, "-1"))
    except ValueError:
        return -1


def _exit_code(pod: Pod) -> int:
    for status in pod.status.containerStatuses:
        if status.name == DEFAULT_CONTAINER:
            code = status.exit_code()
            if code is not None:
                return code
    return NO_EXIT_CODE


def restartable(replica: Replica, pod: Pod) -> bool:
    """A failed pod the operator deletes to recreate: exit codes ≥ 128 (signals) under ExitCode."""
    policy = replica.restart_policy
    if policy == "ExitCode":
        return _exit_code(pod) >= 128
    return policy in ("OnFailure", "Always")


def _count_replicas(sync: _Sync) -> None:
    statuses: dict[str, ReplicaStatus] = {}
    for replica in sync.job.replicas:
        selector = replica_selector(sync.job, replica)
        status = ReplicaStatus(
            active=0,
            succeeded=0,
            failed=0,
            labelSelector={"matchLabels": selector},
            selector=",".join(f"{k}={v}" for k, v in sorted(selector.items())),
        )
        for pod in _pods_of(sync, replica):
            phase = pod.status.phase
            if phase == "Running" and pod.metadata.deletionTimestamp is not None:
                status.failed = (status.failed or 0) + 1  # a terminating orphan never fails
            elif phase == "Running":
                status.active = (status.active or 0) + 1
            elif phase == "Succeeded":
                status.succeeded = (status.succeeded or 0) + 1
            elif phase == "Failed":
                status.failed = (status.failed or 0) + 1
                if not restartable(replica, pod):
                    sync.permanent_failures[replica.type] = (
                        sync.permanent_failures.get(replica.type, 0) + 1
                    )
        statuses[replica.type] = status
    sync.status.replicaStatuses = statuses


def _sync_podgroup(sync: _Sync) -> bool:
    """Create or update the PodGroup; True when pods may be created (it left Pending)."""
    job, pg = sync.job, sync.podgroup
    if not job.gang:
        return True
    if pg is None:
        if sync.may_act:
            sync.actions.create.append(build_podgroup(job))
        return False
    want = podgroup_spec(job, queue=pg.spec.queue)
    same = (
        pg.spec.minMember == want["minMember"]
        and pg.spec.queue == want["queue"]
        and (pg.spec.priorityClassName or None) == want.get("priorityClassName")
        and Resources.from_list(pg.spec.minResources) == Resources.from_list(want["minResources"])
    )
    if not same:
        # The operator replaces the whole spec: a priority class no longer wanted goes too.
        patch = {"spec": {"priorityClassName": None, **want}}
        sync.actions.patch.append(Patch("PodGroup", sync.key(podgroup_name(job)), patch))
    return pg.status.phase not in ("", "Pending")


def _sync_replicas(sync: _Sync) -> None:
    admitted = _sync_podgroup(sync)
    act = sync.may_act and admitted
    for replica in sync.job.replicas:
        _sync_pods(sync, replica, act=act)
        _sync_services(sync, replica, act=act)
    if any(obj["kind"] == "Pod" for obj in sync.actions.create) and other_scheduler(sync.job):
        sync.actions.events.append(("Warning", SCHEDULER_NAME_REASON, SCHEDULER_NAME_MESSAGE))
    _update_status(sync)


def _sync_pods(sync: _Sync, replica: Replica, *, act: bool) -> None:
    by_index: dict[int, list[Pod]] = {}
    for pod in _pods_of(sync, replica):
        by_index.setdefault(_index(pod), []).append(pod)
    for index in range(replica.replicas):
        pods = by_index.pop(index, [])
        if not pods:
            if act:
                sync.actions.create.append(build_pod(sync.job, replica, index))
            continue
        pod = pods[0]
        if len(pods) > 1:
            sync.actions.events.append(
                ("Warning", "TooManyPods", f"more than one pod for index {index}")
            )
        if pod.status.phase == "Failed" and restartable(replica, pod) and act:
            if pod.metadata.deletionTimestamp is None:
                sync.actions.delete_object("Pod", sync.key(pod.metadata.name))
            message = f"PyTorchJob {sync.job.name} is restarting because {replica.type} "
            message += "replica(s) failed."
            sync.actions.events.append(("Warning", "JobRestarting", message))
            _mark(sync, cond.RESTARTING, "Restarting", message)
    for index in sorted(by_index):
        for pod in by_index[index]:
            if act and pod.metadata.deletionTimestamp is None:
                sync.actions.delete_object("Pod", sync.key(pod.metadata.name))  # scaled down


def _sync_services(sync: _Sync, replica: Replica, *, act: bool) -> None:
    have = {
        _index(s): s
        for s in sync.services
        if s.metadata.labels.get(REPLICA_TYPE_LABEL) == replica.rt
    }
    for index in range(replica.replicas):
        if have.pop(index, None) is None and act:
            sync.actions.create.append(build_service(sync.job, replica, index))
    for index in sorted(have):
        if act:
            sync.actions.delete_object("Service", sync.key(have[index].metadata.name))


def _update_status(sync: _Sync) -> None:
    """The operator's ``UpdateJobStatus``: Running, Succeeded, Restarting or Failed."""
    job, status, stamp = sync.job, sync.status, sync.stamp
    if status.startTime is None:
        status.startTime = stamp
        if job.active_deadline_seconds is not None:
            sync.actions.requeue_after = float(job.active_deadline_seconds)
    has_master = job.replica(MASTER) is not None
    for replica in job.replicas:
        counts = status.replicaStatuses[replica.type]
        succeeded, running = counts.succeeded or 0, counts.active or 0
        failed = counts.failed or 0
        decisive = replica.type == (MASTER if has_master else WORKER)
        # The master decides (or, without one, the workers; elastic jobs need just one).
        done = replica.replicas - succeeded == 0 or (
            not has_master and job.elastic is not None and succeeded > 0
        )
        if decisive and has_master and running > 0:
            _mark(sync, cond.RUNNING, "Running", f"PyTorchJob {job.name} is running.")
        if decisive and done and sync.may_act:
            _succeed(sync)
            return
        if decisive and not has_master and running > 0:
            _mark(sync, cond.RUNNING, "Running", f"PyTorchJob {job.name} is running.")
        if failed > 0 and replica.replicas > succeeded + running:
            which = f"{failed} {replica.type} replica(s) failed."
            if sync.permanent_failures.get(replica.type, 0) == 0:
                message = f"PyTorchJob {job.name} is restarting because {which}"
                _mark(sync, cond.RESTARTING, "Restarting", message)
            elif sync.may_act:
                message = f"PyTorchJob {job.name} is failed because {which}"
                if status.completionTime is None:
                    status.completionTime = stamp
                sync.actions.events.append(("Normal", cond.reason("Failed"), message))
                _mark(sync, cond.FAILED, "Failed", message)


def _succeed(sync: _Sync) -> None:
    job, status = sync.job, sync.status
    message = f"PyTorchJob {job.name} is successfully completed."
    if status.completionTime is None:
        status.completionTime = sync.stamp
    sync.actions.events.append(("Normal", cond.reason("Succeeded"), message))
    _mark(sync, cond.SUCCEEDED, "Succeeded", message)


def _mark(sync: _Sync, type_: str, what: str, message: str, value: str = "True") -> None:
    cond.set_condition(sync.status, type_, value, cond.reason(what), message, sync.stamp)
