"""usage (Volcano ``pkg/scheduler/plugins/usage``): node scores and thresholds from real
CPU and memory usage collected by a metrics source. Shoal collects no node metrics, so the
plugin is accepted with usage read as zero: no node is over a threshold and the usage score
is equal on every node."""

from __future__ import annotations

from typing import Any

from services.scheduler.framework.arguments import Arguments
from services.scheduler.plugins.base import AcceptedPlugin

NAME = "usage"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    "usage.weight",
    "cpu.weight",
    "memory.weight",
    "thresholds",
    "estimator",
)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
