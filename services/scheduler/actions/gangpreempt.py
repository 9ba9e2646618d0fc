"""gangpreempt: a starving job evicts whole bundles of lower-priority jobs of its own queue
(Volcano's ``gangpreempt`` action; see ``gang_eviction`` for the shared steps).

Candidates are the bound or running, preemptable tasks of other jobs in the same queue with a
lower job priority, whose PodGroup allows eviction. Unlike ``preempt``, a best-effort preemptor
is not limited to best-effort victims: the plugins' ``UnifiedEvictable`` decide. Bundles of the
job last in job order go first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from services.scheduler.actions.bundles import Bundle, sort_bundles
from services.scheduler.actions.gang_eviction import GangEviction, gang_preemptable
from services.scheduler.api import JobInfo, TaskInfo, TaskStatus
from services.scheduler.api.resources import FloatVec
from services.scheduler.framework.extension import EvictionKind
from services.scheduler.framework.session import descending

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "gangpreempt"
_PREEMPTABLE_STATUSES = frozenset({TaskStatus.BOUND, TaskStatus.RUNNING})


class GangPreempt(GangEviction):
    name = NAME
    kind = EvictionKind.GANG_PREEMPT

    def candidates(self, ssn: Session, job: JobInfo) -> dict[str, list[TaskInfo]]:
        found: dict[str, list[TaskInfo]] = {}
        for on_node in ssn.nodes.tasks:
            for task in on_node.values():
                if task.status not in _PREEMPTABLE_STATUSES or not task.preemptable:
                    continue
                owner = ssn.jobs.get(task.job)
                if owner is None or owner.queue != job.queue or owner.key == job.key:
                    continue
                if gang_preemptable(owner) and job.priority > owner.priority:
                    found.setdefault(owner.key, []).append(task)
        return found

    def sort(
        self, ssn: Session, job: JobInfo, bundles: Sequence[Bundle], need: FloatVec
    ) -> list[Bundle]:
        def later_job_first(left: Bundle, right: Bundle) -> int:
            if left.job.key == right.job.key:
                return 0
            return descending(ssn.job_order_key(left.job), ssn.job_order_key(right.job))

        return sort_bundles(bundles, need, later_job_first)


def new() -> GangPreempt:
    return GangPreempt()
