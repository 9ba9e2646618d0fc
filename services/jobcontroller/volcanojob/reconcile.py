"""One sync of a Volcano Job: observed pods, PodGroup and Commands in; actions out.

The order follows volcano's ``processNextReq``: pick the action (a Command first, else the first
due lifecycle policy), let the phase's state decide whether to sync or kill, recount the pods and
run the state's update function. Pods are created only once the PodGroup has left ``Pending``
(the scheduler's enqueue admitted it), as Volcano does, so an unadmitted gang holds no pods.
While expectations are unsatisfied the cache may be stale: the sync recounts and writes status
but creates and deletes nothing, defers Commands and policy actions, and never finishes the job.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from services.jobcontroller.core import Actions, Observed, Patch, editable_copy
from services.jobcontroller.volcanojob import states
from services.jobcontroller.volcanojob.objects import (
    build_pod,
    build_podgroup,
    podgroup_spec,
    sub_group_policy,
    sub_group_policy_changed,
)
from services.jobcontroller.volcanojob.plugins import (
    Plugin,
    build_plugins,
    controlled_key,
    unknown_plugins,
)
from services.jobcontroller.volcanojob.policies import SYNC_JOB, decide, derive_events, pods_by_task
from services.jobcontroller.volcanojob.spec import JobView, Task, job_view
from shared.kube.keys import namespaced_key
from shared.kube.timefmt import format_rfc3339, go_duration, parse_rfc3339
from shared.models import Command, Json, ObjectMeta, Pod, PodGroup, VolcanoJob
from shared.models.volcano import JOB_NAME_KEY, TASK_SPEC_KEY, JobCondition, TaskState
from shared.models.volcano import VolcanoJobStatus as Status
from shared.resources import Resources


@dataclass(slots=True)
class _Sync:
    """Everything one reconcile works on."""

    job: JobView
    status: Status
    pods: list[Pod]
    podgroup: PodGroup | None
    plugins: list[Plugin]
    now: float
    may_act: bool
    actions: Actions = field(default_factory=Actions)
    deleted_any: bool = False


def reconcile(job: VolcanoJob, observed: Observed, now: float) -> Actions:
    """One sync of ``job`` against ``observed``; pure and deterministic."""
    if job.metadata.deletionTimestamp is not None:
        return Actions()  # being deleted: garbage collection owns its objects now
    view = job_view(job)
    sync = _Sync(
        job=view,
        status=editable_copy(job.status),
        pods=[pod for pod in observed.pods if _owned(pod, view)],
        podgroup=_podgroup(view, observed.podgroups),
        plugins=build_plugins(view.plugins),
        now=now,
        may_act=observed.expectations_satisfied,
    )
    if not sync.status.state.phase:
        _initiate(sync)
    action = _choose_action(sync, observed.commands)
    phase = sync.status.state.phase
    live = any(pod.metadata.deletionTimestamp is None for pod in sync.pods)
    step = states.step_for(phase, action, has_live_pods=live)
    if step.mode == "sync":
        _sync_pods(sync, step.update, initiating=phase == states.PENDING)
    else:
        target = _target(sync, action) if step.mode == "kill_task" else None
        _kill(sync, step.retain, step.update, target=target)
    _after_finish(sync)
    sync.actions.status = sync.status
    return sync.actions


def _podgroup(job: JobView, podgroups: list[PodGroup]) -> PodGroup | None:
    """``getPodGroupByJob``: ``<job>-<uid>``, else a PodGroup named as the job (Volcano < 1.5
    named them so; such a PodGroup is still updated and deleted with its job)."""
    by_name = {pg.metadata.name: pg for pg in podgroups}
    return by_name.get(job.podgroup_name) or by_name.get(job.name)


def _owned(pod: Pod, job: JobView) -> bool:
    ref = pod.metadata.controller_ref()
    if ref is not None and job.uid:
        return ref.uid == job.uid
    return (
        pod.metadata.annotations.get(JOB_NAME_KEY) == job.name
        and (pod.metadata.namespace or "default") == job.namespace
    )


def _initiate(sync: _Sync) -> None:
    sync.status.state.phase = states.PENDING
    sync.status.minAvailable = sync.job.min_available
    _transitioned(sync)


def _transitioned(sync: _Sync) -> None:
    stamp = format_rfc3339(sync.now)
    sync.status.state.lastTransitionTime = stamp
    phase = sync.status.state.phase
    # appendJobCondition: one condition per phase, the latest last.
    sync.status.conditions = [
        *(c for c in sync.status.conditions if c.status != phase),
        JobCondition(status=phase, lastTransitionTime=stamp),
    ]


def _targets(command: Command, job: JobView) -> bool:
    target = command.target
    if target is None or target.name != job.name:
        return False
    return not (target.uid and job.uid and target.uid != job.uid)


def _choose_action(sync: _Sync, commands: list[Command]) -> str:
    """A Command wins over policies; both wait while the cache may be stale."""
    mine = sorted(
        (c for c in commands if _targets(c, sync.job)),
        key=lambda c: (c.metadata.creationTimestamp or "", c.metadata.name),
    )
    if mine and sync.may_act:
        command = mine[0]
        sync.actions.consumed_commands.append(
            namespaced_key(sync.job.namespace, command.metadata.name)
        )
        message = (
            f"Start to execute command {command.action}, and clean it up to make sure "
            "executed not more than once."
        )
        sync.actions.events.append(("Normal", "CommandIssued", message))
        if len(mine) > 1:
            sync.actions.requeue_after = 0.0  # one Command per sync, as Volcano's queue does
        return _announce(sync, command.action)
    if not sync.job.policies and not any(task.policies for task in sync.job.tasks):
        return SYNC_JOB  # no policy can match an event: ``decide`` would say SyncJob, no wait
    events = derive_events(
        sync.job,
        pods_by_task(sync.pods),
        sync.status.version,
        sync.podgroup.status.phase if sync.podgroup is not None else None,
    )
    decision = decide(sync.job, events, sync.now)
    if decision.requeue_after is not None:
        _requeue(sync, decision.requeue_after)
    if not sync.may_act or decision.action == SYNC_JOB:
        return SYNC_JOB
    if decision.trigger is not None:
        sync.actions.events.append(("Normal", "PolicyTriggered", decision.trigger.event))
    return _announce(sync, decision.action)


def _announce(sync: _Sync, action: str) -> str:
    if action != SYNC_JOB:
        sync.actions.events.append(
            ("Normal", "ExecuteAction", f"Start to execute action {action} ")
        )
    return action


@dataclass(frozen=True, slots=True)
class _Target:
    """What a targeted kill deletes (``state.Target``): a task's pods, or one pod of it."""

    task: str
    pod: str | None = None


def _target(sync: _Sync, action: str) -> _Target:
    """The task (``RestartTask``) or pod (``RestartPod``) the policy fired for (derived again:
    the decision is pure). None found, as for such a Command: a target that matches no pod."""
    events = derive_events(sync.job, pods_by_task(sync.pods), sync.status.version, None)
    decision = decide(sync.job, events, sync.now)
    trigger = decision.trigger
    if trigger is None:
        return _Target(task="")
    return _Target(task=trigger.task, pod=trigger.pod if action == "RestartPod" else None)


def _requeue(sync: _Sync, after: float) -> None:
    current = sync.actions.requeue_after
    sync.actions.requeue_after = after if current is None else min(current, after)


# -- counting -----------------------------------------------------------------------------------


def _reset_counts(status: Status) -> None:
    status.pending = status.running = status.succeeded = status.failed = 0
    status.terminating = status.unknown = 0
    status.taskStatusCount = {}


def _count(status: Status, pod: Pod, phase: str | None = None) -> None:
    phase = phase or pod.status.phase or "Unknown"
    if phase == "Pending":
        status.pending += 1
    elif phase == "Running":
        status.running += 1
    elif phase == "Succeeded":
        status.succeeded += 1
    elif phase == "Failed":
        status.failed += 1
    else:
        status.unknown += 1
        phase = "Unknown"
    task = pod.metadata.annotations.get(TASK_SPEC_KEY)
    if task is not None:
        counts = status.taskStatusCount.setdefault(task, TaskState())
        counts.phase = {**counts.phase, phase: counts.phase.get(phase, 0) + 1}


def _apply_update(sync: _Sync, update: states.UpdateFn | None) -> bool:
    """Run the state's update; while the cache may be stale, refuse to finish the job."""
    if update is None:
        return False
    before = msgspec.structs.replace(sync.status.state)
    retries = sync.status.retryCount
    moved = update(sync.job, sync.status)
    if moved and not sync.may_act and sync.status.state.phase in states.FINISHED:
        sync.status.state = before
        sync.status.retryCount = retries
        return False
    if moved:
        _transitioned(sync)
    return moved


# -- sync ---------------------------------------------------------------------------------------


def _sync_pods(sync: _Sync, update: states.UpdateFn | None, *, initiating: bool) -> None:
    unknown = unknown_plugins(sync.job.plugins)
    if unknown:
        # pluginOnJobAdd / pluginOnJobUpdate fail: the sync stops before the PodGroup and pods.
        message = f"Execute plugin when job add failed, err: failed to get plugin {unknown[0]}"
        sync.actions.events.append(("Warning", "PluginError", message))
        return
    if initiating:
        _add_plugin_objects(sync)
    _ensure_podgroup(sync)
    pg = sync.podgroup
    if pg is not None:
        _record_podgroup_event(sync, pg)
    admitted = pg is not None and pg.status.phase not in ("", "Pending")
    status, job = sync.status, sync.job
    _reset_counts(status)
    status.minAvailable = job.min_available
    every = {pod.metadata.name: pod for pod in sync.pods}
    by_name = dict(every)
    for task in job.tasks:
        startable = _dependencies_ready(job, task, every)
        for index in range(task.replicas):
            name = f"{job.name}-{task.name}-{index}"
            pod = by_name.pop(name, None)
            if pod is None:
                if admitted and sync.may_act and startable:
                    manifest = build_pod(
                        job, task, index, version=status.version,
                        retry_count=status.retryCount, plugins=sync.plugins,
                    )  # fmt: skip
                    sync.actions.create.append(manifest)
                    _count(status, Pod(metadata=_created_meta(task.name)), "Pending")
            elif pod.metadata.deletionTimestamp is not None:
                status.terminating += 1
            else:
                _count(status, pod)
    known = {task.name for task in job.tasks}
    for pod in sorted(by_name.values(), key=lambda p: p.metadata.name):
        # Scaled-down replicas; pods of tasks no longer in the spec are left alone, as Volcano.
        if pod.metadata.annotations.get(TASK_SPEC_KEY) not in known:
            continue
        if pod.metadata.deletionTimestamp is not None:
            status.terminating += 1
        elif admitted and sync.may_act:
            _delete(sync, "Pod", pod)
            status.terminating += 1
        else:
            _count(status, pod)
    _apply_update(sync, update)


def _record_podgroup_event(sync: _Sync, pg: PodGroup) -> None:
    """``recordPodGroupEvent``: a Warning ``PodGroupPending`` when the PodGroup's latest true
    condition (by transition time; the first of equal times) is not ``Scheduled``."""
    latest = None
    for condition in pg.status.conditions:
        if condition.status != "True":
            continue
        at = parse_rfc3339(condition.lastTransitionTime) or 0.0
        if latest is None or at > latest[0]:
            latest = (at, condition)
    if latest is None or latest[1].type == "Scheduled":
        return
    condition = latest[1]
    job = sync.job
    message = (
        f"PodGroup {job.namespace}:{job.name} {condition.type.lower()}, "
        f"reason: {condition.message or ''}"
    )
    sync.actions.events.append(("Warning", "PodGroupPending", message))


def _dependencies_ready(job: JobView, task: Task, pods: dict[str, Pod]) -> bool:
    """``waitDependsOnTaskMeetCondition``: with ``dependsOn``, a task's pods are created once
    every named task (or, with ``iteration: Any`` and several names, one of them) has at least
    its ``minAvailable`` pods Succeeded, or Running with every container ready. A sync that
    waits is woken by the pods of those tasks changing."""
    if not task.depends_on:
        return True
    ready = [_task_ready(job, name, pods) for name in task.depends_on]
    if len(task.depends_on) > 1 and task.depends_on_any:
        return any(ready)
    return all(ready)


def _task_ready(job: JobView, name: str, pods: dict[str, Pod]) -> bool:
    task = next((t for t in job.tasks if t.name == name), None)
    if task is None:
        return True  # Volcano's webhook refuses such a job; the controller does not wait
    running = 0
    for index in range(task.replicas):
        pod = pods.get(f"{job.name}-{task.name}-{index}")
        if pod is None:
            continue
        phase = pod.status.phase
        if phase == "Succeeded" or (
            phase == "Running" and all(c.ready for c in pod.status.containerStatuses)
        ):
            running += 1
    return running >= task.min_available


def _created_meta(task: str) -> ObjectMeta:
    return ObjectMeta(annotations={TASK_SPEC_KEY: task})


def _delete(sync: _Sync, kind: str, pod: Pod) -> None:
    sync.actions.delete_object(
        kind, namespaced_key(pod.metadata.namespace or sync.job.namespace, pod.metadata.name)
    )
    sync.deleted_any = True


def _add_plugin_objects(sync: _Sync) -> None:
    controlled = dict(sync.status.controlledResources)
    for plugin in sync.plugins:
        key = controlled_key(plugin)
        if controlled.get(key) == plugin.NAME or not sync.may_act:
            continue
        sync.actions.create.extend(plugin.on_job_add(sync.job))
        controlled[key] = plugin.NAME
    sync.status.controlledResources = controlled


def _ensure_podgroup(sync: _Sync) -> None:
    job, pg = sync.job, sync.podgroup
    if pg is None:
        if sync.may_act:
            sync.actions.create.append(build_podgroup(job))
        return
    want = podgroup_spec(job)
    have = pg.spec
    same = (
        have.minMember == want["minMember"]
        and have.minTaskMember == want["minTaskMember"]
        and (have.priorityClassName or None) == want.get("priorityClassName")
        and Resources.from_list(have.minResources) == Resources.from_list(want["minResources"])
    )
    if sub_group_policy_changed(job, have.subGroupPolicy):
        want["subGroupPolicy"] = sub_group_policy(job).get("subGroupPolicy")
        same = False
    if not same:
        patch: Json = {"spec": {**want, "priorityClassName": want.get("priorityClassName")}}
        key = namespaced_key(job.namespace, pg.metadata.name)
        sync.actions.patch.append(Patch(kind="PodGroup", key=key, patch=patch))


# -- kill ---------------------------------------------------------------------------------------


def _kill(
    sync: _Sync, retain: frozenset[str], update: states.UpdateFn | None, *, target: _Target | None
) -> None:
    before = editable_copy(sync.status)
    status, job = sync.status, sync.job
    last_retry = status.retryCount >= job.max_retry - 1
    keep = states.RETAIN_SOFT if last_retry else retain
    _reset_counts(status)
    status.minAvailable = job.min_available
    for pod in sorted(sync.pods, key=lambda p: p.metadata.name):
        if pod.metadata.deletionTimestamp is not None:
            status.terminating += 1
            continue
        in_target = target is None or (
            pod.metadata.annotations.get(TASK_SPEC_KEY) == target.task
            and target.pod in (None, pod.metadata.name)
        )
        if in_target and (pod.status.phase or "") not in keep and sync.may_act:
            _delete(sync, "Pod", pod)
            status.terminating += 1
            continue
        _count(status, pod)
    if unknown_plugins(job.plugins):
        # pluginOnJobDelete fails after the pods were deleted: no status, no PodGroup deletion.
        sync.status = before
        return
    created = parse_rfc3339(job.creation_timestamp)
    if created is not None:
        status.runningDuration = go_duration(sync.now - created)
    moved = _apply_update(sync, update)
    if sync.deleted_any or moved:
        status.version += (
            1  # Volcano bumps on every kill; only real kills here keep syncs idempotent
        )
    if target is None and sync.may_act:
        _remove_job_objects(sync)


def _remove_job_objects(sync: _Sync) -> None:
    controlled = dict(sync.status.controlledResources)
    for plugin in sync.plugins:
        key = controlled_key(plugin)
        if controlled.get(key) != plugin.NAME:
            continue
        for kind, object_key in plugin.on_job_delete(sync.job):
            sync.actions.delete_object(kind, object_key)
        del controlled[key]
    sync.status.controlledResources = controlled
    if sync.podgroup is not None:
        sync.actions.delete_object(
            "PodGroup", namespaced_key(sync.job.namespace, sync.podgroup.metadata.name)
        )


# -- after finishing ----------------------------------------------------------------------------


def _after_finish(sync: _Sync) -> None:
    """``ttlSecondsAfterFinished``: Volcano's garbage collector deletes finished jobs."""
    ttl = sync.job.ttl_seconds_after_finished
    state = sync.status.state
    if ttl is None or state.phase not in (states.COMPLETED, states.FAILED, states.TERMINATED):
        return
    finished = parse_rfc3339(state.lastTransitionTime)
    if finished is None:
        return
    if sync.now >= finished + ttl:
        sync.actions.delete_job = True
    else:
        _requeue(sync, finished + ttl - sync.now)
