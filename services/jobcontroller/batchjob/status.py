"""The Job status being built during one sync, and the condition helpers that edit it."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.kube.timefmt import format_rfc3339
from shared.models import Condition, Json
from shared.models.batch import JobStatus


@dataclass(slots=True)
class StatusDraft:
    """A mutable copy of ``JobStatus``; ``to_json`` writes it in the batch/v1 schema."""

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

    def to_json(self) -> Json:
        out: Json = {}
        if self.conditions:
            out["conditions"] = [_condition_json(c) for c in self.conditions]
        if self.start_time is not None:
            out["startTime"] = self.start_time
        if self.completion_time is not None:
            out["completionTime"] = self.completion_time
        out["active"] = self.active
        out["succeeded"] = self.succeeded
        out["failed"] = self.failed
        out["terminating"] = self.terminating
        out["ready"] = self.ready
        if self.completed_indexes:
            out["completedIndexes"] = self.completed_indexes
        if self.failed_indexes is not None:
            out["failedIndexes"] = self.failed_indexes
        # Both lists, empty ones too: the status is written as a JSON merge patch, where an
        # absent list would leave the uids of an earlier write in place.
        out["uncountedTerminatedPods"] = {
            "succeeded": list(self.uncounted_succeeded),
            "failed": list(self.uncounted_failed),
        }
        return out

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


def _condition_json(cond: Condition) -> Json:
    out: Json = {"type": cond.type, "status": cond.status}
    for key in ("reason", "message", "lastProbeTime", "lastTransitionTime"):
        value = getattr(cond, key)
        if value is not None:
            out[key] = value
    return out
