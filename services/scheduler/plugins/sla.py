"""sla: a job that has waited past its ``sla-waiting-time`` is admitted and may be pipelined
at once, and jobs order by their deadline (creation + waiting time), as Volcano's ``sla``.

The waiting time is the plugin argument ``sla-waiting-time`` (a Go duration), overridden per
job by the PodGroup annotation of the same name. A job without one abstains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from services.scheduler.api import JobInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import ABSTAIN, PERMIT, Verdict
from services.scheduler.plugins.base import BasePlugin
from shared.kube.timefmt import parse_go_duration, parse_rfc3339

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "sla"
JOB_WAITING_TIME = "sla-waiting-time"
# Go's zero ``time.Time`` (0001-01-01T00:00:00Z) as a Unix time.
GO_ZERO_TIME = -62135596800.0


def _positive(value: str) -> float | None:
    seconds = parse_go_duration(value)
    return seconds if seconds is not None and seconds > 0 else None


class SlaPlugin(BasePlugin):
    name = NAME

    def __init__(self, waiting: float | None) -> None:
        self.waiting = waiting

    def on_session_open(self, ssn: Session) -> None:
        self.now = ssn.now.timestamp()
        ssn.points.job_order.add(NAME, self.job_key)
        ssn.points.job_enqueueable.add(NAME, self.permit)
        ssn.points.job_pipelined.add(NAME, self.permit)

    def _waiting(self, job: JobInfo) -> float | None:
        own = job.pod_group.metadata.annotations.get(JOB_WAITING_TIME)
        found = _positive(own) if own is not None else None
        return found if found is not None else self.waiting

    @staticmethod
    def _created(job: JobInfo) -> float:
        # An unset creation time is Go's zero time: long past any deadline, yet a real instant,
        # so two such jobs still order by their waiting times.
        created = parse_rfc3339(job.created)
        return GO_ZERO_TIME if created is None else created

    def job_key(self, job: JobInfo) -> tuple[int, float]:
        """Jobs with a waiting time first, earliest deadline first."""
        waiting = self._waiting(job)
        if waiting is None:
            return (1, 0.0)
        return (0, self._created(job) + waiting)

    def permit(self, job: JobInfo) -> Verdict:
        waiting = self._waiting(job)
        if waiting is None or self.now - self._created(job) < waiting:
            return ABSTAIN
        return PERMIT


def new(arguments: dict[str, Any]) -> SlaPlugin:
    args = Arguments(arguments, known=(JOB_WAITING_TIME,))
    raw = args.raw.get(JOB_WAITING_TIME)
    # Volcano logs an unparsable or non-positive waiting time and runs without one.
    return SlaPlugin(_positive(raw) if isinstance(raw, str) else None)
