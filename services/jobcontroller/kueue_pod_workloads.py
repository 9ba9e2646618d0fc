"""What Workload Kueue's ``pod`` integration gives a plain pod or a pod group
(pkg/controller/jobs/pod): its name, pod sets and owners, and the pods' state as Kueue reads it
(finished, suspended, active).

A single pod's Workload is ``pod-<name>-<hash>`` (``GetWorkloadNameForPod``), owned by the pod,
one pod set ``main`` of one. A group's (``kueue.x-k8s.io/pod-group-name``, of
``kueue.x-k8s.io/pod-group-total-count`` pods) is named as the group, owned by every pod, one
pod set per role (the hash of the pods' shape, ``getRoleHash``); with fast admission one pod
set of the total count, made as soon as one pod exists, else once the total count of runnable
pods exists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.jobcontroller import kueue
from shared.kube.rolehash import role_hash as spec_role_hash
from shared.kube.timefmt import parse_rfc3339
from shared.models import Json, Pod, PriorityClass, to_dict

SCHEDULING_GATE = "kueue.x-k8s.io/admission"
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"
MANAGED_LABEL = "kueue.x-k8s.io/managed"
MANAGED_VALUE = "true"
POD_FINALIZER = MANAGED_LABEL  # podconstants.PodFinalizer
GROUP_NAME_LABEL = "kueue.x-k8s.io/pod-group-name"
GROUP_TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
GROUP_FAST_ADMISSION_ANNOTATION = "kueue.x-k8s.io/pod-group-fast-admission"
GROUP_SERVING_ANNOTATION = "kueue.x-k8s.io/pod-group-serving"
ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"
RETRIABLE_IN_GROUP_ANNOTATION = "kueue.x-k8s.io/retriable-in-group"
IS_GROUP_WORKLOAD_ANNOTATION = "kueue.x-k8s.io/is-group-workload"
SUSPENDED_BY_PARENT_ANNOTATION = "kueue.x-k8s.io/pod-suspending-parent"
POD_GROUP_POD_INDEX_LABEL = "kueue.x-k8s.io/pod-group-pod-index"
PROV_REQ_ANNOTATION_PREFIX = "provreq.kueue.x-k8s.io/"
WAITING_FOR_REPLACEMENT_PODS = "WaitingForReplacementPods"
DEFAULT_POD_SET = "main"
MAX_ROLES = 8
_TERMINATED = ("Succeeded", "Failed")


class ComposeError(Exception):
    """``UnretryableError`` while composing a group's Workload: the message is its Event's."""


# -- names and shapes ----------------------------------------------------------------------------


def workload_name_for_pod(name: str, uid: str) -> str:
    """``GetWorkloadNameForPod``."""
    return kueue.owner_workload_name("Pod", "", name, uid)


def group_name(pod: Pod) -> str:
    return pod.metadata.labels.get(GROUP_NAME_LABEL, "")


def is_managed(pod: Pod) -> bool:
    """What ``Skip`` lets through: the webhook's label."""
    return pod.metadata.labels.get(MANAGED_LABEL) == MANAGED_VALUE


def is_kueue_pod(pod: Pod) -> bool:
    """A pod Kueue's pod integration reconciles: labelled managed, or still holding Kueue's
    finalizer (which only its reconcile removes)."""
    return is_managed(pod) or POD_FINALIZER in pod.metadata.finalizers


def is_gated(pod: Pod) -> bool:
    return any(g.name == SCHEDULING_GATE for g in pod.spec.schedulingGates)


def is_terminated(pod: Pod) -> bool:
    return pod.status.phase in _TERMINATED


def role_hash(pod: Pod) -> str:
    """``getRoleHash``: the ``kueue.x-k8s.io/role-hash`` annotation (the webhook's), else
    the hash of the pod's spec."""
    given = pod.metadata.annotations.get(ROLE_HASH_ANNOTATION)
    return given if given is not None else spec_role_hash(to_dict(pod.spec))


def group_total_count(pod: Pod) -> int:
    """``groupTotalCount``; raises ``ComposeError`` with upstream's message."""
    if not group_name(pod):
        raise ComposeError(f"pod doesn't have a '{GROUP_NAME_LABEL}' label")
    text = pod.metadata.annotations.get(GROUP_TOTAL_COUNT_ANNOTATION)
    if text is None:
        raise ComposeError(f"failed to extract '{GROUP_TOTAL_COUNT_ANNOTATION}' annotation")
    try:
        count = int(text)
    except ValueError as exc:
        raise ComposeError(f'strconv.Atoi: parsing "{text}": invalid syntax') from exc
    if count < 1:
        raise ComposeError(
            f"incorrect annotation value '{GROUP_TOTAL_COUNT_ANNOTATION}={text}': "
            "group total count should be greater than zero"
        )
    return count


def runnable_or_succeeded(pod: Pod) -> bool:
    """``isPodRunnableOrSucceeded``."""
    if pod.metadata.deletionTimestamp is not None and not pod.spec.nodeName:
        return False
    return pod.status.phase != "Failed"


def _pod_set(pod: Pod, name: str, count: int) -> Json:
    return {
        "name": name,
        "count": count,
        "template": {"spec": to_dict(pod.spec)},
        # TopologyAwareScheduling is on by default: a pod's pod set names its index label.
        "topologyRequest": {"podIndexLabel": POD_GROUP_POD_INDEX_LABEL},
    }


def pod_sets(pods: Sequence[Pod], *, group: bool) -> list[Json]:
    """``PodSets``: a single pod's ``main`` of one; a group's one per role, sorted by name
    (with fast admission, the first runnable pod's role for the total count)."""
    if not group:
        return [_pod_set(pods[0], DEFAULT_POD_SET, 1)]
    runnable = [p for p in pods if runnable_or_succeeded(p)]
    if GROUP_FAST_ADMISSION_ANNOTATION in pods[0].metadata.annotations:
        if not runnable:
            raise ComposeError("failed to find a runnable pod in the group")
        return [_pod_set(runnable[0], role_hash(runnable[0]), group_total_count(pods[0]))]
    found: dict[str, Json] = {}
    for pod in runnable:
        role = role_hash(pod)
        if role in found:
            found[role]["count"] += 1
        else:
            found[role] = _pod_set(pod, role, 1)
    return [found[name] for name in sorted(found)]


def owner_reference(pod: Pod, *, controller: bool) -> Json:
    ref: Json = {"apiVersion": "v1", "kind": "Pod", "name": pod.metadata.name}
    ref["uid"] = pod.metadata.uid
    if controller:
        ref.update(controller=True, blockOwnerDeletion=True)
    return ref


def workload_manifest(
    pods: Sequence[Pod],
    *,
    group: bool,
    priority_classes: Mapping[str, PriorityClass] | None = None,
) -> Json:
    """``ConstructComposableWorkload`` for pods already checked (``validate_group``)."""
    first = pods[0]
    sets = pod_sets(pods, group=group)
    if len(sets) > MAX_ROLES:
        raise ComposeError("pod group can't include more than 8 roles")
    annotations = {
        k: v
        for k, v in first.metadata.annotations.items()
        if k.startswith(PROV_REQ_ANNOTATION_PREFIX)
    }
    metadata: Json = {"namespace": first.metadata.namespace or "default"}
    if group:
        metadata["name"] = group_name(first)
        annotations[IS_GROUP_WORKLOAD_ANNOTATION] = "true"
        metadata["ownerReferences"] = [owner_reference(p, controller=False) for p in pods]
    else:
        metadata["name"] = workload_name_for_pod(first.metadata.name, first.metadata.uid)
        metadata["labels"] = {kueue.JOB_UID_LABEL: first.metadata.uid}
        metadata["ownerReferences"] = [owner_reference(first, controller=True)]
    if annotations:
        metadata["annotations"] = annotations
    spec: Json = {"queueName": kueue.queue_name(first), "podSets": sets}
    workload_class = first.metadata.labels.get(kueue.PRIORITY_CLASS_LABEL)
    if workload_class:
        spec.update(kueue.workload_priority(workload_class))
    else:
        spec.update(kueue.pod_priority(first.spec.priorityClassName or "", priority_classes or {}))
    return {"apiVersion": kueue.KUEUE_API, "kind": "Workload", "metadata": metadata, "spec": spec}


def validate_group(pods: Sequence[Pod]) -> None:
    """``validatePodGroupMetadata``: enough runnable pods (unless fast admission), one queue
    and one total count across the group's live pods."""
    first = pods[0]
    total = group_total_count(first)
    active = [p for p in pods if runnable_or_succeeded(p)]
    fast = GROUP_FAST_ADMISSION_ANNOTATION in first.metadata.annotations
    if not fast and len(active) < total:
        raise ComposeError(f"'{group_name(first)}' group has fewer runnable pods than expected")
    queue = kueue.queue_name(first)
    for pod in pods:
        if pod.status.phase == "Failed":
            continue
        if kueue.queue_name(pod) != queue:
            raise ComposeError(
                f"pods '{first.metadata.name}' and '{pod.metadata.name}' has different queue "
                f"names: {queue}!={kueue.queue_name(pod)}"
            )
        count = pod.metadata.annotations.get(GROUP_TOTAL_COUNT_ANNOTATION, "")
        if count.strip().lstrip("-").isdigit() and int(count) != total:
            raise ComposeError(
                f"pods '{first.metadata.name}' and '{pod.metadata.name}' has different "
                f"'{GROUP_TOTAL_COUNT_ANNOTATION}' values: {total}!={int(count)}"
            )


# -- the state of the pods ------------------------------------------------------------------------


def finished(pods: Sequence[Pod], *, group: bool) -> tuple[str, bool, bool]:
    """``Finished``: (message, success, finished)."""
    if not group:
        pod = pods[0]
        if is_terminated(pod):
            return pod.status.message or "", pod.status.phase == "Succeeded", True
        return "", True, False
    if pods[0].metadata.annotations.get(GROUP_SERVING_ANNOTATION) == "true":
        return "", True, False
    try:
        total = group_total_count(pods[0])
    except ComposeError:
        return "failed to check if pod group is finished", True, False
    succeeded = sum(1 for p in pods if p.status.phase == "Succeeded")
    active = any(not is_terminated(p) for p in pods)
    unretriable = any(
        p.metadata.annotations.get(RETRIABLE_IN_GROUP_ANNOTATION) == "false" for p in pods
    )
    if succeeded == total or (not active and unretriable):
        return f"Pods succeeded: {succeeded}/{total}.", True, True
    return "", True, False


def suspended(pods: Sequence[Pod]) -> bool:
    """``IsSuspended``: some pod is gated or terminated."""
    return any(is_gated(p) or is_terminated(p) for p in pods)


def active(pods: Sequence[Pod], now: float) -> bool:
    """``IsActive`` (FastQuotaReleaseInPodIntegration off): some pod runs, unless it is being
    deleted and its grace period is over."""
    for pod in pods:
        if pod.status.phase != "Running":
            continue
        deleted = parse_rfc3339(pod.metadata.deletionTimestamp)
        grace = pod.metadata.deletionGracePeriodSeconds
        if deleted is not None and grace is not None and now > deleted + grace:
            continue
        return True
    return False
