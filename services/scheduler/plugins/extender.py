"""extender (Volcano ``pkg/scheduler/plugins/extender``): calls an HTTP scheduler extender
at each extension point. Shoal's session is a pure function of its snapshot (replayable), so
it makes no calls: the plugin is accepted with its arguments checked and decides nothing, as
upstream does for an extender that is ``extender.ignorable`` and unreachable."""

from __future__ import annotations

from typing import Any

from services.scheduler.framework.arguments import Arguments
from services.scheduler.plugins.base import AcceptedPlugin

NAME = "extender"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    "extender.urlPrefix",
    "extender.httpTimeout",
    "extender.onSessionOpenVerb",
    "extender.onSessionCloseVerb",
    "extender.predicateVerb",
    "extender.prioritizeVerb",
    "extender.preemptableVerb",
    "extender.reclaimableVerb",
    "extender.queueOverusedVerb",
    "extender.jobEnqueueableVerb",
    "extender.jobEnqueuedVerb",
    "extender.jobReadyVerb",
    "extender.allocateFuncVerb",
    "extender.deallocateFuncVerb",
    "extender.ignorable",
    "extender.managedResources",
)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
