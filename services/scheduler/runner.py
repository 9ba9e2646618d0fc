"""``run_session``: one scheduling cycle as a pure function of a snapshot, a conf and a clock.

This is exactly what the service runs every cycle and what ``shoal simulate schedule``,
replay and the tests call: build the cluster, open the plugins, drop invalid jobs (with a
condition saying why), run the actions in order, close the plugins, report.
"""

from __future__ import annotations

from datetime import datetime

from services.scheduler.api import JobInfo
from services.scheduler.api.cluster import Cluster
from services.scheduler.api.status import Code, Status
from services.scheduler.api.task import TaskStatus
from services.scheduler.conf import DEFAULT_CONF, SchedulerConf
from services.scheduler.framework.closing import (
    SCHEDULED,
    UNSCHEDULABLE,
    finished,
    new_phase,
    pod_unschedulable,
    releasing_holds_gang,
)
from services.scheduler.framework.interface import ActionFactory, Plugin, PluginFactory
from services.scheduler.framework.loading import load_conf
from services.scheduler.framework.registry import Registry
from services.scheduler.framework.session import Session
from services.scheduler.result import JobReasons, PodGroupUpdate, SessionResult
from services.scheduler.snapshot import DEFAULT_SCHEDULER_NAMES, Snapshot, build_cluster
from services.scheduler.snapshot_memo import SnapshotMemo
from shared.kube.timefmt import format_rfc3339
from shared.models import Condition


def default_conf(
    plugins: Registry[PluginFactory], actions: Registry[ActionFactory]
) -> SchedulerConf:
    return load_conf(DEFAULT_CONF, plugins=plugins, actions=actions, source="default conf")


def open_session(
    cluster: Cluster, conf: SchedulerConf, now: datetime, *, plugins: Registry[PluginFactory]
) -> Session:
    """Volcano's ``OpenSession``: build the conf's plugins, let each register its callbacks,
    and seal the extension points per tier. Unit tests call the callbacks on what this returns
    as upstream's tests call ``ssn.JobEnqueueable`` and friends."""
    return _open(cluster, conf, now, _plugins(conf, plugins))


def _plugins(conf: SchedulerConf, plugins: Registry[PluginFactory]) -> list[Plugin]:
    return [plugins.get(o.name)(dict(o.arguments)) for tier in conf.tiers for o in tier]


def _open(cluster: Cluster, conf: SchedulerConf, now: datetime, instances: list[Plugin]) -> Session:
    ssn = Session(
        cluster,
        tiers=conf.tiers,
        plugins=instances,
        actions=conf.actions,
        now=now,
        configurations=conf.configurations,
    )
    for plugin in instances:
        plugin.on_session_open(ssn)
    ssn.seal()
    return ssn


def run_session(
    snapshot: Snapshot,
    conf: SchedulerConf,
    now: datetime,
    *,
    plugins: Registry[PluginFactory],
    actions: Registry[ActionFactory],
    scheduler_names: frozenset[str] = DEFAULT_SCHEDULER_NAMES,
    memo: SnapshotMemo | None = None,
) -> SessionResult:
    """``memo``: what the caller's previous session read of the same pod objects (a service
    keeps one; the decisions are the same without)."""
    cluster = build_cluster(snapshot, scheduler_names=scheduler_names, memo=memo)
    rejected: dict[str, tuple[JobInfo, Status]] = {
        key: (cluster.jobs.pop(key), status) for key, status in cluster.job_errors.items()
    }
    instances = _plugins(conf, plugins)
    ssn = _open(cluster, conf, now, instances)
    invalid: set[str] = set()  # failed job_valid: phase as Volcano's jobStatus computes it
    for job in list(ssn.jobs.values()):
        # A Pending PodGroup stays in the session although its gang is not valid yet: the
        # Volcano job controller creates pods only once the PodGroup is Inqueue, so enqueue must
        # see it (in Volcano, JobValid runs in allocate, after enqueue). Allocate skips Pending.
        if job.is_pending():
            continue
        status = ssn.job_valid(job)
        if status is not None:
            rejected[job.key] = (ssn.jobs.pop(job.key), status)
            invalid.add(job.key)
    for name in conf.actions:
        actions.get(name)().execute(ssn)
    for plugin in instances:
        plugin.on_session_close(ssn)
    result = _result(ssn, rejected, invalid, cluster.skipped)
    result.conf_warnings = list(conf.warnings)
    ssn.close()
    return result


def _conditions(job: JobInfo, new: dict[str, Status], now: str) -> list[Condition]:
    merged = {c.type: c for c in job.pod_group.status.conditions}
    for kind, status in new.items():
        merged[kind] = Condition(
            type=kind,
            status="True",
            reason=status.reason,
            message=status.message,
            lastTransitionTime=now,
        )
    if SCHEDULED in new and merged.get(UNSCHEDULABLE) is not None:
        old = merged[UNSCHEDULABLE]
        if old.status == "True":
            merged[UNSCHEDULABLE] = Condition(
                type=UNSCHEDULABLE, status="False", reason="Scheduled", lastTransitionTime=now
            )
    return [merged[k] for k in sorted(merged)]


def _reasons(job: JobInfo, phase: str, message: str) -> JobReasons:
    return JobReasons(
        job=job.key,
        queue=job.queue,
        phase=phase,
        message=message,
        plugins={k: list(v) for k, v in sorted(job.reasons.items())},
        tasks=dict(sorted(job.fit_errors.items())),
    )


def _update(job: JobInfo, phase: str, conditions: list[Condition]) -> PodGroupUpdate:
    counts = job.counts
    return PodGroupUpdate(
        phase=phase,
        conditions=conditions,
        running=counts[TaskStatus.RUNNING],
        succeeded=counts[TaskStatus.SUCCEEDED],
        failed=counts[TaskStatus.FAILED],
    )


def _result(
    ssn: Session,
    rejected: dict[str, tuple[JobInfo, Status]],
    invalid: set[str],
    skipped: dict[str, str],
) -> SessionResult:
    now = format_rfc3339(ssn.now.timestamp())
    result = SessionResult(
        binds=ssn.binds,
        evictions=sorted(ssn.evictions),
        pipelined={k: v for k, v in ssn.pipelined.items() if k not in ssn.binds},
        skipped=dict(sorted(skipped.items())),
    )
    for job in ssn.jobs.values():
        new = ssn.conditions.get(job.key, {})
        unschedulable = UNSCHEDULABLE in new and new[UNSCHEDULABLE].code is not Code.SUCCESS
        phase = new_phase(job, unschedulable=unschedulable)
        result.pod_groups[job.key] = _update(job, phase, _conditions(job, new, now))
        message = new[UNSCHEDULABLE].message if unschedulable else ""
        result.reasons[job.key] = _reasons(job, phase, message)
        result.unschedulable_pods.update(pod_unschedulable(job, result.pipelined))
    for key, (job, status) in sorted(rejected.items()):
        job.record(status)
        # A job whose pods all ended, or that has none, has nothing to explain (Volcano's gang
        # skips jobs without tasks), nor one whose gang is short only by terminating pods
        # still on their nodes; its PodGroup must not turn Unschedulable.
        quiet = key in invalid and (not job.tasks or finished(job) or releasing_holds_gang(job))
        phase = new_phase(job, unschedulable=not quiet) if key in invalid else job.phase
        new = {} if quiet else {UNSCHEDULABLE: status}
        result.pod_groups[key] = _update(job, phase, _conditions(job, new, now))
        result.reasons[key] = _reasons(job, phase, "" if quiet else status.message)
        result.unschedulable_pods.update(pod_unschedulable(job, result.pipelined))
    result.pod_groups = dict(sorted(result.pod_groups.items()))
    result.reasons = dict(sorted(result.reasons.items()))
    return result
