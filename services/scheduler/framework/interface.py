"""What a plugin and an action are (Volcano's ``framework/interface.go``).

Both are handed the session, so they sit above it: the session only keeps the callbacks a
plugin registers (``extension``), never the plugin's interface, and no import goes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from services.scheduler.framework.arguments import Arguments

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


class Plugin(Protocol):
    """A plugin registers its callbacks on the session when it opens."""

    @property
    def name(self) -> str: ...

    def on_session_open(self, ssn: Session) -> None: ...

    def on_session_close(self, ssn: Session) -> None: ...


class PluginFactory(Protocol):
    def __call__(self, arguments: dict[str, Any]) -> Plugin: ...


class Action(Protocol):
    @property
    def name(self) -> str: ...

    def execute(self, ssn: Session) -> None: ...


@runtime_checkable
class ReadsArguments(Protocol):
    """An action with arguments in the conf's ``configurations`` (Volcano's
    ``parseArguments``): it reads them when it runs, and once when the conf is loaded."""

    def read_arguments(self, arguments: Arguments) -> object: ...


class ActionFactory(Protocol):
    def __call__(self) -> Action: ...
