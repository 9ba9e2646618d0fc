"""Pod-failure back-off: how long to wait before replacing failed pods.

The delay is 10 s after one failure and doubles with each consecutive failure (failures since
the last success), capped at six minutes, counted from the last failure. Kubernetes keeps the
failure record in the controller's memory; here it is derived from the pods in the cache, so
the reconcile stays a pure function of its inputs (and a restarted controller agrees with
itself). With backoffLimitPerIndex each index backs off on its own, from the failure count
annotation of its last failed pod.
"""

from __future__ import annotations

from services.jobcontroller.batchjob import keys
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.spec import JobView
from shared.models import Pod


def delay_for(failures: int) -> float:
    if failures <= 0:
        return 0.0
    delay = keys.POD_FAILURE_BACKOFF_SECONDS
    for _ in range(1, failures):
        delay *= 2
        if delay >= keys.MAX_POD_FAILURE_BACKOFF_SECONDS:
            return keys.MAX_POD_FAILURE_BACKOFF_SECONDS
    return delay


def remaining(failures: int, last_failure: float | None, now: float) -> float:
    """Seconds left before a replacement may be created (0 when it may be created now)."""
    if failures <= 0 or last_failure is None:
        return 0.0
    return max(0.0, delay_for(failures) - (now - last_failure))


def job_remaining(job: JobView, pods: list[Pod], now: float) -> float:
    """The Job-wide back-off: failures after the last success, from the last failure."""
    last_success: float | None = None
    failures: list[float] = []
    for pod in pods:
        if pod.status.phase == podutil.SUCCEEDED:
            at = podutil.finished_time(pod)
            last_success = at if last_success is None else max(last_success, at)
        elif pod.status.phase == podutil.FAILED or (
            # A deleted pod counts while it is tracked; pods the controller deletes lose their
            # finalizer first and never count, as in Kubernetes.
            podutil.is_failed(pod, job) and podutil.has_finalizer(pod)
        ):
            failures.append(podutil.finished_time(pod))
    if last_success is not None:
        failures = [at for at in failures if at > last_success]
    return remaining(len(failures), max(failures, default=None), now)


def index_remaining(last_failed: Pod | None, now: float) -> float:
    """The back-off of one index, given its last failed pod (None: no failure yet)."""
    if last_failed is None:
        return 0.0
    count = podutil.index_failure_count(last_failed) + podutil.index_ignored_failure_count(
        last_failed
    )
    return remaining(count + 1, podutil.finished_time(last_failed), now)
