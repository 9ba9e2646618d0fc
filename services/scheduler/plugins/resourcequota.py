"""resourcequota (Volcano ``pkg/scheduler/plugins/resourcequota``): refuses to enqueue a job
whose ``minResources`` would exceed its namespace's ResourceQuota. Shoal does not watch
ResourceQuotas yet, so the plugin is accepted and permits every job (as upstream in a
namespace without a quota)."""

from __future__ import annotations

from typing import Any

from services.scheduler.framework.arguments import Arguments
from services.scheduler.plugins.base import AcceptedPlugin

NAME = "resourcequota"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = ()


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
