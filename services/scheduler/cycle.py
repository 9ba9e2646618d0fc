"""One scheduler cycle over the service's view: the pure session, in the service's vocabulary.

The conf comes from the ``volcano-scheduler-configmap`` ConfigMap (or a file); a conf that does
not parse is logged and the last good one (else Volcano's default) is used, so a typo in the
ConfigMap never stops scheduling. ``decide`` reports the text of the conf it actually ran, so a
cycle record can say which conf ``shoal replay`` must use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime

import msgspec
import structlog

from services.scheduler.actions import default_actions
from services.scheduler.conf import SchedulerConf, parse_conf
from services.scheduler.plugins import default_plugins
from services.scheduler.result import SessionResult
from services.scheduler.runner import default_conf, run_session
from services.scheduler.snapshot import Snapshot
from services.scheduler.state import ClusterView, SessionDecisions
from shared.errors import UserError

_log = structlog.get_logger()
_PLUGINS = default_plugins()
_ACTIONS = default_actions()


class _ConfCache:
    def __init__(self) -> None:
        self.text: str | None = None
        self.conf: SchedulerConf = default_conf(_PLUGINS, _ACTIONS)
        self.effective: str | None = None  # the text ``conf`` came from; None: the default

    def get(self, text: str | None) -> SchedulerConf:
        if text == self.text:
            return self.conf
        self.text = text
        if text is None:
            self.conf, self.effective = default_conf(_PLUGINS, _ACTIONS), None
            return self.conf
        try:
            self.conf = parse_conf(
                text, plugins=_PLUGINS, actions=_ACTIONS, source="volcano-scheduler.conf"
            )
            self.effective = text
            _log.info("scheduler conf loaded", actions=list(self.conf.actions))
            for warning in self.conf.warnings:
                _log.warning("scheduler conf key ignored", warning=warning)
        except UserError as exc:
            _log.error("invalid scheduler conf; keeping the previous one", error=str(exc))
        return self.conf


_confs = _ConfCache()


def conf_digest(text: str | None) -> str:
    """How a cycle record names its conf: sha256 of the text, "" for Volcano's default."""
    return "" if text is None else hashlib.sha256(text.encode()).hexdigest()


def session(view: ClusterView, *, now: float, scheduler_names: Iterable[str]) -> SessionResult:
    """The whole session result (with every job's reasons) over ``view``."""
    snapshot = Snapshot(
        nodes=view.nodes,
        queues=view.queues,
        pod_groups=view.podgroups,
        pods=view.pods,
        priority_classes=view.priority_classes,
    )
    return run_session(
        snapshot,
        _confs.get(view.conf_text),
        datetime.fromtimestamp(now, UTC),
        plugins=_PLUGINS,
        actions=_ACTIONS,
        scheduler_names=frozenset(scheduler_names),
    )


def decide(view: ClusterView, *, now: float, scheduler_names: Iterable[str]) -> SessionDecisions:
    result = session(view, now=now, scheduler_names=scheduler_names)
    return SessionDecisions(
        binds=dict(result.binds),
        evictions=list(result.evictions),
        pipelined=dict(result.pipelined),
        podgroups={
            key: {"phase": update.phase, "conditions": msgspec.to_builtins(update.conditions)}
            for key, update in result.pod_groups.items()
        },
        conf_text=_confs.effective,
    )
