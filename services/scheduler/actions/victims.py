"""Shared by preempt and reclaim: is a node worth evicting on and does the preemptor fit it
(Volcano ``ValidateVictims`` and ``preemptorFitsOnNode``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.api import NodeTable, QueueInfo, TaskInfo
from services.scheduler.framework.placement import Placer

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
