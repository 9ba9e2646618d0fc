"""Built-in actions, one module each, and the registry that knows them."""

from __future__ import annotations

from services.scheduler.actions import (
    allocate,
    backfill,
    enqueue,
    gangpreempt,
    gangreclaim,
    preempt,
    reclaim,
    shuffle,
)
from services.scheduler.framework.interface import ActionFactory
from services.scheduler.framework.registry import Registry

BUILTIN = (enqueue, allocate, preempt, reclaim, backfill, gangpreempt, gangreclaim, shuffle)


def default_actions() -> Registry[ActionFactory]:
    registry: Registry[ActionFactory] = Registry("action")
    for module in BUILTIN:
        registry.register(module.NAME, module.new)
    return registry
