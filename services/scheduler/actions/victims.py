"""Shared by preempt and reclaim: is a node worth evicting on and does the preemptor fit it
(Volcano ``ValidateVictims`` and ``preemptorFitsOnNode``), and one preemptor's attempt, which
preempt's normal and topology-aware modes both make."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.api import NodeTable, QueueInfo, TaskInfo
from services.scheduler.framework.placement import Placer
from services.scheduler.framework.statement import Statement

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

PREEMPT_NEVER = "Never"


def may_preempt(task: TaskInfo) -> bool:
    """``preemptionPolicy: Never`` (set on the pod from its PriorityClass) never evicts."""
    return task.pod.spec.preemptionPolicy != PREEMPT_NEVER


def enough(nodes: NodeTable, task: TaskInfo, row: int, victims: Sequence[TaskInfo]) -> bool:
    """``ValidateVictims``: with the victims gone the task would fit. No victims is fine when
    the node's future idle already fits (a later round may place a small task there)."""
    freed = nodes.future[row] + sum((v.request for v in victims), np.zeros_like(task.request))
    return bool(np.all(freed >= task.request))


def fits_future(nodes: NodeTable, task: TaskInfo, row: int) -> bool:
    return bool(np.all(nodes.future[row] >= task.request))


def fits_on_node(ssn: Session, placer: Placer, queue: QueueInfo, task: TaskInfo, row: int) -> bool:
    """``preemptorFitsOnNode``: the queue may take it, the node's future idle holds it, and the
    predicates (pod affinity included) pass with the evictions made so far."""
    return (
        ssn.allocatable(queue, task) is None
        and fits_future(ssn.nodes, task, row)
        and placer.passes_dynamic(task, row)
    )


@dataclass(frozen=True, slots=True)
class Attempt:
    """One preemptor's attempt: the tasks it may evict, the queue it evicts for, and the
    statement its evictions and its pipelining go into."""

    ssn: Session
    placer: Placer
    stmt: Statement
    queue: QueueInfo
    preemptor: TaskInfo
    eligible: Callable[[TaskInfo], bool]

    def victims_on(self, row: int) -> list[TaskInfo] | None:
        """The plugins' victims among the node's eligible tasks; None unless evicting them
        all would make room (``ValidateVictims``)."""
        nodes = self.ssn.nodes
        candidates = [t for t in nodes.tasks[row].values() if self.eligible(t)]
        victims = self.ssn.preemptable(self.preemptor, candidates)
        return victims if enough(nodes, self.preemptor, row, victims) else None

    def fits_on(self, row: int) -> bool:
        return fits_on_node(self.ssn, self.placer, self.queue, self.preemptor, row)

    def pipeline(self, node_stmt: Statement, row: int) -> bool:
        """The preemptor pipelined onto the node its victims free, all merged into the
        attempt's statement."""
        node_stmt.pipeline(self.preemptor, row)
        self.stmt.merge(node_stmt)
        return True
