"""resource-strategy-fit (Volcano ``pkg/scheduler/plugins/resource-strategy-fit``): per-resource
LeastAllocated/MostAllocated node scores (``resources``, ``resourceStrategyFitWeight``) plus
the ``sra`` and ``proportional`` policies. Accepted; its scores are not implemented yet, so
node order comes from the other scoring plugins of the conf (nodeorder, binpack)."""

from __future__ import annotations

from typing import Any

from services.scheduler.plugins.base import AcceptedPlugin, Arguments

NAME = "resource-strategy-fit"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    "resourceStrategyFitWeight",
    "resources",
    "sra",
    "proportional",
)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
