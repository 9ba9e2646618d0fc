"""What every plugin shares: no-op session hooks and strict argument parsing."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from services.scheduler.conf import warn_argument
from shared.errors import UserError

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


class BasePlugin:
    name = ""

    def on_session_open(self, ssn: Session) -> None:
        """Register callbacks; plugins override."""

    def on_session_close(self, ssn: Session) -> None:
        """Report at the end of the session; most plugins have nothing to say."""


class Arguments:
    """A plugin's ``arguments``: unknown keys are warned about and dropped, as Volcano's
    plugins ignore them; a known key with a value of the wrong type is an error."""

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

    def number(self, key: str, default: float) -> float:
        value = self.raw.get(key, default)
        if isinstance(value, bool):
            raise UserError(f"argument {key!r}: expected a number, got {value!r}")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise UserError(f"argument {key!r}: expected a number, got {value!r}") from None

    def integer(self, key: str, default: int) -> int:
        value = self.number(key, default)
        if value != int(value):
            raise UserError(f"argument {key!r}: expected an integer, got {self.raw[key]!r}")
        return int(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise UserError(f"argument {key!r}: expected true or false, got {value!r}")

    def text(self, key: str, default: str) -> str:
        value = self.raw.get(key, default)
        if not isinstance(value, str):
            raise UserError(f"argument {key!r}: expected a string, got {value!r}")
        return value


class AcceptedPlugin(BasePlugin):
    """A Volcano plugin whose inputs Shoal does not carry (node agents, metrics, webhooks,
    objects it does not watch): accepted with its arguments checked, registering nothing, so
    a conf naming it runs with the rest of its plugins. Each module says what is left out."""

    def __init__(self, name: str) -> None:
        self.name = name
