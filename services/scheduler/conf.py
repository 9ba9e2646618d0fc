"""``volcano-scheduler.conf``: the actions string and tiers of plugins, Volcano's YAML exactly.

Unset ``enable*`` flags default to true (``enableHierarchy`` to false, as in Volcano). Unknown
actions, plugins, option keys and argument keys are errors naming the culprit; a typo in a
conf must never silently fall back to a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import yaml

from services.scheduler.framework.extension import ActionFactory, PluginFactory
from services.scheduler.framework.registry import Registry
from shared.errors import UserError

CONFIGMAP_NAME = "volcano-scheduler-configmap"
CONFIGMAP_KEY = "volcano-scheduler.conf"

DEFAULT_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

# Every per-plugin switch Volcano's PluginOption knows, with its default.
FLAGS: Mapping[str, bool] = {
    "enableJobOrder": True,
    "enableNamespaceOrder": True,
    "enableHierarchy": False,
    "enableJobReady": True,
    "enableJobPipelined": True,
    "enableTaskOrder": True,
    "enablePreemptable": True,
    "enableReclaimable": True,
    "enablePreemptive": True,
    "enableQueueOrder": True,
    "enableClusterOrder": True,
    "enablePredicate": True,
    "enablePrePredicate": True,
    "enableBestNode": True,
    "enableNodeOrder": True,
    "enableTargetJob": True,
    "enableReservedNodes": True,
    "enableJobEnqueued": True,
    "enabledVictim": True,
    "enableJobStarving": True,
    "enabledOverused": True,
    "enableOverused": True,
    "enableAllocatable": True,
    "enableSubJobReady": True,
    "enableSubJobOrder": True,
}


class PluginOption(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    flags: dict[str, bool]
    arguments: dict[str, Any]

    def enabled(self, flag: str) -> bool:
        return self.flags.get(flag, FLAGS.get(flag, True))


class SchedulerConf(msgspec.Struct, frozen=True, kw_only=True):
    actions: tuple[str, ...]
    tiers: tuple[tuple[PluginOption, ...], ...]
    configurations: dict[str, dict[str, Any]] = {}

    def plugin_names(self) -> list[str]:
        return [option.name for tier in self.tiers for option in tier]


def _fail(source: str, message: str) -> UserError:
    return UserError(f"{source}: {message}")


def _plugin_option(raw: Any, where: str, source: str) -> PluginOption:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise _fail(source, f"{where}: a plugin needs a string 'name'")
    flags: dict[str, bool] = {}
    arguments: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "name":
            continue
        if key == "arguments":
            if value is None:
                continue
            if not isinstance(value, dict):
                raise _fail(source, f"{where}.arguments: expected a mapping")
            arguments = {str(k): v for k, v in value.items()}
        elif key in FLAGS:
            if not isinstance(value, bool):
                raise _fail(source, f"{where}.{key}: expected true or false, got {value!r}")
            flags[key] = value
        else:
            raise _fail(source, f"{where} ({raw['name']}): unknown option {key!r}")
    return PluginOption(name=raw["name"], flags=flags, arguments=arguments)


def parse_conf(
    text: str,
    *,
    plugins: Registry[PluginFactory],
    actions: Registry[ActionFactory],
    source: str = "volcano-scheduler.conf",
) -> SchedulerConf:
    """Parse and validate a conf; plugin arguments are checked by building each plugin once."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _fail(source, f"invalid YAML: {exc}".replace("\n", " ")) from None
    if not isinstance(raw, dict):
        raise _fail(source, "expected a mapping with 'actions' and 'tiers'")
    unknown = sorted(set(raw) - {"actions", "tiers", "configurations", "metrics"})
    if unknown:
        raise _fail(source, f"unknown key {unknown[0]!r}")
    if not isinstance(raw.get("actions"), str):
        raise _fail(source, 'field actions: expected a string like "enqueue, allocate"')
    names = tuple(a.strip() for a in raw["actions"].split(",") if a.strip())
    for name in names:
        if name not in actions:
            raise _fail(source, f"field actions: unknown action {name!r}")
    tiers_raw = raw.get("tiers") or []
    if not isinstance(tiers_raw, list):
        raise _fail(source, "field tiers: expected a list")
    tiers: list[tuple[PluginOption, ...]] = []
    seen: set[str] = set()
    for t, tier in enumerate(tiers_raw):
        if not isinstance(tier, dict) or not isinstance(tier.get("plugins"), list):
            raise _fail(source, f"tiers[{t}]: expected a mapping with a 'plugins' list")
        options = []
        for p, plugin_raw in enumerate(tier["plugins"]):
            where = f"tiers[{t}].plugins[{p}]"
            option = _plugin_option(plugin_raw, where, source)
            if option.name not in plugins:
                raise _fail(source, f"{where}: unknown plugin {option.name!r}")
            if option.name in seen:
                raise _fail(source, f"{where}: plugin {option.name!r} is configured twice")
            seen.add(option.name)
            try:
                plugins.get(option.name)(dict(option.arguments))
            except UserError as exc:
                raise _fail(source, f"{where} ({option.name}): {exc}") from None
            options.append(option)
        tiers.append(tuple(options))
    configurations: dict[str, dict[str, Any]] = {}
    for c, entry in enumerate(raw.get("configurations") or []):
        if not isinstance(entry, dict) or entry.get("name") not in actions:
            raise _fail(source, f"configurations[{c}]: unknown action {entry!r}")
        configurations[entry["name"]] = dict(entry.get("arguments") or {})
    return SchedulerConf(actions=names, tiers=tuple(tiers), configurations=configurations)
