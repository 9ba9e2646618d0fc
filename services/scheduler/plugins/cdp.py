"""cdp, cooldown protection (Volcano ``pkg/scheduler/plugins/cdp``): a running pod with a
``volcano.sh/cooldown-time`` label or annotation (a Go duration, e.g. ``600s``) is not a
victim for preempt or reclaim until that long after its ``PodScheduled`` condition turned
true. A pod without the key, with an unreadable value, not Running, or without that
condition is a victim as usual. The session clock is the one passed in, not the wall clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import TaskInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT
from services.scheduler.plugins.base import BasePlugin
from shared.kube.timefmt import parse_go_duration, parse_rfc3339

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "cdp"
COOLDOWN_TIME = "volcano.sh/cooldown-time"


def cooling_down(task: TaskInfo, now: float) -> bool:
    """True while ``task``'s pod is inside its cooldown window (so it is no victim)."""
    meta = task.pod.metadata
    value = meta.labels.get(COOLDOWN_TIME) or meta.annotations.get(COOLDOWN_TIME)
    if value is None or task.pod.status.phase != "Running":
        return False
    cooldown = parse_go_duration(value)
    if cooldown is None:
        return False
    for condition in task.pod.status.conditions:
        if condition.type == "PodScheduled" and condition.status == "True":
            scheduled = parse_rfc3339(condition.lastTransitionTime)
            return scheduled is not None and scheduled + cooldown > now
    return False


class CooldownProtectionPlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        now = ssn.now.timestamp()

        def victims(_: TaskInfo, candidates: Sequence[TaskInfo]) -> tuple[list[TaskInfo], int]:
            return [t for t in candidates if not cooling_down(t, now)], PERMIT

        ssn.points.preemptable.add(NAME, victims)
        ssn.points.reclaimable.add(NAME, victims)


def new(arguments: dict[str, Any]) -> CooldownProtectionPlugin:
    Arguments(arguments)
    return CooldownProtectionPlugin()
