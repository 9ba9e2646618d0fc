"""pdb (Volcano ``pkg/scheduler/plugins/pdb``): preempt, reclaim and shuffle evict no pod
beyond its PodDisruptionBudgets.

Candidates are walked in the order given; each PodDisruptionBudget of the pod's namespace whose
selector matches the pod's labels spends one of its ``status.disruptionsAllowed`` (unless the
pod is already in its ``disruptedPods``), and a pod that overdraws any of them is no victim.
As upstream: a budget with a missing or empty selector, or one that does not parse, matches
nothing; and a pod without labels is never a victim while the plugin is on (upstream skips it
before deciding; noted in docs/compatibility.md). The budgets are the ones the cluster
reports: their status is the disruption controller's (kubesim plays it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import TaskInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT
from services.scheduler.plugins.base import BasePlugin
from shared.models import LabelSelector, PodDisruptionBudget

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "pdb"
# metav1.LabelSelectorAsSelector: the operators a requirement may use, and whether it needs
# values (In, NotIn) or must have none (Exists, DoesNotExist).
_NEEDS_VALUES = {"In": True, "NotIn": True, "Exists": False, "DoesNotExist": False}


def _usable(selector: LabelSelector | None) -> bool:
    """Whether ``selector`` selects anything as upstream reads it: not nil, not empty
    (``labels.Everything()`` is ``Empty()``, skipped), every requirement valid."""
    if selector is None or (not selector.matchLabels and not selector.matchExpressions):
        return False
    for req in selector.matchExpressions:
        needs = _NEEDS_VALUES.get(req.operator)
        if needs is None or needs != bool(req.values):
            return False
    return True


def victims(budgets: Sequence[PodDisruptionBudget], tasks: Sequence[TaskInfo]) -> list[TaskInfo]:
    """``pdbFilterFn``: the tasks that can be evicted without overdrawing a budget."""
    usable = [b for b in budgets if _usable(b.spec.selector)]
    allowed = [b.status.disruptionsAllowed for b in usable]
    found: list[TaskInfo] = []
    for task in tasks:
        meta = task.pod.metadata
        if not meta.labels:
            continue
        namespace = meta.namespace or "default"
        violated = False
        for i, budget in enumerate(usable):
            selector = budget.spec.selector
            if (budget.metadata.namespace or "default") != namespace or selector is None:
                continue
            if not selector.matches(meta.labels) or meta.name in budget.status.disruptedPods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                violated = True
        if not violated:
            found.append(task)
    return found


class DisruptionBudgetPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        budgets = ssn.cluster.disruption_budgets

        def filtered(_: TaskInfo, candidates: Sequence[TaskInfo]) -> tuple[list[TaskInfo], int]:
            return victims(budgets, candidates), PERMIT

        ssn.points.victim_tasks.add(NAME, lambda tasks: victims(budgets, tasks))
        ssn.points.reclaimable.add(NAME, filtered)
        ssn.points.preemptable.add(NAME, filtered)


def new(arguments: dict[str, Any]) -> DisruptionBudgetPlugin:
    Arguments(arguments)
    return DisruptionBudgetPlugin()
