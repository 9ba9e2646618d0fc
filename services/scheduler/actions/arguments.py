"""An action's arguments from the conf's ``configurations`` (Volcano ``framework.Arguments``).

Read as Volcano's ``GetInt``/``GetBool`` do: a missing key or a value of the wrong type keeps
the action's default (Volcano logs and carries on); a boolean may also be one of the strings
``strconv.ParseBool`` accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


class ActionArguments:
    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw

    @classmethod
    def of(cls, ssn: Session, action: str) -> ActionArguments:
        return cls(ssn.configurations.get(action, {}))

    def integer(self, key: str, default: int) -> int:
        value = self.raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            return default
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value in _TRUE | _FALSE:
            return value in _TRUE
        return default
