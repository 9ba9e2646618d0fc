"""pdb (Volcano ``pkg/scheduler/plugins/pdb``): keeps preempt and reclaim from evicting
pods beyond their PodDisruptionBudgets. Shoal does not watch PodDisruptionBudgets yet, so the
plugin is accepted and filters no victims (as upstream with no budget in the cluster)."""

from __future__ import annotations

from typing import Any

from services.scheduler.plugins.base import AcceptedPlugin, Arguments

NAME = "pdb"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = ()


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
