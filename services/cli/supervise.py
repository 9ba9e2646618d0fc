"""``shoal up`` as a supervisor: children that exit on their own are restarted with back-off.

``RestartPolicy`` is the pure part: the delay before restart *n* of a child doubles from
``base`` up to ``cap``, and a child that stayed up ``stable_after`` seconds starts again from
``base``. ``Supervisor`` polls the stack's children (reaping them, so none stays a zombie),
restarts what died and reports each restart through ``report`` (the live view and
``logs/supervisor.log``). Children die with ``shoal up`` itself: SIGINT/SIGTERM stop the stack,
and each child asks the kernel to signal it when its parent dies (``die_with_parent``), which
covers a crash or a SIGKILL of ``shoal up``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from services.cli.stack import Stack


@dataclass
class RestartPolicy:
    base: float = 1.0
    cap: float = 30.0
    stable_after: float = 60.0

    def delay(self, failures: int) -> float:
        """Seconds to wait before restarting after ``failures`` consecutive exits (>= 1)."""
        return float(min(self.base * 2 ** (failures - 1), self.cap))


@dataclass
class _Child:
    started: float
    failures: int = 0
    restart_at: float | None = None


@dataclass
class Supervisor:
    stack: Stack
    report: Callable[[str], None]
    policy: RestartPolicy = field(default_factory=RestartPolicy)
    clock: Callable[[], float] = time.monotonic
    restarts: dict[str, int] = field(default_factory=dict)
    _children: dict[str, _Child] = field(default_factory=dict)

    async def run(self, stopping: asyncio.Event, *, period: float = 0.2) -> None:
        while not stopping.is_set():
            self.check()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), period)

    def check(self) -> None:
        now = self.clock()
        for name, alive, code in self.stack.children():
            child = self._children.setdefault(name, _Child(started=now))
            if alive:
                if child.failures and now - child.started >= self.policy.stable_after:
                    child.failures = 0
                continue
            if child.restart_at is None:
                child.failures += 1
                delay = self.policy.delay(child.failures)
                child.restart_at = now + delay
                self.report(
                    f"{name} exited with code {code}; restarting in {delay:.0f}s "
                    f"(restart {self.restarts.get(name, 0) + 1})"
                )
            if now >= child.restart_at:
                self.stack.respawn(name)
                self.restarts[name] = self.restarts.get(name, 0) + 1
                child.started, child.restart_at = now, None
                self.report(f"{name} restarted")
