"""overcommit: admit (enqueue) jobs while their minResources fit the cluster's capacity
times ``overcommit-factor`` (default 1.2), minus what is used and already admitted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import JobInfo
from services.scheduler.api.job import INQUEUE, RUNNING
from services.scheduler.api.resources import less_equal_in
from services.scheduler.api.status import Status
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT, Verdict
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.quota import describe, job_allocated, total_resource

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "overcommit"
FACTOR = "overcommit-factor"
DEFAULT_FACTOR = 1.2


class OvercommitPlugin(BasePlugin):
    name = NAME

    def __init__(self, factor: float) -> None:
        # Volcano falls back to the default for factors below 1 (no under-commit).
        self.factor = factor if factor >= 1.0 else DEFAULT_FACTOR

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        used = ssn.nodes.used.sum(axis=0, dtype=np.float64)
        used[ssn.space.pods] = 0.0
        self.idle = total_resource(ssn) * self.factor - used
        self.inqueue = ssn.space.zeros()
        for job in ssn.jobs.values():
            minimum = job.min_resources
            if minimum is None:
                continue
            if job.phase == INQUEUE:
                self.inqueue += minimum
            elif job.phase == RUNNING and job.allocated_task_num() >= job.min_available:
                # ``util.GetInqueueResource``: what minResources reserves beyond what the
                # running gang holds. A job below its gang (a finished Spark driver) reserves
                # nothing, as upstream.
                allocated = job_allocated(job)
                self.inqueue += np.maximum(minimum - allocated, 0) if len(allocated) else minimum
        ssn.points.job_enqueueable.add(NAME, self.enqueueable)
        ssn.points.job_enqueued.add(NAME, self.enqueued)

    def enqueueable(self, job: JobInfo) -> Verdict:
        if job.min_resources is None:
            return PERMIT
        # Only the dimensions the job asks for are compared (``LessEqualWithDimension``), so
        # a resource overused by running pods does not block a job that does not need it.
        wanted = job.min_resources > 0
        if less_equal_in(self.inqueue + job.min_resources, self.idle, wanted):
            return PERMIT
        space = self.ssn.space
        return Status(
            reason="ClusterOvercommitted",
            message=(
                f"cluster overcommitted: minResources {describe(space, job.min_resources)}"
                f" + inqueue {describe(space, self.inqueue)} exceed idle"
                f" {describe(space, np.maximum(self.idle, 0))} (factor {self.factor:g})"
            ),
            plugin=NAME,
        )

    def enqueued(self, job: JobInfo) -> None:
        if job.min_resources is not None:
            self.inqueue += job.min_resources


def new(arguments: dict[str, Any]) -> OvercommitPlugin:
    args = Arguments(arguments, known=(FACTOR,))
    return OvercommitPlugin(args.number(FACTOR, DEFAULT_FACTOR))
