"""task-topology (Volcano ``pkg/scheduler/plugins/task-topology``): affinity and
anti-affinity between the tasks of one job (``volcano.sh/task-topology-affinity`` and
``-anti-affinity`` annotations, task order by ``volcano.sh/task-topology-task-order``).
Accepted; its bucket scoring and task order are not implemented yet, so a job with those
annotations is placed as one without them."""

from __future__ import annotations

from typing import Any

from services.scheduler.plugins.base import AcceptedPlugin, Arguments

NAME = "task-topology"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = ("task-topology.weight",)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
