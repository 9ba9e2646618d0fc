"""Kueue's job integration (``jobframework.JobReconciler``) as a pure step before a job's sync.

A batch/v1 Job, PyTorchJob or Volcano Job with the ``kueue.x-k8s.io/queue-name`` label runs
only while its Workload is admitted, as Kueue's reconciler keeps it:

- no Workload yet: create one (``<kind>-<name>-<hash>``, owned by the job, one pod set per
  replica type or task, labels and priority class as Kueue sets them); a job that is not
  suspended is suspended first (Kueue's webhook suspends it at creation, kubesim plays that
  webhook);
- the job finished: the Workload gets ``Finished`` (``Succeeded``/``Failed``);
- the Workload is evicted (preempted): the job is stopped (suspended, its pod templates restored
  from the Workload) and, once no pod of it is active, the admission is cleared
  (``QuotaReserved=False``, ``Requeued``) so the Workload queues again;
- suspended and admitted: the job starts: ``suspend: false`` with each pod set's flavors'
  node labels merged into its nodeSelector and their tolerations added (``podset.Merge``), and
  partial admission's count as parallelism when the job allows it;
- running but not admitted: stopped.

The job's own reconcile runs after this step unless the step says the job must first be
stopped or started (its next sync sees the patched job). A Volcano Job has no suspend switch
and is held *gated* instead (``kueue_kinds``): its own sync runs only while admitted, the pods
it creates get the flavors' labels and tolerations, and stopping it deletes its pods.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from services.jobcontroller.core import Actions, Observed, Patch
from services.jobcontroller.kueue_kinds import (
    BATCH_JOB,
    MIN_PARALLELISM_ANNOTATION,
    SHAPES,
    JobShape,
)
from shared.kube.conditions import is_true, same_ignoring_time, set_condition
from shared.kube.timefmt import format_rfc3339
from shared.models import Json, Pod, PriorityClass, ResourceFlavor, Workload
from shared.models.kueue import PodSetAssignment
from shared.models.volcano import TASK_SPEC_KEY

KUEUE_API = "kueue.x-k8s.io/v1beta2"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
# v1beta2 PriorityClassRef (group, kind): a Pod PriorityClass or a WorkloadPriorityClass.
POD_PRIORITY_CLASS = ("scheduling.k8s.io", "PriorityClass")
WORKLOAD_PRIORITY_CLASS = ("kueue.x-k8s.io", "WorkloadPriorityClass")
DEFAULT_PRIORITY = 0  # constants.DefaultPriority
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-completions-equal-parallelism"
_MAX_NAME = 253  # without the ShortWorkloadNames gate
_HASH = 5


@dataclass(frozen=True, slots=True)
class KueueStep:
    """What Kueue's reconciler adds to this sync, and whether the job's own sync runs too."""

    actions: Actions
    run_job: bool
    pod_specs: Mapping[str, Json] | None = None
    """A gated kind's pod set → the nodeSelector and tolerations its new pods get."""


# -- names and manifests ------------------------------------------------------------------------


def owner_workload_name(kind: str, group: str, name: str, uid: str) -> str:
    """``GetWorkloadNameForOwnerWithGVK``: ``<kind>-<name>`` cut to fit, ``-`` and a hash."""
    digest = hashlib.sha1(
        "\n".join((kind, group, name, uid)).encode(), usedforsecurity=False
    ).hexdigest()
    prefix = f"{kind.lower()}-{name}"[: _MAX_NAME - 1 - _HASH]
    return f"{prefix}-{digest[:_HASH]}"


def workload_name(job: Any, group: str) -> str:
    return owner_workload_name(job.kind, group, job.metadata.name, job.metadata.uid)


def queue_name(job: Any) -> str:
    return str(job.metadata.labels.get(QUEUE_NAME_LABEL) or "")


def workload_manifest(
    job: Any, shape: JobShape, priority_classes: Mapping[str, PriorityClass] | None = None
) -> Json:
    meta = job.metadata
    podsets: list[Json] = []
    priority_class = ""
    for name, count, template, minimum in shape.templates(job):
        podset: Json = {"name": name, "count": count, "template": copy.deepcopy(template)}
        if minimum is not None:
            podset["minCount"] = minimum
        podsets.append(podset)
        priority_class = priority_class or str(
            (template.get("spec") or {}).get("priorityClassName") or ""
        )
    priority_class = priority_class or shape.priority_class(job)
    spec: Json = {"queueName": queue_name(job), "podSets": podsets}
    workload_class = meta.labels.get(PRIORITY_CLASS_LABEL)
    if workload_class:
        spec.update(workload_priority(workload_class))
    else:
        spec.update(pod_priority(priority_class, priority_classes or {}))
    return {
        "apiVersion": KUEUE_API,
        "kind": "Workload",
        "metadata": {
            "name": workload_name(job, shape.group),
            "namespace": meta.namespace or "default",
            "labels": {JOB_UID_LABEL: meta.uid},
            "ownerReferences": [
                {
                    "apiVersion": job.apiVersion,
                    "kind": job.kind,
                    "name": meta.name,
                    "uid": meta.uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": spec,
    }


def workload_priority(name: str) -> Json:
    """The Workload's priority from the ``kueue.x-k8s.io/priority-class`` label: a reference
    to that WorkloadPriorityClass (v1beta2's ``priorityClassRef``)."""
    return {"priorityClassRef": _priority_class_ref(WORKLOAD_PRIORITY_CLASS, name)}


def pod_priority(name: str, classes: Mapping[str, PriorityClass]) -> Json:
    """``GetPriorityFromPriorityClass``: the named PriorityClass's value; with no name, the
    global default's (the one with the lowest value if several), else priority 0 and no
    class. A class not (yet) in the cache leaves the priority out: Kueue's webhook refuses
    such a Workload and the sync is retried, as upstream's fails on the class's NotFound."""
    if not name:
        defaults = sorted((c for c in classes.values() if c.globalDefault), key=lambda c: c.value)
        if not defaults:
            return {"priority": DEFAULT_PRIORITY}
        found: PriorityClass | None = defaults[0]
        name = defaults[0].metadata.name
    else:
        found = classes.get(name)
    out: Json = {"priorityClassRef": _priority_class_ref(POD_PRIORITY_CLASS, name)}
    if found is not None:
        out["priority"] = found.value
    return out


def _priority_class_ref(group_kind: tuple[str, str], name: str) -> Json:
    """``kueue.NewPriorityClassRef``."""
    return {"group": group_kind[0], "kind": group_kind[1], "name": name}


# -- pod set info: inject on start, restore on stop ----------------------------------------------


def _started_specs(
    job: Any, shape: JobShape, wl: Workload, flavors: Mapping[str, ResourceFlavor]
) -> list[Json]:
    """Each pod set's template spec with its assigned flavors' labels and tolerations."""
    assignments = (
        {a.name: a for a in wl.status.admission.podSetAssignments} if (wl.status.admission) else {}
    )
    specs: list[Json] = []
    for name, _, template, _ in shape.templates(job):
        spec = template.get("spec") or {}
        selector, tolerations = with_flavors(
            dict(spec.get("nodeSelector") or {}),
            list(spec.get("tolerations") or []),
            assignments.get(name),
            flavors,
        )
        specs.append({"nodeSelector": selector or None, "tolerations": tolerations or None})
    return specs


def with_flavors(
    selector: dict[str, str],
    tolerations: list[Json],
    assignment: PodSetAssignment | None,
    flavors: Mapping[str, ResourceFlavor],
) -> tuple[dict[str, str], list[Json]]:
    """A pod set's node selector and tolerations with its assigned flavors' node labels and
    tolerations merged in (``podset.Merge`` of ``FromAssignment``); updated in place."""
    for flavor_name in sorted(set(assignment.flavors.values()) if assignment else ()):
        flavor = flavors.get(flavor_name)
        if flavor is None:
            continue
        selector.update(flavor.spec.nodeLabels)
        for toleration in msgspec.to_builtins(flavor.spec.tolerations):
            if toleration not in tolerations:
                tolerations.append(toleration)
    return selector, tolerations


def _restored_specs(job: Any, shape: JobShape, wl: Workload) -> list[Json]:
    """The templates' nodeSelector and tolerations as the Workload recorded them (keys the
    start added are removed: ``None`` in a merge patch)."""
    originals = {ps.name: ps.template.get("spec") or {} for ps in wl.spec.podSets}
    specs: list[Json] = []
    for name, _, template, _ in shape.templates(job):
        original = originals.get(name, {})
        current = (template.get("spec") or {}).get("nodeSelector") or {}
        selector: Json = dict.fromkeys(current)
        selector.update(original.get("nodeSelector") or {})
        specs.append(
            {"nodeSelector": selector or None, "tolerations": original.get("tolerations") or None}
        )
    return specs


def _merge(*patches: Json) -> Json:
    out: Json = {}
    for patch in patches:
        for key, value in patch.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = _merge(out[key], value)
            else:
                out[key] = value
    return out


def _stop_job(actions: Actions, job: Any, shape: JobShape, key: str, restore: Json) -> None:
    """Kueue's ``Job.Stop`` for a batch/v1 Job: suspend, reset ``status.startTime`` (the API
    server keeps a started Job's pod template immutable: the scheduling directives may change
    only while it is suspended and not started), then restore the pod sets' node selectors and
    tolerations, in that order. Other kinds are suspended and restored in one patch."""

    def patch(body: Json, subresource: str = "") -> Patch:
        return Patch(
            kind=job.kind, api_version=job.apiVersion, key=key, patch=body, subresource=subresource
        )

    started = job.apiVersion == "batch/v1" and getattr(job.status, "startTime", None)
    if not started:
        actions.patch.append(patch(_merge(shape.suspend_patch(True), restore)))
        return
    actions.patch.append(patch(shape.suspend_patch(True)))
    actions.patch.append(patch({"status": {"startTime": None}}, "status"))
    if restore:
        actions.patch_after_create.append(patch(restore))


# -- the reconcile step ---------------------------------------------------------------------------


def reconcile(
    job: Any,
    workloads: list[Workload],
    flavors: Mapping[str, ResourceFlavor],
    *,
    active_pods: Sequence[Pod],
    now: float,
    priority_classes: Mapping[str, PriorityClass] | None = None,
) -> KueueStep | None:
    """Kueue's step for ``job`` (None: not a Kueue job); ``active_pods``: its pods still
    running; ``priority_classes``: the cluster's, by name (a new Workload's priority)."""
    shape = SHAPES.get((job.apiVersion, job.kind))
    if shape is None or (not queue_name(job) and not workloads):
        return None
    name = workload_name(job, shape.group)
    wl = next((w for w in workloads if w.metadata.name == name), None)
    actions = Actions()
    key = f"{job.metadata.namespace or 'default'}/{job.metadata.name}"
    # A gated kind is "suspended" while none of its pods runs.
    suspended = not active_pods if shape.gated else shape.suspended(job)

    def stop(wl: Workload | None, why: str | None) -> KueueStep:
        if shape.gated:
            for pod in active_pods:
                actions.delete_object("Pod", f"{pod.metadata.namespace}/{pod.metadata.name}")
        else:
            _stop_job(actions, job, shape, key, _restore(job, shape, wl) if wl is not None else {})
        if why is not None:
            actions.events.append(("Normal", "Stopped", why))
        return KueueStep(actions, run_job=False)

    message, success, finished = shape.finished(job)
    if finished:
        if wl is not None and not is_true(workload_conditions(wl), "Finished"):
            reason = "Succeeded" if success else "Failed"
            status_patch(actions, wl, [("Finished", "True", reason, message)], now)
            actions.events.append(
                (
                    "Normal",
                    "FinishedWorkload",
                    f"Workload '{workload_key(wl)}' is declared finished",
                )
            )
        return KueueStep(actions, run_job=True)
    if wl is None:
        manifest = workload_manifest(job, shape, priority_classes or {})
        actions.create.append(manifest)
        actions.events.append(
            ("Normal", "CreatedWorkload", f"Created Workload: {key.split('/')[0]}/{name}")
        )
        if not suspended:
            return stop(None, None)
        return KueueStep(actions, run_job=not shape.gated)
    conditions = workload_conditions(wl)
    evicted = next(
        (c for c in conditions if c.get("type") == "Evicted" and c.get("status") == "True"), None
    )
    if evicted is not None:
        if not suspended:
            return stop(wl, str(evicted.get("message") or ""))
        if wl.status.admission is not None and not active_pods:
            clear_admission(actions, wl, evicted, now)
        return KueueStep(actions, run_job=not shape.gated)
    admitted = is_true(conditions, "Admitted")
    if shape.gated and admitted:
        specs = _started_specs(job, shape, wl, flavors)
        names = [podset for podset, _, _, _ in shape.templates(job)]
        return KueueStep(actions, run_job=True, pod_specs=dict(zip(names, specs, strict=True)))
    if suspended:
        if admitted:
            specs = _started_specs(job, shape, wl, flavors)
            patch = _merge(
                shape.suspend_patch(False),
                shape.template_patch(job, specs),
                _partial_admission(job, shape, wl),
            )
            actions.patch.append(
                Patch(kind=job.kind, api_version=job.apiVersion, key=key, patch=patch)
            )
            queue = wl.status.admission.clusterQueue if wl.status.admission else ""
            actions.events.append(("Normal", "Started", f"Admitted by clusterQueue {queue}"))
            return KueueStep(actions, run_job=False)
        return KueueStep(actions, run_job=not shape.gated)
    if not admitted:
        return stop(wl, "Not admitted by cluster queue")
    return KueueStep(actions, run_job=True)


def clear_admission(actions: Actions, wl: Workload, evicted: Json, now: float) -> None:
    """An evicted Workload whose job no longer runs gives its quota back: ``Requeued`` (true
    when preempted or for node failures), ``QuotaReserved=False`` ``Pending``
    (``UnsetQuotaReservationWithCondition``) and its admission cleared."""
    reason, why = str(evicted.get("reason") or ""), str(evicted.get("message") or "")
    requeued = "True" if reason in ("Preempted", "NodeFailures") else "False"
    status_patch(
        actions,
        wl,
        [
            ("Requeued", requeued, reason, why),
            ("QuotaReserved", "False", "Pending", why),
            ("Admitted", "False", "NoReservation", "The workload has no reservation"),
        ],
        now,
        clear_admission=True,
    )


def _restore(job: Any, shape: JobShape, wl: Workload) -> Json:
    patch = shape.template_patch(job, _restored_specs(job, shape, wl))
    if shape is BATCH_JOB and MIN_PARALLELISM_ANNOTATION in job.metadata.annotations:
        patch = _merge(patch, {"spec": {"parallelism": wl.spec.podSets[0].count}})
    return patch


def _partial_admission(job: Any, shape: JobShape, wl: Workload) -> Json:
    """``RunWithPodSetsInfo``: a Job that accepts partial admission runs the admitted count."""
    if shape is not BATCH_JOB or MIN_PARALLELISM_ANNOTATION not in job.metadata.annotations:
        return {}
    if wl.status.admission is None or not wl.status.admission.podSetAssignments:
        return {}
    count = wl.status.admission.podSetAssignments[0].count
    if count is None:
        return {}
    spec: Json = {"parallelism": count}
    if job.metadata.annotations.get(COMPLETIONS_EQUAL_PARALLELISM_ANNOTATION) == "true":
        spec["completions"] = count
    return {"spec": spec}


def workload_conditions(wl: Workload) -> list[Json]:
    found: list[Json] = msgspec.to_builtins(wl.status.conditions)
    return found


def workload_key(wl: Workload) -> str:
    return f"{wl.metadata.namespace or 'default'}/{wl.metadata.name}"


def status_patch(
    actions: Actions,
    wl: Workload,
    changes: list[tuple[str, str, str, str]],
    now: float,
    *,
    clear_admission: bool = False,
) -> None:
    """A status write of the whole condition list (a merge patch replaces lists), guarded by
    the resourceVersion it was computed from."""
    current = workload_conditions(wl)
    conditions = [dict(c) for c in current]
    stamp = format_rfc3339(now)
    for kind, value, reason, message in changes:
        set_condition(conditions, kind, value, reason, message, stamp)
    if same_ignoring_time(current, conditions) and not clear_admission:
        return
    status: Json = {"conditions": conditions}
    if clear_admission:
        status["admission"] = None
    actions.patch.append(
        Patch(
            kind="Workload",
            api_version=KUEUE_API,
            key=workload_key(wl),
            patch={"metadata": {"resourceVersion": wl.metadata.resourceVersion}, "status": status},
            subresource="status",
        )
    )


def sync(
    job_reconcile: Callable[[Any, Observed, float], Actions],
    job: Any,
    observed: Observed,
    now: float,
) -> Actions:
    """One sync of ``job``: Kueue's step (for a Kueue job), then the kind's reconcile unless
    the step holds it back; what both decided, Kueue's first."""
    active = [
        pod
        for pod in observed.pods
        if pod.status.phase not in ("Succeeded", "Failed")
        and pod.metadata.deletionTimestamp is None
    ]
    step = None
    if observed.expectations_satisfied:  # a Workload creation in flight: wait for it
        step = reconcile(
            job,
            observed.workloads,
            observed.flavors,
            active_pods=active,
            now=now,
            priority_classes=observed.priority_classes,
        )
    if step is None:
        return job_reconcile(job, observed, now)
    if not step.run_job:
        return step.actions
    then = job_reconcile(job, observed, now)
    if step.pod_specs:
        _place_created_pods(then.create, step.pod_specs)
    return _combined(step.actions, then)


def _place_created_pods(created: list[Json], specs: Mapping[str, Json]) -> None:
    """A gated job's new pods get their pod set's flavors' node labels and tolerations
    (``podset.Merge`` on the pod instead of the template)."""
    for manifest in created:
        if manifest.get("kind") != "Pod":
            continue
        meta = manifest.get("metadata") or {}
        podset = (meta.get("annotations") or {}).get(TASK_SPEC_KEY)
        wanted = specs.get(podset) if podset is not None else None
        if not wanted:
            continue
        spec = manifest.setdefault("spec", {})
        if wanted.get("nodeSelector"):
            spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **wanted["nodeSelector"]}
        for toleration in wanted.get("tolerations") or []:
            tolerations = spec.setdefault("tolerations", [])
            if toleration not in tolerations:
                tolerations.append(toleration)


def _combined(first: Actions, then: Actions) -> Actions:
    if first.create and then.create_batches:
        then.create_batches = [len(first.create), *then.create_batches]
    then.create = [*first.create, *then.create]
    then.patch = [*first.patch, *then.patch]
    then.events = [*first.events, *then.events]
    return then
