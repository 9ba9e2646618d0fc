"""Kueue's pod webhook's ``Default`` (pkg/controller/jobs/pod/pod_webhook.go) on CREATE, with
Kueue's default Configuration: ``manageJobsWithoutQueueName: false`` and the
``managedJobsNamespaceSelector`` that leaves out kube-system and kueue-system, the
TopologyAwareScheduling and SkipFinalizersForPodsSuspendedByParent gates on.

A pod with a queue name (given, or the namespace's ``default`` LocalQueue), or one a Kueue
parent suspends (``kueue.x-k8s.io/pod-suspending-parent``), is taken in: labelled
``kueue.x-k8s.io/managed=true``, given the ``kueue.x-k8s.io/managed`` finalizer (not when a
parent suspends it), held by the ``kueue.x-k8s.io/admission`` and ``kueue.x-k8s.io/topology``
scheduling gates, and annotated with its role hash. A pod whose controller is a job kind Kueue
manages is left to that job's Workload (``FindAncestorJobManagedByKueue``; Shoal judges the
kind from the owner reference without reading the owner).

Every pod created passes here: one that Kueue leaves alone is answered without a copy.
"""

from __future__ import annotations

import copy
from typing import Any

from services.webhook.core import jsonpatch
from services.webhook.core.kueue_features import DEFAULT_FEATURES, KueueFeatures
from services.webhook.core.kueue_jobs import (
    KUEUE_DEFAULT_LOCAL_QUEUE,
    KUEUE_JOB_KINDS,
    KUEUE_QUEUE_LABEL,
    KUEUE_UNMANAGED_NAMESPACES,
)
from services.webhook.core.queues import ClusterView
from shared.kube.rolehash import role_hash

Obj = dict[str, Any]
Operation = dict[str, Any]
WEBHOOK = "mpod.kb.io"
MANAGED_LABEL = "kueue.x-k8s.io/managed"
POD_FINALIZER = MANAGED_LABEL
SCHEDULING_GATE = "kueue.x-k8s.io/admission"
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"
SUSPENDED_BY_PARENT_ANNOTATION = "kueue.x-k8s.io/pod-suspending-parent"
ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"
POD_INDEX_LABEL_ANNOTATION = "kueue.x-k8s.io/pod-group-pod-index-label"
POD_INDEX_LABEL = "kueue.x-k8s.io/pod-group-pod-index"


def _owned_by_kueue_job(meta: Obj) -> bool:
    return any(
        isinstance(o, dict)
        and o.get("controller")
        and (o.get("apiVersion"), o.get("kind")) in KUEUE_JOB_KINDS
        for o in meta.get("ownerReferences") or ()
    )


def _queue_name(pod: Obj, cluster: ClusterView) -> str:
    """The pod's queue name, or the namespace's default LocalQueue's; "" when Kueue leaves
    the pod alone (its namespace is not managed, or its controller is a Kueue job)."""
    meta = pod.get("metadata") or {}
    namespace = str(meta.get("namespace") or "")
    if namespace in KUEUE_UNMANAGED_NAMESPACES or _owned_by_kueue_job(meta):
        return ""
    given = str((meta.get("labels") or {}).get(KUEUE_QUEUE_LABEL) or "")
    if given:
        return given
    return KUEUE_DEFAULT_LOCAL_QUEUE if cluster.default_local_queue_exists(namespace) else ""


def default_pod(
    pod: Obj, cluster: ClusterView, features: KueueFeatures = DEFAULT_FEATURES
) -> list[Operation]:
    """``PodWebhook.Default``, as the JSON Patch of what it changes."""
    meta = pod.get("metadata") or {}
    by_parent = SUSPENDED_BY_PARENT_ANNOTATION in (meta.get("annotations") or {})
    queue = "" if by_parent else _queue_name(pod, cluster)
    if not by_parent and not queue:
        return []
    mutated = copy.deepcopy(pod)
    meta = mutated.setdefault("metadata", {})
    spec = mutated.setdefault("spec", {})
    if not by_parent:
        labels = meta.get("labels") or {}
        meta["labels"] = {**labels, KUEUE_QUEUE_LABEL: queue, MANAGED_LABEL: "true"}
    if not by_parent or not features.skip_finalizers_for_pods_suspended_by_parent:
        finalizers = list(meta.get("finalizers") or [])
        if POD_FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, POD_FINALIZER]
    gates = list(spec.get("schedulingGates") or [])
    tas = features.topology_aware_scheduling
    for gate in (SCHEDULING_GATE, TOPOLOGY_GATE) if tas else (SCHEDULING_GATE,):
        if not any(g.get("name") == gate for g in gates):
            gates.append({"name": gate})
    spec["schedulingGates"] = gates
    annotations = dict(meta.get("annotations") or {})
    index_label = annotations.get(POD_INDEX_LABEL_ANNOTATION)
    if tas and index_label is not None:
        labels = meta.get("labels") or {}
        meta["labels"] = {**labels, POD_INDEX_LABEL: labels.get(index_label, "")}
    annotations.setdefault(ROLE_HASH_ANNOTATION, role_hash(pod.get("spec") or {}))
    meta["annotations"] = annotations
    return jsonpatch.diff(pod, mutated)
