"""shuffle: evict the running tasks the plugins name as victims (Volcano's ``shuffle``), e.g.
tdm's preemptable pods on a revocable node whose time window has closed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from services.scheduler.api.task import TaskStatus
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "shuffle"


class Shuffle:
    name = NAME

    def execute(self, ssn: Session) -> None:
        running = [
            task
            for job in ssn.jobs.values()
            for task in job.tasks.values()
            if task.status is TaskStatus.RUNNING
        ]
        stmt = Statement(ssn)
        for victim in ssn.victim_tasks(running):
            if victim.status is TaskStatus.RUNNING:
                stmt.evict(victim)
        stmt.commit()


def new() -> Shuffle:
    return Shuffle()
