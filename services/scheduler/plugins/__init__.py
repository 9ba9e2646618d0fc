"""Built-in plugins, one module each, and the registry that knows them."""

from __future__ import annotations

from services.scheduler.framework.extension import PluginFactory
from services.scheduler.framework.registry import Registry
from services.scheduler.plugins import (
    binpack,
    capacity,
    conformance,
    drf,
    gang,
    nodeorder,
    overcommit,
    predicates,
    priority,
    proportion,
    sla,
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
)


def default_plugins() -> Registry[PluginFactory]:
    registry: Registry[PluginFactory] = Registry("plugin")
    for module in BUILTIN:
        registry.register(module.NAME, module.new)
    return registry
