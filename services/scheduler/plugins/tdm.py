"""tdm (Volcano ``pkg/scheduler/plugins/tdm``): time-division multiplexing of revocable
zones (nodes labelled ``volcano.sh/revocable-zone``) by ``tdm.revocable-zone.<zone>`` time
windows. Accepted; revocable zones are not modelled, so revocable nodes take no preemptable
tasks specially and nothing is evicted at the end of a window."""

from __future__ import annotations

from typing import Any

from services.scheduler.plugins.base import AcceptedPlugin, Arguments

NAME = "tdm"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = ("tdm.evict.period",)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS, prefixes=("tdm.revocable-zone.",))
    return AcceptedPlugin(NAME)
