"""Arguments of plugins and actions, read one way (Volcano's ``framework.Arguments``).

A plugin's ``arguments`` and an action's ``configurations`` entry are read with the same
getters as upstream's ``GetInt``, ``GetFloat64``, ``GetBool`` and ``GetString``: a missing key
keeps the default; a value of the wrong type keeps the default *with a warning* (upstream logs
"Could not parse argument" and carries on), so a conf Volcano runs is never refused and a
mistyped value is never silently ignored. Keys a reader does not know are warned about and
dropped, naming the closest known key.

Warnings go to the conf being loaded (``collecting``): the framework reads every plugin's and
every action's arguments once when it loads a conf, so they reach the user with the conf's
other warnings. Outside a load (inside a session) they go nowhere, as the same values were
already reported when the conf was loaded.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# Where argument warnings go while a conf is loaded (None: nowhere).
_WARNINGS: ContextVar[list[str] | None] = ContextVar("argument_warnings", default=None)

# strconv.ParseBool's accepted spellings.
_GO_BOOLS = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


def warn_argument(message: str) -> None:
    """An argument Volcano would ignore: recorded for the conf being loaded, not fatal."""
    sink = _WARNINGS.get()
    if sink is not None:
        sink.append(message)


@contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect the argument warnings raised inside the block."""
    found: list[str] = []
    token = _WARNINGS.set(found)
    try:
        yield found
    finally:
        _WARNINGS.reset(token)


class Arguments:
    """A plugin's or an action's arguments, read as Volcano's ``framework.Arguments`` does.

    ``known``/``prefixes``: the keys a plugin reads, the others warned about and dropped;
    ``None`` keeps every key, for actions, which upstream reads key by key without a list."""

    def __init__(
        self,
        raw: Mapping[str, Any],
        *,
        known: Iterable[str] | None = (),
        prefixes: Iterable[str] = (),
    ) -> None:
        if known is None:
            self.raw = dict(raw)
            return
        known_set, prefix_list = set(known), tuple(prefixes)
        for key in sorted(raw):
            if key not in known_set and not key.startswith(prefix_list):
                close = difflib.get_close_matches(key, sorted(known_set), n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                warn_argument(f"unknown argument {key!r} is ignored{hint}")
        self.raw = {k: v for k, v in raw.items() if k in known_set or k.startswith(prefix_list)}

    def _unparsed(self, key: str, kind: str, default: object) -> None:
        value = self.raw[key]
        warn_argument(
            f"could not parse argument {value!r} for key {key!r} to {kind}: "
            f"the default {default!r} is kept"
        )

    def number(self, key: str, default: float) -> float:
        """``GetFloat64``: a YAML float or integer."""
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._unparsed(key, "float64", default)
            return default
        return float(value)

    def integer(self, key: str, default: int) -> int:
        """``GetInt``: a YAML integer (``2.0`` is a float and keeps the default, as there)."""
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self._unparsed(key, "int", default)
            return default
        return value

    def flag(self, key: str, default: bool) -> bool:
        """``GetBool``: a YAML boolean, or a string ``strconv.ParseBool`` reads."""
        value = self.raw.get(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value in _GO_BOOLS:
            return _GO_BOOLS[value]
        self._unparsed(key, "bool", default)
        return default

    def text(self, key: str, default: str) -> str:
        """``GetString``: a YAML string."""
        value = self.raw.get(key, default)
        if not isinstance(value, str):
            self._unparsed(key, "string", default)
            return default
        return value


def action_arguments(configurations: Mapping[str, Mapping[str, Any]], action: str) -> Arguments:
    """``GetArgOfActionFromConf``: the arguments the conf's ``configurations`` give an action."""
    return Arguments(configurations.get(action, {}), known=None)
