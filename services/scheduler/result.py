"""What a session decided: binds, evictions, pipelined placements, PodGroup updates, reasons."""

from __future__ import annotations

from typing import Any

import msgspec

from services.scheduler.api.status import FitErrors, Status
from shared.models import Condition


class PodGroupUpdate(msgspec.Struct, kw_only=True):
    """The PodGroup status the binder should write: phase and the full condition list."""

    phase: str
    conditions: list[Condition] = []
    # Volcano's jobStatus counters: pods Running, Succeeded, Failed.
    running: int = 0
    succeeded: int = 0
    failed: int = 0


class JobReasons(msgspec.Struct, kw_only=True):
    """Why a job is where it is: the condition message, verdicts per plugin, node histograms."""

    job: str
    queue: str
    phase: str
    message: str = ""
    plugins: dict[str, list[Status]] = {}
    tasks: dict[str, FitErrors] = {}


class SessionResult(msgspec.Struct, kw_only=True):
    """Everything one session decided and why; the service turns it into decision envelopes,
    ``simulate``/``replay``/``explain`` print or compare it."""

    binds: dict[str, str] = {}
    evictions: list[str] = []
    pipelined: dict[str, str] = {}
    pod_groups: dict[str, PodGroupUpdate] = {}
    reasons: dict[str, JobReasons] = {}
    # Pods still waiting → their PodScheduled=False (reason, message), as Volcano's
    # taskUnschedulable writes them.
    unschedulable_pods: dict[str, tuple[str, str]] = {}
    # Pods left out of the session and why (no PodGroup, invalid resources).
    skipped: dict[str, str] = {}
    # The text of the conf the session ran (None: Volcano's default), for the cycle record.
    conf_text: str | None = None
    # Why the conf in the snapshot was refused ("": it was not); the session ran ``conf_text``.
    conf_error: str = ""
    # Keys and plugin arguments of that conf Volcano would ignore, each naming the closest
    # known one (``SchedulerConf.warnings``), so ``shoal explain`` can show them.
    conf_warnings: list[str] = []

    def phases(self) -> dict[str, str]:
        return {key: update.phase for key, update in self.pod_groups.items()}

    def decisions(self) -> dict[str, Any]:
        """The ``shoal simulate schedule`` document (sorted keys, conditions without noise)."""
        return {
            "binds": dict(sorted(self.binds.items())),
            "evictions": sorted(self.evictions),
            "pipelined": dict(sorted(self.pipelined.items())),
            "podGroups": {
                key: {
                    "phase": update.phase,
                    "conditions": [msgspec.to_builtins(c) for c in update.conditions],
                }
                for key, update in sorted(self.pod_groups.items())
            },
        }
