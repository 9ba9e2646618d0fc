"""tdm (Volcano ``pkg/scheduler/plugins/tdm``): time-division multiplexing of revocable zones.

A node labelled ``volcano.sh/revocable-zone: <zone>`` lends itself to preemptable work during
the zone's daily window, the argument ``tdm.revocable-zone.<zone>: "HH:MM-HH:MM"``: only tasks
that may use revocable zones (``volcano.sh/revocable-zone: "*"``, or annotated preemptable)
are placed there, and only while the window is open, where they score 100. When a window has
closed, the shuffle action evicts the preemptable pods still running there, job by job within
the job's disruption budget (PodGroup ``volcano.sh/jdb-min-available`` or
``volcano.sh/jdb-max-unavailable``, a number or a percentage of its pods). Preemptable jobs
go after the others, and a preemptable task never preempts.

Shoal keeps no state between cycles, so the ``tdm.evict.period`` pause between two shuffles is
read but not applied: every shuffle with a closed window evicts (within the budgets).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import JobInfo, NodeTable, TaskInfo
from services.scheduler.api.node import NodeClass
from services.scheduler.api.resources import FloatVec
from services.scheduler.api.status import Code, Status
from services.scheduler.api.task import PREEMPTABLE_KEY, REVOCABLE_ZONE_KEY, TaskStatus
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import PERMIT, Rows, Verdict
from services.scheduler.plugins.base import BasePlugin

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "tdm"
ZONE_PREFIX = "tdm.revocable-zone."
EVICT_PERIOD = "tdm.evict.period"
ARGUMENTS: tuple[str, ...] = (EVICT_PERIOD,)
JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
MAX_NODE_SCORE = 100.0
DEFAULT_POD_EVICT_NUM = 1
# Go's time.Parse with layout "15:04": the hour takes one or two digits, the minute two.
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")


def _clock(text: str) -> tuple[int, int]:
    match = _CLOCK.fullmatch(text)
    if match is None:
        raise ValueError(f'parsing time "{text}" as "15:04": cannot parse')
    hour, minute = int(match[1]), int(match[2])
    if hour > 23 or minute > 59:
        raise ValueError(f'parsing time "{text}": hour or minute out of range')
    return hour, minute


def revocable_zone_window(raw: str, now: datetime) -> tuple[datetime, datetime]:
    """``parseRevocableZone``: today's window of ``"HH:MM-HH:MM"``; an end at or before the
    start is tomorrow (so ``0:00-0:00`` is the whole day). ``ValueError`` if malformed."""
    parts = raw.strip().split("-")
    if len(parts) != 2:
        raise ValueError(f"revocable zone {raw} format error")
    (h1, m1), (h2, m2) = _clock(parts[0]), _clock(parts[1])
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    start = day + timedelta(hours=h1, minutes=m1)
    end = day + timedelta(hours=h2, minutes=m2)
    if (h1, m1) >= (h2, m2):
        end += timedelta(days=1)
    return start, end


def _int_or_percent(value: str, total: int) -> int:
    """``intstr.Parse`` then ``GetValueFromIntOrPercent`` rounding up; unreadable is 0."""
    try:
        return int(value)
    except ValueError:
        pass
    if not value.endswith("%"):
        return 0
    try:
        percent = int(value[:-1])
    except ValueError:
        return 0
    return math.ceil(percent * total / 100)


def _job_preemptable(job: JobInfo) -> bool:
    """``extractPreemptable``: the PodGroup's annotation, else its label; default false."""
    meta = job.pod_group.metadata
    value = meta.annotations.get(PREEMPTABLE_KEY, meta.labels.get(PREEMPTABLE_KEY))
    return value in ("1", "t", "T", "TRUE", "true", "True")


class TdmPlugin(BasePlugin):
    name = NAME

    def __init__(self, zones: dict[str, str]) -> None:
        self.zones = zones

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.now = ssn.now
        nodes = ssn.nodes
        self.row_zone = [
            nodes.classes[c].labels.get(REVOCABLE_ZONE_KEY, "") for c in nodes.class_of
        ]
        self.open_rows: FloatVec = np.array(
            [bool(z) and self.inactive(z) is None for z in self.row_zone], dtype=np.float64
        )
        ssn.points.static_predicate.add(NAME, self.predicate)
        ssn.points.node_order.add(NAME, self)
        ssn.points.preemptable.add(NAME, self.preemptable)
        ssn.points.victim_tasks.add(NAME, self.victim_tasks)
        ssn.points.job_order.add(NAME, lambda job: 1.0 if _job_preemptable(job) else 0.0)
        ssn.points.job_pipelined.add(NAME, self.pipelined)
        ssn.points.job_starving.add(
            NAME, lambda job: not _job_preemptable(job) and job.counts[TaskStatus.PENDING] > 0
        )

    def inactive(self, zone: str) -> str | None:
        """``availableRevocableZone``: why the zone's window is closed now, or None."""
        raw = self.zones.get(zone)
        if raw is None:
            return f"revocable zone {zone} not support"
        try:
            start, end = revocable_zone_window(raw, self.now)
        except ValueError as err:
            return str(err)
        now = int(self.now.timestamp())
        if now < int(start.timestamp()) or now > int(end.timestamp()):
            return f"current time beyond revocable zone {zone}:{raw}"
        return None

    def predicate(self, task: TaskInfo, node: NodeClass) -> Status | None:
        zone = node.labels.get(REVOCABLE_ZONE_KEY, "")
        if not zone:
            return None
        closed = self.inactive(zone)
        if closed is not None:
            return Status(
                code=Code.UNRESOLVABLE, reason="RevocableZoneClosed", message=closed, plugin=NAME
            )
        if not task.revocable_zone:
            return Status(
                code=Code.UNRESOLVABLE,
                reason="RevocableNodeNotAllowed",
                message="not allow to dispatch to revocable node",
                plugin=NAME,
            )
        return None

    # -- node order: 100 on an open revocable node for a task that may use it ---------------
    def row_local(self, task: TaskInfo) -> bool:
        return True

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        if not task.revocable_zone:
            return np.zeros(len(self.open_rows[rows]), dtype=np.float64)
        result: FloatVec = self.open_rows[rows] * MAX_NODE_SCORE
        return result

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        return float(self.open_rows[row] * MAX_NODE_SCORE) if task.revocable_zone else 0.0

    # -- eviction ------------------------------------------------------------------------------
    def preemptable(
        self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """Preemptable tasks off revocable nodes, within each job's budget; a task that is
        preemptable or may use revocable zones preempts nobody (upstream's Reject)."""
        if preemptor.preemptable or preemptor.revocable_zone:
            return [], PERMIT
        by_job: dict[str, list[TaskInfo]] = {}
        for task in candidates:
            if not task.preemptable or task.status is not TaskStatus.RUNNING or task.node < 0:
                continue
            if self.row_zone[task.node]:
                continue
            by_job.setdefault(task.job, []).append(task)
        return self._within_budgets(by_job), PERMIT

    def victim_tasks(self, _: Sequence[TaskInfo]) -> list[TaskInfo]:
        """Preemptable running tasks on the nodes of every closed revocable zone."""
        by_job: dict[str, list[TaskInfo]] = {}
        for zone in self.zones:
            if self.inactive(zone) is None:
                continue
            for row, row_zone in enumerate(self.row_zone):
                if row_zone != zone:
                    continue
                for task in self.ssn.nodes.tasks[row].values():
                    if task.preemptable and task.status is TaskStatus.RUNNING:
                        by_job.setdefault(task.job, []).append(task)
        return self._within_budgets(by_job)

    def _within_budgets(self, by_job: dict[str, list[TaskInfo]]) -> list[TaskInfo]:
        victims: list[TaskInfo] = []
        for key, tasks in by_job.items():
            job = self.ssn.jobs.get(key)
            if job is not None:
                victims += tasks[: min(self._max_evict(job), len(tasks))]
        return victims

    @staticmethod
    def _max_evict(job: JobInfo) -> int:
        """``getMaxPodEvictNum``: how many more pods the job's disruption budget lets go."""
        annotations = job.pod_group.metadata.annotations
        total, running = len(job.tasks), job.counts[TaskStatus.RUNNING]
        min_available = annotations.get(JDB_MIN_AVAILABLE)
        max_unavailable = (
            None if min_available is not None else annotations.get(JDB_MAX_UNAVAILABLE)
        )
        if max_unavailable:
            allowed = _int_or_percent(max_unavailable, total)
            ended = job.counts[TaskStatus.SUCCEEDED] + job.counts[TaskStatus.FAILED]
            unavailable = total - ended - running
            return 0 if unavailable >= allowed else allowed - unavailable
        if min_available:
            needed = _int_or_percent(min_available, total)
            if running >= needed:
                return running - needed
        return DEFAULT_POD_EVICT_NUM

    @staticmethod
    def pipelined(job: JobInfo) -> Verdict:
        occupied = job.ready_task_num() + job.waiting_task_num()
        if occupied >= job.min_available:
            return PERMIT
        return Status(
            reason="GangNotPipelined",
            message=f"{occupied}/{job.min_available} tasks placed or pipelined",
            plugin=NAME,
        )


def new(arguments: dict[str, Any]) -> TdmPlugin:
    args = Arguments(arguments, known=ARGUMENTS, prefixes=(ZONE_PREFIX,))
    args.text(EVICT_PERIOD, "1m")
    zones = {
        key[len(ZONE_PREFIX) :]: args.text(key, "")
        for key in args.raw
        if key.startswith(ZONE_PREFIX)
    }
    return TdmPlugin(zones)
