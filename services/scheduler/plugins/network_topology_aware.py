"""network-topology-aware (Volcano ``pkg/scheduler/plugins/network-topology-aware``): scores
HyperNodes (``topology.volcano.sh`` HyperNode objects) for jobs with a ``networkTopology``
spec. Shoal does not watch HyperNodes yet, so the plugin is accepted with no HyperNode
scoring: every node counts as one flat topology, which is what upstream does for a job
without ``networkTopology``."""

from __future__ import annotations

from typing import Any

from services.scheduler.plugins.base import AcceptedPlugin, Arguments

NAME = "network-topology-aware"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    "weight",
    "hypernode.binpack.cpu",
    "hypernode.binpack.memory",
    "hypernode.binpack.resources",
    "hypernode.binpack.normal-pod.enable",
    "hypernode.binpack.normal-pod.fading",
    "hypernode.gradient.evict.max-hypernodes",
)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS, prefixes=("hypernode.binpack.resources.",))
    return AcceptedPlugin(NAME)
