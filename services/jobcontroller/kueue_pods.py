"""Kueue's ``pod`` integration (pkg/controller/jobs/pod) as a pure step: what one reconcile
of a plain pod or a pod group does (``kueue_pod_workloads`` says which Workload it has).

A pod Kueue's pod webhook took in (label ``kueue.x-k8s.io/managed=true``, the
``kueue.x-k8s.io/admission`` scheduling gate, the ``kueue.x-k8s.io/managed`` finalizer) runs
only while its Workload is admitted. Admitted, the gated pods are started: the gates removed
and the flavors' node labels and tolerations merged in (``prepare``). Evicted, or running while
not admitted, the pods are stopped: a ``TerminationTarget`` condition, then deleted. Finished
(the pod terminated, or the group's count succeeded), the Workload is declared finished and
the pods' finalizers go. In a group, failed pods beyond what the Workload still needs are
finalized, so a failed pod is replaced by creating a new one: it is gated and, the Workload
still admitted, started; pods beyond the total count are deleted, youngest first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec

from services.jobcontroller import kueue
from services.jobcontroller.core import Actions, Patch
from services.jobcontroller.kueue_pod_workloads import (
    DEFAULT_POD_SET,
    GROUP_SERVING_ANNOTATION,
    POD_FINALIZER,
    SCHEDULING_GATE,
    TOPOLOGY_GATE,
    WAITING_FOR_REPLACEMENT_PODS,
    ComposeError,
    active,
    finished,
    group_name,
    group_total_count,
    is_gated,
    is_managed,
    is_terminated,
    owner_reference,
    role_hash,
    runnable_or_succeeded,
    suspended,
    validate_group,
    workload_manifest,
    workload_name_for_pod,
)
from shared.kube.conditions import is_true
from shared.kube.keys import key_of
from shared.kube.timefmt import format_rfc3339, parse_rfc3339
from shared.models import Json, Pod, PriorityClass, ResourceFlavor, Workload

_KUEUE_GATES = (SCHEDULING_GATE, TOPOLOGY_GATE)
TERMINATION_TARGET = "TerminationTarget"
PODSET_LABEL = "kueue.x-k8s.io/podset"
LOCAL_QUEUE_LABEL = "kueue.x-k8s.io/local-queue-name"
CLUSTER_QUEUE_LABEL = "kueue.x-k8s.io/cluster-queue-name"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


# -- what to do to the pods -----------------------------------------------------------------------


def _finalize(actions: Actions, pods: Sequence[Pod]) -> None:
    """Remove Kueue's finalizer from each pod that has it (``removePodFinalizers``)."""
    for pod in pods:
        if POD_FINALIZER not in pod.metadata.finalizers:
            continue
        kept = [f for f in pod.metadata.finalizers if f != POD_FINALIZER]
        body: Json = {
            "metadata": {
                "finalizers": kept or None,
                "resourceVersion": pod.metadata.resourceVersion,
            }
        }
        actions.patch.append(Patch("Pod", key_of(pod), body))


def _stop(
    actions: Actions,
    pods: Sequence[Pod],
    reason: str,
    message: str,
    now: float,
    *,
    all_pods: bool = False,
) -> None:
    """``Stop``: each pod not terminating and not suspended (``all_pods``: the Workload is
    deleted, suspended ones too) gets ``TerminationTarget`` in its status and is deleted; an
    Event ``Stopped`` per pod stopped."""
    for pod in pods:
        if pod.metadata.deletionTimestamp is not None:
            continue
        if not all_pods and (is_gated(pod) or is_terminated(pod)):
            continue
        condition = {
            "type": TERMINATION_TARGET,
            "status": "True",
            "lastTransitionTime": format_rfc3339(now),
            "reason": reason,
            "message": message,
        }
        actions.patch.append(
            Patch(
                "Pod",
                key_of(pod),
                {"status": {"conditions": [condition]}},
                patch_type="strategic",
                subresource="status",
            )
        )
        actions.delete_object("Pod", key_of(pod))
        actions.events.append(("Normal", "Stopped", message))


def _start_patch(pod: Pod, wl: Workload, flavors: Mapping[str, ResourceFlavor], name: str) -> Json:
    """``prepare``: the gate removed, the pod set's flavors' labels and tolerations merged."""
    assignment = None
    if wl.status.admission is not None:
        assignment = next(
            (a for a in wl.status.admission.podSetAssignments if a.name == name), None
        )
    selector, tolerations = kueue.with_flavors(
        dict(pod.spec.nodeSelector), msgspec.to_builtins(pod.spec.tolerations), assignment, flavors
    )
    # The topology gate goes too: no pod set of Shoal's asks for a topology (``prepare``).
    kept = [g.name for g in pod.spec.schedulingGates if g.name not in _KUEUE_GATES]
    gates = [{"name": name} for name in kept]
    spec: Json = {"schedulingGates": gates or None}
    if selector:
        spec["nodeSelector"] = selector
    if tolerations:
        spec["tolerations"] = tolerations
    # ``getPodSetsInfoFromStatus``: TopologyAwareScheduling and AssignQueueLabelsForPods on.
    labels = {PODSET_LABEL: name, LOCAL_QUEUE_LABEL: wl.spec.queueName or ""}
    queue = wl.status.admission.clusterQueue if wl.status.admission is not None else ""
    if _DNS1123_LABEL.fullmatch(queue):
        labels[CLUSTER_QUEUE_LABEL] = queue
    metadata: Json = {
        "resourceVersion": pod.metadata.resourceVersion,
        "labels": labels,
        "annotations": {WORKLOAD_ANNOTATION: wl.metadata.name},
    }
    return {"metadata": metadata, "spec": spec}


@dataclass(frozen=True, slots=True)
class _Matched:
    """``FindMatchingWorkloads`` for a group: the pods kept, and those to finalize."""

    kept: list[Pod]
    replaced: list[Pod]
    excess: list[Pod]
    absent: int


def _match_group(pods: Sequence[Pod], wl: Workload, now: float) -> _Matched:
    """``FindMatchingWorkloads`` for a group: per pod set, the pods beyond its count (the
    youngest, gated first) are excess; the failed ones not needed to account for it are
    finalized (the longest inactive first); what is missing is ``absent``."""
    active_pods = [p for p in pods if runnable_or_succeeded(p)]
    inactive = [p for p in pods if not runnable_or_succeeded(p)]
    kept: list[Pod] = []
    replaced: list[Pod] = []
    excess: list[Pod] = []
    absent = 0
    for ps in wl.spec.podSets:
        role_active = [p for p in active_pods if role_hash(p) == ps.name]
        role_inactive = [p for p in inactive if role_hash(p) == ps.name]
        absent += max(0, ps.count - len(role_active))
        extra = len(role_active) - ps.count
        if extra > 0:
            role_active.sort(key=_active_order)
            excess += role_active[-extra:]
            kept += role_active[:-extra]
        else:
            kept += role_active
        finalizable = min(len(role_inactive), len(role_inactive) + len(role_active) - ps.count)
        if finalizable > 0:
            role_inactive.sort(key=lambda pod: _inactive_order(pod, now))
            replaced += role_inactive[-finalizable:]
            kept += role_inactive[:-finalizable]
        else:
            kept += role_inactive
    return _Matched(kept, replaced, excess, absent)


def _active_order(pod: Pod) -> tuple[bool, bool, str]:
    """``sortActivePods``: with the finalizer first, then not gated, then oldest."""
    return (
        POD_FINALIZER not in pod.metadata.finalizers,
        is_gated(pod),
        pod.metadata.creationTimestamp or "",
    )


def _inactive_order(pod: Pod, now: float) -> tuple[bool, float, str]:
    """``sortInactivePods``: with the finalizer first, then the most recently active, then
    oldest; the pods finalized first are the last ones."""
    return (
        POD_FINALIZER not in pod.metadata.finalizers,
        -_last_active(pod, now),
        pod.metadata.creationTimestamp or "",
    )


def _last_active(pod: Pod, now: float) -> float:
    """``lastActiveTime``: when its containers failed, or its deletion, whichever is first."""
    failed = now
    for condition in pod.status.conditions:
        if condition.type == "ContainersReady":
            if condition.status == "False" and condition.reason == "Failed":
                failed = parse_rfc3339(condition.lastTransitionTime) or now
            break
    deleted = parse_rfc3339(pod.metadata.deletionTimestamp)
    return min(failed, deleted if deleted is not None else now)


def _replacement_condition(wl: Workload, absent: int, now: float) -> Json | None:
    """``waitingForReplacementPodsCondition``: the whole new condition, or None to keep."""
    conditions = kueue.workload_conditions(wl)
    current = next((c for c in conditions if c.get("type") == WAITING_FOR_REPLACEMENT_PODS), None)
    if current is None and absent == 0:
        return None
    wanted = dict(current or {"type": WAITING_FOR_REPLACEMENT_PODS})
    if absent > 0:
        evicted = next(
            (c for c in conditions if c.get("type") == "Evicted" and c.get("status") == "True"),
            None,
        )
        if evicted is not None:
            wanted.update(reason=evicted.get("reason"), message=evicted.get("message"))
        elif wanted.get("status") != "True":
            wanted.update(reason="PodsFailed", message="Some Failed pods need replacement")
        wanted["status"] = "True"
    elif wanted.get("status") != "False":
        wanted.update(status="False", reason="PodsReady", message="No pods need replacement")
    if current is not None and all(wanted.get(k) == current.get(k) for k in wanted):
        return None
    wanted["lastTransitionTime"] = format_rfc3339(now)
    return wanted


@dataclass(frozen=True, slots=True)
class PodStep:
    """What Kueue's pod reconciler does in one sync of a pod or pod group."""

    actions: Actions
    workload_name: str = ""
    """The Workload this pod or group is reconciled against."""


def reconcile(
    pods: Sequence[Pod],
    workloads: Sequence[Workload],
    flavors: Mapping[str, ResourceFlavor],
    *,
    group: bool,
    now: float,
    priority_classes: Mapping[str, PriorityClass] | None = None,
) -> PodStep:
    """Kueue's pod reconciler (``ReconcileGenericJob`` for pods) over one pod (``group``
    False) or every pod of a group in a namespace; ``workloads``: those named as the job's
    Workload."""
    actions = Actions()
    if not pods:
        return PodStep(actions)
    first = pods[0]
    if not group and not is_managed(first):
        return PodStep(actions)  # ``Skip``
    if not group and first.metadata.deletionTimestamp is not None:
        _finalize(actions, pods)
        return PodStep(actions)
    meta = first.metadata
    name = group_name(first) if group else workload_name_for_pod(meta.name, meta.uid)
    if not kueue.queue_name(first):
        return PodStep(actions, name)
    if group:
        wl = next((w for w in workloads if w.metadata.name == name), None)
    else:
        owned = [w for w in workloads if _owned_by(w, first)]
        wl = next((w for w in owned if _matches_pod(w)), None)
        stale = [w for w in owned if w is not wl]
        if stale:
            return _replace_stale(actions, first, stale, now, name)
    live: Sequence[Pod] = pods
    if group and wl is not None:
        matched = _match_group(pods, wl, now)
        _own(actions, wl, matched.kept)
        _remove_excess(actions, matched.excess)
        _finalize(actions, matched.replaced)
        live = matched.kept
        condition = _replacement_condition(wl, matched.absent, now)
        if condition is not None:
            others = kueue.workload_conditions(wl)
            kept = [c for c in others if c.get("type") != condition["type"]]
            _status(actions, wl, {"conditions": [*kept, condition]})
            return PodStep(actions, name)
    if wl is None:
        if finished(live, group=group)[2]:
            _finalize(actions, live)
            return PodStep(actions, name)
        return _create(actions, live, group=group, name=name, now=now, classes=priority_classes)
    if not _ended(actions, wl, live, group=group, now=now):
        _run_or_stop(actions, wl, live, flavors, group=group, now=now)
    return PodStep(actions, name)


def _ended(actions: Actions, wl: Workload, pods: Sequence[Pod], *, group: bool, now: float) -> bool:
    """The Workload finished or deleted, or the pods finished: what is left to do to them
    (finalize, stop, declare the Workload finished); False when the job goes on."""
    if is_true(kueue.workload_conditions(wl), "Finished"):
        _finalize(actions, pods)
        actions.events.append(_finished_event(wl))
        return True
    if wl.metadata.deletionTimestamp is not None:
        _stop(actions, pods, "WorkloadDeleted", "Workload is deleted", now, all_pods=True)
        return True
    message, success, done = finished(pods, group=group)
    if not done:
        return False
    reason = "Succeeded" if success else "Failed"
    kueue.status_patch(actions, wl, [("Finished", "True", reason, message)], now)
    actions.events.append(_finished_event(wl))
    _finalize(actions, pods)
    return True


def _finished_event(wl: Workload) -> tuple[str, str, str]:
    return (
        "Normal",
        "FinishedWorkload",
        f"Workload '{kueue.workload_key(wl)}' is declared finished",
    )


def _run_or_stop(
    actions: Actions,
    wl: Workload,
    pods: Sequence[Pod],
    flavors: Mapping[str, ResourceFlavor],
    *,
    group: bool,
    now: float,
) -> None:
    """A live job with its Workload: the reclaimable pods recorded, then stopped when evicted
    (the admission cleared once no pod runs), started when admitted, stopped when running
    without admission."""
    first = pods[0] if pods else None
    serving = first is not None and first.metadata.annotations.get(GROUP_SERVING_ANNOTATION)
    if group and serving != "true":
        reclaimable = _reclaimable(pods)
        if reclaimable != {r.name: r.count for r in wl.status.reclaimablePods}:
            listed = [{"name": role, "count": count} for role, count in reclaimable.items()]
            _status(actions, wl, {"reclaimablePods": listed or None})
            return
    conditions = kueue.workload_conditions(wl)
    evicted = next(
        (c for c in conditions if c.get("type") == "Evicted" and c.get("status") == "True"), None
    )
    if evicted is not None:
        why = str(evicted.get("message") or "")
        _stop(actions, pods, f"WorkloadEvictedDueTo{evicted.get('reason') or ''}", why, now)
        if wl.status.admission is not None and not active(pods, now):
            kueue.clear_admission(actions, wl, evicted, now)
        return
    admitted = is_true(conditions, "Admitted")
    if suspended(pods):
        if admitted:
            _start(actions, wl, pods, flavors, group=group)
        return
    if not admitted:
        _stop(actions, pods, "NotAdmitted", "Not admitted by cluster queue", now)


def _start(
    actions: Actions,
    wl: Workload,
    pods: Sequence[Pod],
    flavors: Mapping[str, ResourceFlavor],
    *,
    group: bool,
) -> None:
    """``Run``: each gated pod started with its pod set's info (Event ``Started``)."""
    queue = wl.status.admission.clusterQueue if wl.status.admission else ""
    for pod in pods:
        if not is_gated(pod):
            continue
        podset = role_hash(pod) if group else DEFAULT_POD_SET
        actions.patch.append(Patch("Pod", key_of(pod), _start_patch(pod, wl, flavors, podset)))
        actions.events.append(("Normal", "Started", f"Admitted by clusterQueue {queue}"))


def _remove_excess(actions: Actions, pods: Sequence[Pod]) -> None:
    """``removeExcessPods``: finalized, and deleted unless already being deleted."""
    _finalize(actions, pods)
    for pod in pods:
        if pod.metadata.deletionTimestamp is None:
            actions.delete_object("Pod", key_of(pod))
            actions.events.append(("Normal", "ExcessPodDeleted", "Excess pod deleted"))


def _own(actions: Actions, wl: Workload, pods: Sequence[Pod]) -> None:
    """``EnsureWorkloadOwnedByAllMembers``: every pod of the group owns its Workload (a
    replacement pod is added; the Event is the Workload's, posted here on the group's pod)."""
    owners: list[Json] = [msgspec.to_builtins(ref) for ref in wl.metadata.ownerReferences]
    known = {(o.get("kind"), o.get("name")) for o in owners}
    added = [
        owner_reference(pod, controller=False)
        for pod in pods
        if ("Pod", pod.metadata.name) not in known
    ]
    if not added:
        return
    body = {
        "metadata": {
            "resourceVersion": wl.metadata.resourceVersion,
            "ownerReferences": [*owners, *added],
        }
    }
    actions.patch.append(
        Patch("Workload", kueue.workload_key(wl), body, api_version=kueue.KUEUE_API)
    )
    actions.events.append(
        ("Normal", "OwnerReferencesAdded", f"Added {len(added)} owner reference(s)")
    )


def _reclaimable(pods: Sequence[Pod]) -> dict[str, int]:
    """``ReclaimablePods`` of a group: its succeeded pods per role (their quota is freed)."""
    found: dict[str, int] = {}
    for pod in pods:
        if pod.status.phase == "Succeeded":
            role = role_hash(pod)
            found[role] = found.get(role, 0) + 1
    return found


def _owned_by(wl: Workload, pod: Pod) -> bool:
    return any(ref.uid == pod.metadata.uid for ref in wl.metadata.ownerReferences)


def _matches_pod(wl: Workload) -> bool:
    """``EquivalentToWorkload`` for a single pod: one pod set ``main`` of one."""
    return [(ps.name, ps.count) for ps in wl.spec.podSets] == [(DEFAULT_POD_SET, 1)]


def _replace_stale(
    actions: Actions, pod: Pod, stale: Sequence[Workload], now: float, name: str
) -> PodStep:
    """``ensureOneWorkload``: a Workload of the pod that does not match it is deleted, the
    pod stopped first (a new Workload is made by a later sync)."""
    if not finished([pod], group=False)[2]:
        message = "No matching Workload; restoring pod templates according to existent Workload"
        _stop(actions, [pod], "NoMatchingWorkload", message, now)
    for wl in stale:
        actions.delete_object("Workload", kueue.workload_key(wl))
        actions.events.append(
            (
                "Normal",
                "DeletedWorkload",
                f"Deleted not matching Workload: {kueue.workload_key(wl)}",
            )
        )
    return PodStep(actions, name)


def _create(
    actions: Actions,
    pods: Sequence[Pod],
    *,
    group: bool,
    name: str,
    now: float,
    classes: Mapping[str, PriorityClass] | None,
) -> PodStep:
    """``handleJobWithNoWorkload`` for pods: a group first finalizes its failed pods, is
    checked, and loses its youngest pods beyond the total count; a compose error is a Warning
    Event (``ErrWorkloadCompose``) and no Workload."""
    first = pods[0]
    if group:
        _finalize(actions, [p for p in pods if not runnable_or_succeeded(p)])
    try:
        members = list(pods)  # the group's Workload is owned by its failed pods too
        if group:
            validate_group(pods)
            runnable = sorted((p for p in pods if runnable_or_succeeded(p)), key=_active_order)
            excess = len(runnable) - group_total_count(first)
            if excess > 0:
                _remove_excess(actions, runnable[-excess:])
                members = runnable[:-excess]
        manifest = workload_manifest(members, group=group, priority_classes=classes)
    except ComposeError as exc:
        actions.events.append(("Warning", "ErrWorkloadCompose", str(exc)))
        return PodStep(actions, name)
    actions.create.append(manifest)
    namespace = first.metadata.namespace or "default"
    actions.events.append(("Normal", "CreatedWorkload", f"Created Workload: {namespace}/{name}"))
    if not suspended(pods):
        _stop(actions, pods, "NotAdmitted", "Not admitted by cluster queue", now)
    return PodStep(actions, name)


def _status(actions: Actions, wl: Workload, status: Json) -> None:
    actions.patch.append(
        Patch(
            kind="Workload",
            api_version=kueue.KUEUE_API,
            key=kueue.workload_key(wl),
            patch={"metadata": {"resourceVersion": wl.metadata.resourceVersion}, "status": status},
            subresource="status",
        )
    )
