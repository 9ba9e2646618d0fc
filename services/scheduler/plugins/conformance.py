"""conformance: never evict kube-system pods or pods of the system-critical priority classes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.scheduler.api import TaskInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT, EvictionContext
from services.scheduler.plugins.base import BasePlugin

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "conformance"


def _not_critical(_: TaskInfo, candidates: Sequence[TaskInfo]) -> tuple[list[TaskInfo], int]:
    return [t for t in candidates if not t.critical], PERMIT


def _not_critical_for_gang(
    _: EvictionContext, candidates: Sequence[TaskInfo]
) -> tuple[list[TaskInfo], int]:
    return [t for t in candidates if not t.critical], PERMIT


class ConformancePlugin(BasePlugin):
    name = NAME

    def on_session_open(self, ssn: Session) -> None:
        ssn.points.preemptable.add(NAME, _not_critical)
        ssn.points.reclaimable.add(NAME, _not_critical)
        ssn.points.unified_evictable.add(NAME, _not_critical_for_gang)


def new(arguments: dict[str, Any]) -> ConformancePlugin:
    Arguments(arguments)
    return ConformancePlugin()
