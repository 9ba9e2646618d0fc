"""What every plugin shares: no-op session hooks (arguments: ``framework.arguments``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session


class BasePlugin:
    name = ""

    def on_session_open(self, ssn: Session) -> None:
        """Register callbacks; plugins override."""

    def on_session_close(self, ssn: Session) -> None:
        """Report at the end of the session; most plugins have nothing to say."""


class AcceptedPlugin(BasePlugin):
    """A Volcano plugin whose inputs Shoal does not carry (node agents, metrics, webhooks,
    objects it does not watch): accepted with its arguments checked, registering nothing, so
    a conf naming it runs with the rest of its plugins. Each module says what is left out."""

    def __init__(self, name: str) -> None:
        self.name = name
