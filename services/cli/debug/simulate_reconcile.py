"""``shoal simulate reconcile``: one sync of every job in a manifest file, printed as JSON.

The pods, PodGroups and Services in the file are the observed cache; a bus Command is delivered
to the job it targets. ``--pending-creations``/``--pending-deletions`` start each job with
unsatisfied expectations. Output per job key (architecture §5): ``kind``, ``created`` (full
manifests), ``deleted`` (``ns/name``), ``status`` (the job's new status in its own schema);
``patched``, ``requeueAfter``, ``deleteJob`` and ``events`` are added when there are any. A
pod of the file that a plain-pod sync would act on (its PodGroup and the annotation joining it,
or an orphan's tracking finalizer) gets an entry too, ``kind: Pod`` without ``status``, under
its key (``Pod ns/name`` if a job has that key). A job kind whose reconcile is not available is
reported as an ``error`` entry and a line on stderr, and the command exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from shared.errors import ManifestError, UserError

if TYPE_CHECKING:
    from services.jobcontroller.core import Actions
    from services.jobcontroller.kinds import ReconcilerTable
    from services.jobcontroller.snapshot import Snapshot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--file", required=True, help="multi-document YAML ('-': stdin)")
    parser.add_argument("-o", "--output", choices=["json"], default="json", help="output format")
    parser.add_argument("--pending-creations", type=int, default=0, metavar="N")
    parser.add_argument("--pending-deletions", type=int, default=0, metavar="N")
    parser.add_argument("--now", help="the clock, RFC 3339 (default: the current time)")


def run(args: argparse.Namespace) -> int:
    result, errors = simulate(
        _read(args.file),
        source=args.file,
        now=_now(args.now),
        pending_creations=args.pending_creations,
        pending_deletions=args.pending_deletions,
    )
    for line in errors:
        print(f"shoal: simulate reconcile: {line}", file=sys.stderr)
    print(json.dumps(result, indent=2))
    return 1 if errors else 0


def simulate(
    text: str,
    *,
    source: str = "input",
    now: float,
    pending_creations: int = 0,
    pending_deletions: int = 0,
    table: ReconcilerTable | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """One sync of every job in ``text``: (output per job key, error lines)."""
    from services.jobcontroller import kinds, kueue, observing, snapshot
    from services.jobcontroller.workkeys import work_key
    from shared.expectations import Expectations
    from shared.models import load_manifests, object_key

    if pending_creations < 0 or pending_deletions < 0:
        raise UserError("--pending-creations/--pending-deletions must be >= 0")
    objects = load_manifests(text, source=source)
    snap = snapshot.build(objects, lambda o: kinds.is_job_kind(o.apiVersion, o.kind))
    _validate(snap.jobs, source)
    result: dict[str, Any] = {}
    errors: list[str] = []
    for job in snap.jobs:
        key = object_key(job.metadata)
        expectations = Expectations()
        if pending_creations:
            expectations.expect_creations(key, pending_creations, now)
        if pending_deletions:
            pending = [f"pending-{i}" for i in range(pending_deletions)]
            expectations.expect_deletions(key, pending, now)
        satisfied = expectations.satisfied(key, now)
        observed = observing.observe(snap, work_key(job), expectations_satisfied=satisfied)
        try:
            reconciler = kinds.reconciler_for(job.apiVersion, job.kind, table or kinds.RECONCILERS)
        except kinds.ReconcileUnavailable as exc:
            errors.append(f"{key}: {exc}")
            result[key] = {"kind": job.kind, "error": str(exc)}
            continue
        result[key] = _entry(job, kueue.sync(reconciler.reconcile, job, observed, now))
    for key, entry in _plain_pods(snap).items():
        result[f"Pod {key}" if key in result else key] = entry
    return result, errors


def _plain_pods(snap: Snapshot) -> dict[str, dict[str, Any]]:
    """What a plain-pod sync does to each pod of the file (only pods it acts on)."""
    from services.jobcontroller import podgroups
    from services.jobcontroller.batchjob.orphans import controller_job_key
    from shared.kube.keys import namespaced_key
    from shared.models import Job

    jobs = {
        namespaced_key(j.metadata.namespace, j.metadata.name): j
        for j in snap.jobs
        if isinstance(j, Job)
    }
    existing = {namespaced_key(g.metadata.namespace, g.metadata.name) for g in snap.podgroups}
    entries: dict[str, dict[str, Any]] = {}
    for pod in snap.pods:
        actions = podgroups.reconcile_pod(
            pod,
            job=jobs.get(controller_job_key(pod) or ""),
            podgroup_exists=podgroups.podgroup_key(pod) in existing,
        )
        if actions.changes_objects():
            key = namespaced_key(pod.metadata.namespace, pod.metadata.name)
            entries[key] = _entry(pod, actions)
    return entries


def _entry(obj: Any, actions: Actions) -> dict[str, Any]:
    from shared.models import Pod, to_dict

    entry: dict[str, Any] = {"kind": obj.kind, "created": actions.create, "deleted": actions.delete}
    if not isinstance(obj, Pod):
        status = actions.status if actions.status is not None else obj.status
        entry["status"] = to_dict(status)
    patches = [*actions.patch, *actions.patch_after_create]
    if patches:
        entry["patched"] = [
            {"kind": p.kind, "key": p.key, "type": p.patch_type, "patch": p.patch} for p in patches
        ]
    if actions.requeue_after is not None:
        entry["requeueAfter"] = actions.requeue_after
    if actions.delete_job:
        entry["deleteJob"] = True
    # One step runs no writes, so the Events that report them are shown as if they succeeded.
    events = actions.events + actions.events_on_success
    if events:
        entry["events"] = [
            {"type": kind, "reason": reason, "message": message} for kind, reason, message in events
        ]
    return entry


def _validate(jobs: list[Any], source: str) -> None:
    from services.jobcontroller.batchjob import spec
    from shared.models import Job

    for job in jobs:
        if isinstance(job, Job):
            for problem in spec.validate(job):
                field, _, message = problem.partition(": ")
                raise ManifestError(
                    message, document=f"{source} (Job {job.metadata.name})", field=field
                )


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None


def _now(value: str | None) -> float:
    if value is None:
        return time.time()
    from shared.kube.timefmt import parse_rfc3339

    parsed = parse_rfc3339(value)
    if parsed is None:
        raise UserError(f"--now: not an RFC 3339 time: {value!r}")
    return parsed
