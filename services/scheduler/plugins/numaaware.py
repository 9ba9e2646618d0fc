"""numa-aware (Volcano ``pkg/scheduler/plugins/numaaware``): NUMA placement from the
``Numatopology`` objects the resource exporter agent publishes per node. Shoal runs no node
agent, so the plugin is accepted with its NUMA predicate and score left out; CPU and memory
still fit as whole-node quantities."""

from __future__ import annotations

from typing import Any

from services.scheduler.framework.arguments import Arguments
from services.scheduler.plugins.base import AcceptedPlugin

NAME = "numa-aware"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = ("weight",)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
