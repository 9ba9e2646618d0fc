"""The Job status being built during one sync, and the condition helpers that edit it."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.kube.timefmt import format_rfc3339
from shared.models import Condition
from shared.models.batch import JobStatus, UncountedTerminatedPods


@dataclass(slots=True)
class StatusDraft:
    """A mutable copy of ``JobStatus``; ``to_status`` gives the new ``JobStatus``."""

    conditions: list[Condition] = field(default_factory=list)
    start_time: str | None = None
    completion_time: str | None = None
    active: int = 0
    succeeded: int = 0
    failed: int = 0
    terminating: int = 0
    ready: int = 0
    completed_indexes: str | None = None
    failed_indexes: str | None = None
    uncounted_succeeded: list[str] = field(default_factory=list)
    uncounted_failed: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, status: JobStatus) -> StatusDraft:
        uncounted = status.uncountedTerminatedPods
        return cls(
            conditions=list(status.conditions),
            start_time=status.startTime,
            completion_time=status.completionTime,
            active=status.active or 0,
            succeeded=status.succeeded or 0,
            failed=status.failed or 0,
            terminating=status.terminating or 0,
            ready=status.ready or 0,
            completed_indexes=status.completedIndexes,
            failed_indexes=status.failedIndexes,
            uncounted_succeeded=list(uncounted.succeeded) if uncounted else [],
            uncounted_failed=list(uncounted.failed) if uncounted else [],
        )

    def to_status(self) -> JobStatus:
        # Both uncounted lists are always present: written as a merge patch from the cached
        # status, an absent list would leave the uids of an earlier write in place.
        return JobStatus(
            conditions=list(self.conditions),
            startTime=self.start_time,
            completionTime=self.completion_time,
            active=self.active,
            succeeded=self.succeeded,
            failed=self.failed,
            terminating=self.terminating,
            ready=self.ready,
            completedIndexes=self.completed_indexes or None,
            failedIndexes=self.failed_indexes,
            uncountedTerminatedPods=UncountedTerminatedPods(
                succeeded=list(self.uncounted_succeeded), failed=list(self.uncounted_failed)
            ),
        )

    def find(self, kind: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == kind), None)

    def has_true(self, kind: str) -> bool:
        cond = self.find(kind)
        return cond is not None and cond.status == "True"

    def ensure(self, kind: str, status: str, reason: str, message: str, now: float) -> bool:
        """Set condition ``kind``; never adds a False condition that was absent. Returns
        whether the conditions changed (the transition time moves only on a change)."""
        current = self.find(kind)
        if current is not None:
            if (current.status, current.reason or "", current.message or "") == (
                status,
                reason,
                message,
            ):
                return False
            self.conditions[self.conditions.index(current)] = new_condition(
                kind, status, reason, message, now
            )
            return True
        if status == "False":
            return False
        self.conditions.append(new_condition(kind, status, reason, message, now))
        return True


def new_condition(kind: str, status: str, reason: str, message: str, now: float) -> Condition:
    stamp = format_rfc3339(now)
    return Condition(
        type=kind,
        status=status,
        reason=reason or None,
        message=message or None,
        lastProbeTime=stamp,
        lastTransitionTime=stamp,
    )
