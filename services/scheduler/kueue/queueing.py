"""The queues one admission run walks, and how many of its cycles are known in advance.

Each ClusterQueue's pending workloads in Kueue's order (priority, then queue timestamp), the
position of its head and, for StrictFIFO, the refusal that blocks it. A Kueue cycle tries the
head of every queue of a cohort tree. Some verdicts refuse a head whatever else the cycle
holds: refused before quota, no flavor fits, or it must preempt and there is nothing to
preempt. In a cycle that only refuses, nothing lasting changes — no usage, no preempting set
(a queue that cannot reclaim what it lends holds quota for the rest of the cycle, but no head
of such a cycle looks at quota again, and the hold ends with it) — so no verdict moves
either: the next cycles that only refuse are known now. ``quiet_cycles`` says how many, and
the run refuses their heads in one go. With thousands waiting behind quota, that replaces a
cycle per waiting workload of the longest queue (each nominating, ordering and processing
every queue's head) by one look at each waiting workload's verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from services.scheduler.api.status import Code, Status
from services.scheduler.kueue.flavors import Assignment
from services.scheduler.kueue.model import STRICT_FIFO, ClusterQueueState
from services.scheduler.kueue.modes import Mode
from services.scheduler.kueue.workloads import AdmittedWorkload, WorkloadInfo

PLUGIN = "scheduler"

Verdict = tuple[Assignment | None, list[AdmittedWorkload], Status | None, bool]
"""A head's assignment, preemption targets, refusal (before quota) and set_aside (refused
in a way that does not block even a StrictFIFO queue), as nominated."""

Judged = tuple[Verdict, Status | None]
"""A verdict and its ``refusal``."""

JudgedOf = Callable[[WorkloadInfo, ClusterQueueState], Judged]
Shares = Callable[[ClusterQueueState], bool]
"""Whether equal ``WorkloadInfo.equivalence`` in this queue means the same judgement."""

UNASSIGNED = Status(
    code=Code.UNSCHEDULABLE, reason="Unassigned", message="no assignment", plugin=PLUGIN
)


def unschedulable(reason: str, message: str) -> Status:
    """A head's refusal, as the admission cycle words them."""
    return Status(code=Code.UNSCHEDULABLE, reason=reason, message=message, plugin=PLUGIN)


@dataclass
class Queue:
    cq: ClusterQueueState
    workloads: list[WorkloadInfo]
    position: int = 0
    blocked_by: Status | None = None

    def head(self) -> WorkloadInfo | None:
        if self.blocked_by is not None or self.position >= len(self.workloads):
            return None
        return self.workloads[self.position]


def tree_of(cq: ClusterQueueState) -> str:
    """The cohort tree a ClusterQueue belongs to (itself alone outside a cohort): trees
    share no quota, so each settles on its own."""
    return f"cohort {cq.parent.root().name}" if cq.parent is not None else f"queue {cq.name}"


def refusal(verdict: Verdict) -> Status | None:
    """Why a head with ``verdict`` is refused whatever else its cycle holds; None when it
    may be admitted or preempt."""
    assignment, targets, refused, _ = verdict
    if refused is not None:
        return refused
    if assignment is None:
        return UNASSIGNED
    mode = assignment.mode
    if mode == Mode.NO_FIT or (mode == Mode.PREEMPT and not targets):
        return assignment.status()
    return None


def quiet_cycles(
    queues: Sequence[Queue], judged_of: JudgedOf, limit: int | None, shares: Shares | None = None
) -> tuple[int, list[list[Judged]]]:
    """How many of the next cycles only refuse the heads of ``queues`` (those with a head),
    up to ``limit`` (0 when the next one may change something), and for each queue the
    judgements of its next heads (at least that many). ``shares``: a queue's workloads of
    equal equivalence get the same judgement (so a run of them is judged once).

    The queues are walked in step, to a bound that doubles, so that one queue's short run
    is found before another's long one is walked: the quiet cycles end where the shortest
    run ends, and a queue of thousands is walked only as far as the cycles go."""
    for queue in queues:
        if judged_of(queue.workloads[queue.position], queue.cq)[1] is None:
            return 0, []
    most = max(len(q.workloads) - q.position for q in queues)
    if limit is not None:
        most = min(most, limit)
    runs: list[list[Judged]] = [[] for _ in queues]
    ended = [False] * len(queues)
    shared = [shares is not None and shares(q.cq) for q in queues]
    bound = min(most, _FIRST_BOUND)
    while True:
        for i, queue in enumerate(queues):
            if not ended[i] and len(runs[i]) < bound:
                ended[i] = _quiet_run(queue, judged_of, runs[i], bound, shared[i])
                if ended[i]:
                    most = min(most, len(runs[i]))
                    bound = min(bound, most)
        if bound >= most:
            return most, runs
        bound = min(most, 2 * bound)


_FIRST_BOUND = 32


def _quiet_run(
    queue: Queue, judged_of: JudgedOf, run: list[Judged], bound: int, shared: bool
) -> bool:
    """Extend ``run``, the heads in a row that ``queue`` refuses from now, judged, up to
    ``bound`` of them (judged once per run of equal equivalence when ``shared``: thousands
    alike wait behind quota); True when it ends before (or the queue does)."""
    strict = queue.cq.strategy == STRICT_FIFO
    workloads = queue.workloads
    start = queue.position + len(run)
    last: object = workloads[start - 1].equivalence if run else None
    for info in workloads[start : queue.position + bound]:
        if shared and run and info.equivalence == last:
            judged = run[-1]
        else:
            judged = judged_of(info, queue.cq)
            last = info.equivalence
        if judged[1] is None:
            return True
        run.append(judged)
        if strict and not judged[0][3]:
            return True  # its refusal blocks a StrictFIFO queue
    return queue.position + len(run) >= len(workloads)
