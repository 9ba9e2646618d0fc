"""Lifecycle policies: which event happened to a job, and which action a policy maps it to.

Volcano's controller is edge-triggered: informer callbacks turn pod transitions into requests
(``PodFailed`` with the exit code, ``PodEvicted`` on deletion, ``TaskCompleted``...) and
``applyPolicies`` maps each to an action, task policies before job policies. A pure reconcile sees
levels, not edges, so the events are derived from the pods of the job's *current* version: once an
action kills pods it bumps the version, so the same pod never fires twice (Volcano drops requests
from older versions the same way). A policy with a ``timeout`` fires only once the condition has
held that long, as Volcano's delayed actions; until then the reconcile asks to be requeued.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.jobcontroller.volcanojob.spec import JobView, Task
from shared.kube.timefmt import parse_go_duration, parse_rfc3339
from shared.models import Pod
from shared.models.volcano import JOB_VERSION_KEY, TASK_SPEC_KEY, LifecyclePolicy

SYNC_JOB = "SyncJob"
ANY_EVENT = "*"
# ``isInternalEvent``: events that never trigger a policy.
INTERNAL_EVENTS = frozenset({"OutOfSync", "CommandIssued", "PodRunning"})
# ``shouldConfigureTimeout``: a policy on these events applies only with a ``timeout``.
TIMEOUT_EVENTS = frozenset({"PodPending"})


@dataclass(frozen=True, slots=True)
class JobEvent:
    """One derived event: what happened, to which task/pod, and since when."""

    event: str
    task: str = ""
    pod: str = ""
    exit_code: int | None = None
    since: float | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """The action to execute now (``SyncJob`` if none), and what triggered it."""

    action: str = SYNC_JOB
    trigger: JobEvent | None = None
    requeue_after: float | None = None


def _index(pod: Pod) -> int:
    try:
        return int(pod.metadata.name.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return -1


def _exit_code(pod: Pod) -> int | None:
    # Volcano reads the first container only ("only one container pod is supported").
    statuses = pod.status.containerStatuses
    return statuses[0].exit_code() if statuses else None


def _finished_at(pod: Pod) -> float | None:
    for status in pod.status.containerStatuses:
        if status.state is not None and status.state.terminated is not None:
            at = parse_rfc3339(status.state.terminated.get("finishedAt"))
            if at is not None:
                return at
    return parse_rfc3339(pod.metadata.creationTimestamp)


def _task_failed(task: Task, pods: list[Pod]) -> bool:
    """A live pod of the task restarted its containers ``maxRetry`` times (Volcano's TaskFailed)."""
    for pod in pods:
        if pod.status.phase not in ("Pending", "Running"):
            continue
        statuses = [*pod.status.initContainerStatuses, *pod.status.containerStatuses]
        if any(status.restartCount >= task.max_retry for status in statuses):
            return True
    return False


def derive_events(
    job: JobView, pods_by_task: dict[str, list[Pod]], version: int, podgroup_phase: str | None
) -> list[JobEvent]:
    """The events the current pods represent, in task order then pod index order."""
    events: list[JobEvent] = []
    current = str(version)
    for task in job.tasks:
        pods = sorted(pods_by_task.get(task.name, []), key=_index)
        mine = [p for p in pods if p.metadata.annotations.get(JOB_VERSION_KEY) == current]
        for pod in mine:
            name = pod.metadata.name
            if pod.metadata.deletionTimestamp is not None:
                if 0 <= _index(pod) < task.replicas:
                    since = parse_rfc3339(pod.metadata.deletionTimestamp)
                    events.append(JobEvent("PodEvicted", task.name, name, since=since))
            elif pod.status.phase == "Failed":
                events.append(
                    JobEvent("PodFailed", task.name, name, _exit_code(pod), _finished_at(pod))
                )
            elif pod.status.phase == "Pending":
                since = parse_rfc3339(pod.metadata.creationTimestamp)
                events.append(JobEvent("PodPending", task.name, name, since=since))
        succeeded = sum(1 for p in mine if p.status.phase == "Succeeded")
        if task.replicas > 0 and succeeded >= task.replicas:
            events.append(JobEvent("TaskCompleted", task.name))
        if _task_failed(task, mine):
            events.append(JobEvent("TaskFailed", task.name))
    if podgroup_phase == "Unknown":
        events.append(JobEvent("JobUnknown"))
    return events


def _policy_events(policy: LifecyclePolicy) -> list[str]:
    return [*policy.events, policy.event] if policy.event else list(policy.events)


def matching_policy(job: JobView, event: JobEvent) -> LifecyclePolicy | None:
    """Task policies first, then job policies; an event (or ``*``) or an exit code matches.
    As ``applyPolicies``: an internal event matches nothing, and a policy on ``PodPending``
    only one with a ``timeout``."""
    if event.event in INTERNAL_EVENTS:
        return None
    task = job.task(event.task) if event.task else None
    candidates = [*(task.policies if task else ()), *job.policies]
    for policy in candidates:
        names = _policy_events(policy)
        applies = event.event not in TIMEOUT_EVENTS or policy.timeout is not None
        if names and (event.event in names or ANY_EVENT in names) and applies:
            return policy
        if policy.exitCode is not None and event.exit_code == policy.exitCode:
            return policy
    return None


def decide(job: JobView, events: list[JobEvent], now: float) -> Decision:
    """The first event whose policy action is due; the earliest pending timeout otherwise."""
    wait: float | None = None
    for event in events:
        policy = matching_policy(job, event)
        if policy is None or not policy.action or policy.action == SYNC_JOB:
            continue
        delay = parse_go_duration(policy.timeout) if policy.timeout else None
        if delay and event.since is not None and now < event.since + delay:
            remaining = event.since + delay - now
            wait = remaining if wait is None else min(wait, remaining)
            continue
        return Decision(policy.action, event)
    return Decision(requeue_after=wait)


def pods_by_task(pods: list[Pod]) -> dict[str, list[Pod]]:
    grouped: dict[str, list[Pod]] = {}
    for pod in pods:
        grouped.setdefault(pod.metadata.annotations.get(TASK_SPEC_KEY, ""), []).append(pod)
    return grouped
