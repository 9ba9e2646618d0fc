"""Built-in plugins, one module each, and the registry that knows them."""

from __future__ import annotations

from services.scheduler.framework.interface import PluginFactory
from services.scheduler.framework.registry import Registry
from services.scheduler.plugins import (
    binpack,
    capacity,
    cdp,
    conformance,
    deviceshare,
    drf,
    extender,
    gang,
    network_topology_aware,
    nodegroup,
    nodeorder,
    numaaware,
    overcommit,
    pdb,
    predicates,
    priority,
    proportion,
    resource_strategy_fit,
    resourcequota,
    sla,
    task_topology,
    tdm,
    usage,
)

BUILTIN = (
    priority,
    gang,
    conformance,
    drf,
    proportion,
    capacity,
    predicates,
    nodeorder,
    binpack,
    overcommit,
    sla,
    # In the order, then the others upstream confs name.
    resource_strategy_fit,
    task_topology,
    cdp,
    pdb,
    network_topology_aware,
    numaaware,
    deviceshare,
    extender,
    nodegroup,
    resourcequota,
    tdm,
    usage,
)


def default_plugins() -> Registry[PluginFactory]:
    registry: Registry[PluginFactory] = Registry("plugin")
    for module in BUILTIN:
        registry.register(module.NAME, module.new)
    return registry
