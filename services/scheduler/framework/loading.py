"""Loading a conf: the plain data of ``conf`` checked against the code that will run it.

As Volcano's ``UnmarshalSchedulerConf``, loading parses the conf against the known names, then
builds each configured plugin once with its arguments and reads each configured action's
arguments, so that an argument a plugin refuses is an error and one read with a warning
(unknown key, value of the wrong type) reaches the user with the conf's other warnings.
"""

from __future__ import annotations

import msgspec

from services.scheduler.conf import SchedulerConf, parse_conf
from services.scheduler.framework.arguments import action_arguments, collecting
from services.scheduler.framework.interface import ActionFactory, PluginFactory, ReadsArguments
from services.scheduler.framework.registry import Registry
from shared.errors import UserError


def load_conf(
    text: str,
    *,
    plugins: Registry[PluginFactory],
    actions: Registry[ActionFactory],
    source: str = "volcano-scheduler.conf",
) -> SchedulerConf:
    """Parse a conf and check every plugin's and action's arguments."""
    conf = parse_conf(text, plugins=plugins, actions=actions, source=source)
    warnings = [*conf.warnings, *_plugin_warnings(conf, plugins, source)]
    warnings.extend(_action_warnings(conf, actions))
    return msgspec.structs.replace(conf, warnings=tuple(warnings))


def _plugin_warnings(
    conf: SchedulerConf, plugins: Registry[PluginFactory], source: str
) -> list[str]:
    warnings: list[str] = []
    for t, tier in enumerate(conf.tiers):
        for p, option in enumerate(tier):
            where = f"tiers[{t}].plugins[{p}] ({option.name})"
            try:
                with collecting() as found:
                    plugins.get(option.name)(dict(option.arguments))
            except UserError as exc:
                raise UserError(f"{source}: {where}: {exc}") from None
            warnings.extend(f"{where}: {w}" for w in found)
    return warnings


def _action_warnings(conf: SchedulerConf, actions: Registry[ActionFactory]) -> list[str]:
    warnings: list[str] = []
    for name in conf.configurations:
        if name not in actions:
            continue
        action = actions.get(name)()
        if isinstance(action, ReadsArguments):
            with collecting() as found:
                action.read_arguments(action_arguments(conf.configurations, name))
            warnings.extend(f"configurations ({name}): {w}" for w in found)
    return warnings
