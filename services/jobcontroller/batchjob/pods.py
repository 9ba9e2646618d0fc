"""What the Job controller reads from a pod: phase predicates, readiness, index, finish time."""

from __future__ import annotations

from services.jobcontroller.batchjob import keys
from services.jobcontroller.batchjob.spec import JobView
from shared.kube.timefmt import parse_rfc3339
from shared.models import Pod

SUCCEEDED = "Succeeded"
FAILED = "Failed"
TERMINAL_PHASES = (SUCCEEDED, FAILED)
UNKNOWN_INDEX = -1


def is_active(pod: Pod) -> bool:
    return pod.status.phase not in TERMINAL_PHASES and pod.metadata.deletionTimestamp is None


def is_terminating(pod: Pod) -> bool:
    return pod.status.phase not in TERMINAL_PHASES and pod.metadata.deletionTimestamp is not None


def is_ready(pod: Pod) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions)


def ready_since(pod: Pod) -> float | None:
    for cond in pod.status.conditions:
        if cond.type == "Ready" and cond.status == "True":
            return parse_rfc3339(cond.lastTransitionTime)
    return None


def is_failed(pod: Pod, job: JobView) -> bool:
    """Failed, or (unless only failed pods are replaced) deleted before it could succeed."""
    if pod.status.phase == FAILED:
        return True
    if job.only_replace_failed:
        return False
    return pod.metadata.deletionTimestamp is not None and pod.status.phase != SUCCEEDED


def has_finalizer(pod: Pod) -> bool:
    return keys.TRACKING_FINALIZER in pod.metadata.finalizers


def completion_index(pod: Pod) -> int:
    value = pod.metadata.annotations.get(keys.COMPLETION_INDEX_KEY)
    try:
        index = int(value) if value is not None else UNKNOWN_INDEX
    except ValueError:
        return UNKNOWN_INDEX
    return index if index >= 0 else UNKNOWN_INDEX


def valid_index(pod: Pod, completions: int | None) -> bool:
    index = completion_index(pod)
    return index != UNKNOWN_INDEX and completions is not None and index < completions


def max_restarts(pod: Pod) -> int:
    return max((s.restartCount for s in pod.status.containerStatuses), default=0)


def total_restarts(pod: Pod) -> int:
    statuses = pod.status.containerStatuses + pod.status.initContainerStatuses
    return sum(s.restartCount for s in statuses)


def _annotation_count(pod: Pod, key: str) -> int:
    try:
        value = int(pod.metadata.annotations.get(key, "0"))
    except ValueError:
        return 0
    return value if 0 <= value <= 2**31 - 1 else 0


def index_failure_count(pod: Pod) -> int:
    """Counted failures of the pod's index before this pod (from its annotation)."""
    return _annotation_count(pod, keys.INDEX_FAILURE_COUNT_ANNOTATION)


def index_ignored_failure_count(pod: Pod) -> int:
    return _annotation_count(pod, keys.INDEX_IGNORED_FAILURE_COUNT_ANNOTATION)


def finished_time(pod: Pod) -> float:
    """When the pod finished: its last container exit, else Ready=False, else its deletion
    (minus the grace period), else its creation — the lookups Kubernetes uses."""
    finished = _containers_finished_at(pod)
    if finished is not None:
        return finished
    for cond in pod.status.conditions:
        if cond.type == "Ready" and cond.status == "False":
            at = parse_rfc3339(cond.lastTransitionTime)
            if at is not None:
                return at
    deleted = parse_rfc3339(pod.metadata.deletionTimestamp)
    if deleted is not None:
        return deleted - float(pod.metadata.deletionGracePeriodSeconds or 0)
    return parse_rfc3339(pod.metadata.creationTimestamp) or 0.0


def _containers_finished_at(pod: Pod) -> float | None:
    latest: float | None = None
    for status in pod.status.containerStatuses:
        terminated = status.state.terminated if status.state is not None else None
        if terminated is None:
            return None
        at = parse_rfc3339(terminated.get("finishedAt"))
        if at is None:
            return None
        latest = at if latest is None else max(latest, at)
    return latest
