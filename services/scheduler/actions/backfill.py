"""backfill: place best-effort tasks (no requests) of admitted jobs on the best feasible node."""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.scheduler.actions.allocate import pending_tasks
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "backfill"


class Backfill:
    name = NAME

    def execute(self, ssn: Session) -> None:
        placer = Placer(ssn)
        for job in ssn.jobs.values():
            if job.is_pending() or job.queue not in ssn.queues:
                continue
            if ssn.job_valid(job) is not None:  # as Volcano: an invalid gang is not backfilled
                continue
            tasks = pending_tasks(ssn, job, best_effort=True)
            if not tasks:
                continue
            stmt = Statement(ssn)
            while tasks:
                task = tasks.pop()
                row = placer.choose(task)
                if row < 0:
                    job.fit_errors[task.key] = placer.fit_errors(task)
                    continue
                stmt.allocate(task, row)
            if ssn.job_ready(job):
                stmt.commit()
            else:
                stmt.discard()


def new() -> Backfill:
    return Backfill()
