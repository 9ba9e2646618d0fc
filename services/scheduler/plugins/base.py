"""What every plugin shares: no-op session hooks and strict argument parsing."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from services.scheduler.conf import warn_argument

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


class BasePlugin:
    name = ""

    def on_session_open(self, ssn: Session) -> None:
        """Register callbacks; plugins override."""

    def on_session_close(self, ssn: Session) -> None:
        """Report at the end of the session; most plugins have nothing to say."""


class Arguments:
    """A plugin's ``arguments`` as Volcano's ``framework.Arguments`` reads them: unknown keys
    are warned about and dropped (Volcano's plugins ignore them), and a known key whose value
    has the wrong type keeps its default with a warning (``GetInt``, ``GetFloat64``,
    ``GetBool`` and ``GetString`` log and return), so a conf Volcano runs is never refused."""

    def __init__(
        self, raw: dict[str, Any], *, known: Iterable[str] = (), prefixes: Iterable[str] = ()
    ) -> None:
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


# strconv.ParseBool's accepted spellings.
_GO_BOOLS = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


class AcceptedPlugin(BasePlugin):
    """A Volcano plugin whose inputs Shoal does not carry (node agents, metrics, webhooks,
    objects it does not watch): accepted with its arguments checked, registering nothing, so
    a conf naming it runs with the rest of its plugins. Each module says what is left out."""

    def __init__(self, name: str) -> None:
        self.name = name
