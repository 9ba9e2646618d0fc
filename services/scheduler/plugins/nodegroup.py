"""nodegroup (Volcano ``pkg/scheduler/plugins/nodegroup``): binds queues to node groups
(nodes labelled ``volcano.sh/nodegroup-name``, queue ``spec.affinity.nodeGroupAffinity``).
Shoal's Queue model does not carry ``spec.affinity`` yet, so the plugin is accepted and
constrains nothing: every queue may use every node, as upstream does for a queue without
node-group affinity."""

from __future__ import annotations

from typing import Any

from services.scheduler.plugins.base import AcceptedPlugin, Arguments

NAME = "nodegroup"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    "strict",
    "enablePreferredOrder",
)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
