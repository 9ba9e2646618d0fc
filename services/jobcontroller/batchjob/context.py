"""What one sync of a Job knows and decides along the way (``syncJobCtx`` in Kubernetes)."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.jobcontroller.batchjob import failure_policy
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.intervals import Intervals
from services.jobcontroller.batchjob.spec import JobView
from services.jobcontroller.batchjob.status import StatusDraft
from services.jobcontroller.core import Actions
from shared.models import Condition, Pod


@dataclass(slots=True)
class SyncContext:
    job: JobView
    now: float
    pods: list[Pod]
    status: StatusDraft
    actions: Actions
    expectations_satisfied: bool
    active: list[Pod] = field(default_factory=list)
    uncounted_succeeded: set[str] = field(default_factory=set)
    uncounted_failed: set[str] = field(default_factory=set)
    succeeded: int = 0
    failed: int = 0
    terminating: int = 0
    ready: int = 0
    # The condition the Job finishes with (FailureTarget/Failed, SuccessCriteriaMet/Complete).
    finished: Condition | None = None
    prev_succeeded_indexes: Intervals = field(default_factory=Intervals)
    succeeded_indexes: Intervals = field(default_factory=Intervals)
    failed_indexes: Intervals | None = None
    # backoffLimitPerIndex: the last failed pod of each index awaiting its replacement; its
    # finalizer stays until the replacement carries its failure count.
    delayed_per_index: dict[int, Pod] = field(default_factory=dict)

    def new_finished_pods(self) -> tuple[list[Pod], list[Pod]]:
        """Finished pods not yet counted: still tracked, not in uncountedTerminatedPods."""
        succeeded: list[Pod] = []
        failed: list[Pod] = []
        for pod in self.tracked_pods():
            uid = pod.metadata.uid
            if pod.status.phase == podutil.SUCCEEDED and uid not in self.uncounted_succeeded:
                succeeded.append(pod)
            elif podutil.is_failed(pod, self.job) and uid not in self.uncounted_failed:
                failed.append(pod)
        return succeeded, failed

    def tracked_pods(self) -> list[Pod]:
        """Pods with the tracking finalizer and, for Indexed Jobs, a valid index."""
        return [
            p
            for p in self.pods
            if podutil.has_finalizer(p)
            and (not self.job.indexed or podutil.valid_index(p, self.job.completions))
        ]

    def counts_failure(self, pod: Pod) -> bool:
        return failure_policy.match(self.job.pod_failure_policy, pod).counts

    def requeue(self, seconds: float) -> None:
        """Ask to be synced again after ``seconds`` (the earliest of all requests wins)."""
        seconds = max(seconds, 0.0)
        current = self.actions.requeue_after
        self.actions.requeue_after = seconds if current is None else min(current, seconds)
