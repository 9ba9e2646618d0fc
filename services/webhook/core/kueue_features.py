"""The Kueue feature gates its webhooks read (pkg/features/kube_features.go), with their
defaults on Kueue's master. Shoal runs with the defaults; a gate off or on changes what the
webhooks refuse exactly as in Kueue (upstream's tests run both ways, and so do Shoal's)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class KueueFeatures:
    # Beta since 0.5: a PodSet's minCount is kept (off: the Workload defaulter drops it).
    partial_admission: bool = True
    # Beta since 0.14: an admitted Workload's topology assignments may be set.
    topology_aware_scheduling: bool = True
    # Beta since 0.18: PodSets of an elastic Workload may scale down while admitted.
    elastic_jobs_via_workload_slices: bool = True
    # Beta since 0.19: the ``kueue.x-k8s.io/admission-gated-by`` annotation is checked.
    admission_gated_by: bool = True
    # Alpha (off): the ``kueue.x-k8s.io/priority-boost`` annotation is checked.
    priority_boost: bool = False
    # Alpha (off): a ClusterQueue update re-checks unchanged invalid ``onFlavors``.
    reject_updates_to_cq_with_invalid_on_flavors: bool = False
    # Alpha (off): a ClusterQueue's ``concurrentAdmissionPolicy`` is checked.
    concurrent_admission: bool = False
    # Beta since 0.20: a PodSet's requests and limits may not be negative.
    workload_validate_resources_are_non_negative: bool = True
    # Beta since 0.16: a pod suspended by its Kueue parent gets no Kueue finalizer.
    skip_finalizers_for_pods_suspended_by_parent: bool = True
    # Beta since 0.20: a PodSet's topology slice sizes are checked.
    tas_validate_workload_slice_size: bool = True
    # Beta since 0.20: a PodSet template's labels and annotations are checked.
    workload_validation_for_pod_set_metadata: bool = True


DEFAULT_FEATURES = KueueFeatures()
