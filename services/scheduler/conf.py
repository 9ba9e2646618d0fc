"""``volcano-scheduler.conf``: the actions string and tiers of plugins, Volcano's YAML exactly.

The keys are those of Volcano's ``pkg/scheduler/conf/scheduler_conf.go``
(``SchedulerConfiguration``, ``Tier``, ``PluginOption``, ``Configuration``), spelled as there:
most switches are ``enable*``, some ``enabled*`` (``enabledOverused``, ``enabledAllocatable``,
``enabledVictim``, ...). Unset switches default as ``plugins.ApplyPluginConfDefaults`` sets
them: true, except ``enableHierarchy`` and ``enabledClusterOrder``, which it leaves unset (off).

Volcano ignores keys it does not know, so a conf that runs there must run here: an unknown key
is a *warning* naming the closest known key (``SchedulerConf.warnings``), not an error. An
unknown action or plugin, a switch that is not a boolean, or invalid plugin arguments stay
errors: a conf Shoal cannot carry out must not silently fall back to a default. A plugin
*argument* a plugin does not know is a warning too (Volcano's plugins read the keys they know
and ignore the rest), naming the closest argument the plugin knows.

This module is plain data, as Volcano's ``conf`` package is: it knows the names of the actions
and plugins, not the code behind them. The framework reads it (``framework.loading``), and
checks each plugin's and action's arguments there.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
import yaml

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

# Volcano's PluginOption switches (YAML keys) with the defaults ApplyPluginConfDefaults gives.
FLAGS: Mapping[str, bool] = {
    "enableJobOrder": True,
    "enableHierarchy": False,
    "enableJobReady": True,
    "enableJobPipelined": True,
    "enableTaskOrder": True,
    "enablePreemptable": True,
    "enableReclaimable": True,
    "enablePreemptive": True,
    "enableQueueOrder": True,
    "enabledClusterOrder": False,
    "enablePredicate": True,
    "enableBestNode": True,
    "enableNodeOrder": True,
    "enableTargetJob": True,
    "enableReservedNodes": True,
    "enableJobEnqueued": True,
    "enabledVictim": True,
    "enableJobStarving": True,
    "enabledOverused": True,
    "enabledAllocatable": True,
    "enabledHyperNodeOrder": True,
    "enabledSubJobReady": True,
    "enabledSubJobPipelined": True,
    "enabledSubJobOrder": True,
    "enabledHyperNodeGradient": True,
}
TOP_LEVEL_KEYS = ("actions", "tiers", "configurations", "metrics")
PLUGIN_KEYS = ("name", "arguments", *FLAGS)


def unknown_key(where: str, key: str, known: tuple[str, ...] | list[str]) -> str:
    """The warning for a key Volcano would ignore, with the closest known spelling."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}: unknown key {key!r} is ignored{hint}"


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
    metrics: dict[str, str] = {}
    # Keys Volcano ignores and so does Shoal, each with the closest known key.
    warnings: tuple[str, ...] = ()

    def plugin_names(self) -> list[str]:
        return [option.name for tier in self.tiers for option in tier]


def _fail(source: str, message: str) -> UserError:
    return UserError(f"{source}: {message}")


def _plugin_option(raw: Any, where: str, source: str, warnings: list[str]) -> PluginOption:
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
            warnings.append(unknown_key(f"{where} ({raw['name']})", str(key), PLUGIN_KEYS))
    return PluginOption(name=raw["name"], flags=flags, arguments=arguments)


def parse_conf(
    text: str,
    *,
    plugins: Iterable[str],
    actions: Iterable[str],
    source: str = "volcano-scheduler.conf",
) -> SchedulerConf:
    """Parse and validate a conf against the names of the known plugins and actions; their
    arguments are the framework's to check (``framework.loading.load_conf``)."""
    known_plugins, known_actions = sorted(plugins), sorted(actions)
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _fail(source, f"invalid YAML: {exc}".replace("\n", " ")) from None
    if not isinstance(raw, dict):
        raise _fail(source, "expected a mapping with 'actions' and 'tiers'")
    warnings = [
        unknown_key(source, str(key), TOP_LEVEL_KEYS) for key in raw if key not in TOP_LEVEL_KEYS
    ]
    if not isinstance(raw.get("actions"), str):
        raise _fail(source, 'field actions: expected a string like "enqueue, allocate"')
    names = tuple(a.strip() for a in raw["actions"].split(",") if a.strip())
    for name in names:
        if name not in known_actions:
            known = ", ".join(known_actions)
            raise _fail(source, f"field actions: unknown action {name!r} (Shoal has: {known})")
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
            option = _plugin_option(plugin_raw, where, source, warnings)
            if option.name not in known_plugins:
                known = ", ".join(known_plugins)
                raise _fail(source, f"{where}: unknown plugin {option.name!r} (Shoal has: {known})")
            if option.name in seen:
                raise _fail(source, f"{where}: plugin {option.name!r} is configured twice")
            seen.add(option.name)
            options.append(option)
        tiers.append(tuple(options))
    configurations = _configurations(raw.get("configurations"), known_actions, source, warnings)
    return SchedulerConf(
        actions=names,
        tiers=tuple(tiers),
        configurations=configurations,
        metrics={str(k): str(v) for k, v in (raw.get("metrics") or {}).items()},
        warnings=tuple(warnings),
    )


def _configurations(
    raw: Any, actions: list[str], source: str, warnings: list[str]
) -> dict[str, dict[str, Any]]:
    """Per-action arguments (``configurations: [{name: preempt, arguments: {...}}]``). Volcano
    looks them up by the running action's name, so one for an action Shoal lacks is unused."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise _fail(source, "field configurations: expected a list")
    configurations: dict[str, dict[str, Any]] = {}
    for c, entry in enumerate(raw):
        where = f"configurations[{c}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise _fail(source, f"{where}: expected a mapping with a string 'name'")
        arguments = entry.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise _fail(source, f"{where}.arguments: expected a mapping")
        for key in entry:
            if key not in ("name", "arguments"):
                warnings.append(unknown_key(where, str(key), ("name", "arguments")))
        if entry["name"] not in actions:
            warnings.append(
                f"{where}: no action {entry['name']!r} in Shoal; its arguments are unused"
            )
        configurations[entry["name"]] = dict(arguments)
    return configurations
