"""Shared by preempt and reclaim: is a node worth evicting on, and evict in what order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


def enough(nodes: NodeTable, task: TaskInfo, row: int, victims: Sequence[TaskInfo]) -> bool:
    """Volcano ``ValidateVictims``: some victims, and with them gone the task would fit."""
    if not victims:
        return False
    freed = nodes.future[row] + sum(v.request for v in victims)
    return bool(np.all(freed >= task.request))


def fits_future(nodes: NodeTable, task: TaskInfo, row: int) -> bool:
    return bool(np.all(nodes.future[row] >= task.request))


def eviction_order(ssn: Session, victims: Sequence[TaskInfo]) -> list[TaskInfo]:
    """Lowest job order first, then lowest task order within a job (Volcano's victim queue)."""
    return sorted(
        victims,
        key=lambda t: (ssn.job_order_key(ssn.jobs[t.job]), ssn.task_order_key(t)),
        reverse=True,
    )
