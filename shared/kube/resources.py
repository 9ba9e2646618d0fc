"""The API resources Shoal talks to: (apiVersion, kind) → group, version, plural, scope."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec


class ResourceType(msgspec.Struct, frozen=True, kw_only=True):
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def collection_path(self, namespace: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            return f"{base}/namespaces/{namespace}/{self.plural}"
        return f"{base}/{self.plural}"

    def object_path(self, name: str, namespace: str | None = None, subresource: str = "") -> str:
        path = f"{self.collection_path(namespace)}/{name}"
        return f"{path}/{subresource}" if subresource else path


def _rt(group: str, version: str, kind: str, plural: str, namespaced: bool = True) -> ResourceType:
    return ResourceType(
        group=group, version=version, kind=kind, plural=plural, namespaced=namespaced
    )


_ALL = (
    _rt("", "v1", "Pod", "pods"),
    _rt("", "v1", "Node", "nodes", namespaced=False),
    _rt("", "v1", "Service", "services"),
    _rt("", "v1", "Event", "events"),
    _rt("", "v1", "ConfigMap", "configmaps"),
    _rt("", "v1", "Secret", "secrets"),
    _rt("", "v1", "Namespace", "namespaces", namespaced=False),
    _rt("", "v1", "ServiceAccount", "serviceaccounts"),
    _rt("coordination.k8s.io", "v1", "Lease", "leases"),
    _rt("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", namespaced=False),
    _rt("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies"),
    _rt("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets"),
    _rt("batch", "v1", "Job", "jobs"),
    _rt("batch", "v1", "CronJob", "cronjobs"),
    _rt("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups"),
    _rt("scheduling.volcano.sh", "v1beta1", "Queue", "queues", namespaced=False),
    _rt("batch.volcano.sh", "v1alpha1", "Job", "jobs"),
    _rt("bus.volcano.sh", "v1alpha1", "Command", "commands"),
    _rt("topology.volcano.sh", "v1alpha1", "HyperNode", "hypernodes", namespaced=False),
    _rt("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs"),
    # Kueue's kinds in both served versions: the services speak v1beta2 (the CRDs' storage
    # version, so nothing they read or write goes through the conversion webhook); v1beta1 is
    # for the tools that act as a user who still writes it.
    *(
        rt
        for version in ("v1beta1", "v1beta2")
        for rt in (
            _rt("kueue.x-k8s.io", version, "ResourceFlavor", "resourceflavors", namespaced=False),
            _rt("kueue.x-k8s.io", version, "ClusterQueue", "clusterqueues", namespaced=False),
            _rt("kueue.x-k8s.io", version, "LocalQueue", "localqueues"),
            _rt("kueue.x-k8s.io", version, "Workload", "workloads"),
            _rt("kueue.x-k8s.io", version, "Cohort", "cohorts", namespaced=False),
        )
    ),
    # What an install applies: CRDs, RBAC and the webhook's registrations.
    _rt(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        namespaced=False,
    ),
    _rt("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", namespaced=False),
    _rt(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        namespaced=False,
    ),
    _rt("rbac.authorization.k8s.io", "v1", "Role", "roles"),
    _rt("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
    _rt(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        namespaced=False,
    ),
    _rt(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        namespaced=False,
    ),
    _rt(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        namespaced=False,
    ),
    _rt(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        namespaced=False,
    ),
)

RESOURCES: Mapping[tuple[str, str], ResourceType] = {(r.api_version, r.kind): r for r in _ALL}

POD = RESOURCES[("v1", "Pod")]
NODE = RESOURCES[("v1", "Node")]
EVENT = RESOURCES[("v1", "Event")]
PODGROUP = RESOURCES[("scheduling.volcano.sh/v1beta1", "PodGroup")]


def resource_for(api_version: str, kind: str) -> ResourceType:
    try:
        return RESOURCES[(api_version, kind)]
    except KeyError:
        raise KeyError(f"Shoal does not know the resource {api_version}/{kind}") from None
