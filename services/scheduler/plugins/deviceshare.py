"""deviceshare (Volcano ``pkg/scheduler/plugins/deviceshare``): GPU sharing, GPU number,
vGPU and Ascend vNPU placement, from the device annotations that Volcano's device plugins
write on nodes and pods. Shoal simulates no device plugin, so it is accepted with its scoring
and device bookkeeping left out: whole devices requested as extended resources
(``nvidia.com/gpu``, ``volcano.sh/vgpu-number``, ...) are still fitted by the resource
predicate, as for any extended resource."""

from __future__ import annotations

from typing import Any

from services.scheduler.framework.arguments import Arguments
from services.scheduler.plugins.base import AcceptedPlugin

NAME = "deviceshare"
# The argument keys upstream's plugin reads.
ARGUMENTS: tuple[str, ...] = (
    "deviceshare.GPUSharingEnable",
    "deviceshare.NodeLockEnable",
    "deviceshare.GPUNumberEnable",
    "deviceshare.VGPUEnable",
    "deviceshare.AscendMindClusterVNPUEnable",
    "deviceshare.AscendHAMiVNPUEnable",
    "deviceshare.SchedulePolicy",
    "deviceshare.ScheduleWeight",
    "deviceshare.KnownGeometriesCMName",
    "deviceshare.KnownGeometriesCMNamespace",
    "deviceshare.GPUExclusiveRules",
)


def new(arguments: dict[str, Any]) -> AcceptedPlugin:
    Arguments(arguments, known=ARGUMENTS)
    return AcceptedPlugin(NAME)
