"""One scheduler's sessions: its plugin and action registries, its conf, a session per snapshot.

The conf comes from the snapshot (the ``volcano-scheduler-configmap`` ConfigMap, or a file the
service put there); a conf that does not parse is logged, named in the result (the service has a
Warning Event posted on the ConfigMap) and the last good one (else Volcano's default) is used,
so a typo in the ConfigMap never stops scheduling. Each result names the text
of the conf it actually ran, so a cycle record can say which conf ``shoal replay`` must use.
The service, ``shoal replay`` and ``shoal explain`` all run sessions through ``Scheduling``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime

import structlog

from services.scheduler.actions import default_actions
from services.scheduler.conf import SchedulerConf
from services.scheduler.framework.interface import ActionFactory, PluginFactory
from services.scheduler.framework.loading import load_conf
from services.scheduler.framework.registry import Registry
from services.scheduler.plugins import default_plugins
from services.scheduler.result import SessionResult
from services.scheduler.runner import default_conf, run_session
from services.scheduler.snapshot import Snapshot
from services.scheduler.snapshot_memo import SnapshotMemo
from shared.errors import UserError

_log = structlog.get_logger()


def conf_digest(text: str | None) -> str:
    """How a cycle record names its conf: sha256 of the text, "" for Volcano's default."""
    return "" if text is None else hashlib.sha256(text.encode()).hexdigest()


class Scheduling:
    """Runs sessions with the registries it is given and the last good conf it was shown."""

    def __init__(
        self,
        *,
        plugins: Registry[PluginFactory] | None = None,
        actions: Registry[ActionFactory] | None = None,
        on_warnings: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        self.plugins = plugins if plugins is not None else default_plugins()
        self.actions = actions if actions is not None else default_actions()
        self._text: str | None = None
        self._conf: SchedulerConf = default_conf(self.plugins, self.actions)
        self._effective: str | None = None  # the text ``_conf`` came from; None: the default
        self.warnings: tuple[str, ...] = ()
        # Why the current text was refused (Volcano: "Scheduler config ... is invalid"), or "".
        self.error = ""
        # Told the warnings of each conf as it is loaded (the service counts them on /metrics).
        self._on_warnings = on_warnings
        # The pods the last session read: the next one re-reads only the pods that changed.
        self.memo = SnapshotMemo()

    def conf(self, text: str | None) -> tuple[SchedulerConf, str | None]:
        """The conf to run for ``text`` and the text it came from (None: the default)."""
        if text == self._text:
            return self._conf, self._effective
        self._text = text
        self.error = ""
        if text is None:
            self._conf, self._effective = default_conf(self.plugins, self.actions), None
            self.warnings = ()
            return self._conf, self._effective
        try:
            self._conf = load_conf(
                text, plugins=self.plugins, actions=self.actions, source="volcano-scheduler.conf"
            )
        except UserError as exc:
            _log.error("invalid scheduler conf; keeping the previous one", error=str(exc))
            self.error = str(exc)
            return self._conf, self._effective
        self._effective = text
        self.warnings = tuple(self._conf.warnings)
        _log.info("scheduler conf loaded", actions=list(self._conf.actions))
        for warning in self.warnings:
            _log.warning("scheduler conf key ignored", warning=warning)
        if self._on_warnings is not None and self.warnings:
            self._on_warnings(self.warnings)
        return self._conf, self._effective

    def session(
        self, snapshot: Snapshot, *, now: float, scheduler_names: Iterable[str]
    ) -> SessionResult:
        """One session over ``snapshot`` at the Unix time ``now``."""
        conf, effective = self.conf(snapshot.conf_text)
        with _collector_paused():
            result = run_session(
                snapshot,
                conf,
                datetime.fromtimestamp(now, UTC),
                plugins=self.plugins,
                actions=self.actions,
                scheduler_names=frozenset(scheduler_names),
                memo=self.memo,
            )
        result.conf_text = effective
        result.conf_error = self.error
        return result


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Run a session without the cyclic garbage collector. A session allocates hundreds of
    thousands of objects that live until it ends, so the collector's thresholds keep firing
    and each full collection walks the whole snapshot and cache for no garbage (10-20 % of a
    large session's CPU). Reference counting still frees what dies; cycles wait for the
    collector, which runs again as soon as the session is over."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
