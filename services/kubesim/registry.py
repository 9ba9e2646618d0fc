"""The resource types kubesim serves: one row per (group, version, plural).

Built-in kinds are one line each in ``BUILTINS``; custom resources come from the CRDs Shoal ships
(``definitions``), one row per served version. The registry refuses duplicates and answers the
lookups the HTTP layer and discovery need, including each resource's storage version (objects
are stored once, in that version, and converted on the way in and out).
"""

from __future__ import annotations

from collections.abc import Iterable

from services.kubesim.definitions import custom_resources
from services.kubesim.resourcetype import ResourceType as ResourceType


def _r(
    group: str,
    version: str,
    kind: str,
    plural: str,
    namespaced: bool,
    subresources: tuple[str, ...] = (),
    short_names: tuple[str, ...] = (),
    *,
    builtin: bool = True,
    create_only: bool = False,
    default_propagation: str = "Background",
) -> ResourceType:
    return ResourceType(
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        namespaced=namespaced,
        subresources=subresources,
        short_names=short_names,
        singular=kind.lower(),
        builtin=builtin,
        create_only=create_only,
        default_propagation=default_propagation,
    )


# group, version, kind, plural, namespaced, subresources, short names
BUILTINS: tuple[ResourceType, ...] = (
    _r("", "v1", "Pod", "pods", True, ("status", "binding", "eviction", "log"), ("po",)),
    _r("", "v1", "Node", "nodes", False, ("status",), ("no",)),
    _r("", "v1", "Service", "services", True, ("status",), ("svc",)),
    _r("", "v1", "Event", "events", True, (), ("ev",)),
    _r("", "v1", "Namespace", "namespaces", False, ("status", "finalize"), ("ns",)),
    _r("", "v1", "ConfigMap", "configmaps", True, (), ("cm",)),
    _r("", "v1", "Secret", "secrets", True, (), ()),
    _r("", "v1", "Binding", "bindings", True, create_only=True),
    _r("coordination.k8s.io", "v1", "Lease", "leases", True),
    _r("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", False, (), ("pc",)),
    _r("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True, (), ("netpol",)),
    _r("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", True, ("status",), ("pdb",)),
    _r("batch", "v1", "Job", "jobs", True, ("status",), default_propagation="Orphan"),
    _r("batch", "v1", "CronJob", "cronjobs", True, ("status",), ("cj",)),
    # Stored as they are (kubesim calls Shoal's webhook in-process and serves the CRDs it ships):
    # what a webhook's certificate manager patches its caBundle into, and the HyperNode
    # ValidatingAdmissionPolicy deploy/ installs (kubesim plays its rules in-process).
    _r("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
       "mutatingwebhookconfigurations", False),
    _r("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
       "validatingwebhookconfigurations", False),
    _r("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy",
       "validatingadmissionpolicies", False, ("status",)),
    _r("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding",
       "validatingadmissionpolicybindings", False),
    _r("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
       False, ("status",), ("crd", "crds")),
)  # fmt: skip


class Registry:
    """Lookups over a table of resource types; duplicates are an error, not an overwrite."""

    def __init__(self, resources: Iterable[ResourceType] | None = None) -> None:
        if resources is None:
            resources = (*BUILTINS, *custom_resources())
        self._by_path: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for rtype in resources:
            path = (rtype.group, rtype.version, rtype.plural)
            if path in self._by_path:
                raise ValueError(f"duplicate resource {rtype.plural} in {rtype.api_version}")
            self._by_path[path] = rtype
            if not rtype.create_only:
                self._by_kind[(rtype.api_version, rtype.kind)] = rtype

    def all(self) -> tuple[ResourceType, ...]:
        return tuple(self._by_path.values())

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

    def storage(self, rtype: ResourceType) -> ResourceType:
        """The row of the version ``rtype``'s objects are stored in."""
        if rtype.stored_as == rtype.version:
            return rtype
        stored = self._by_path.get((rtype.group, rtype.stored_as, rtype.plural))
        if stored is None:
            raise ValueError(f"{rtype.key} has no storage version {rtype.stored_as}")
        return stored

    def stored(self) -> tuple[ResourceType, ...]:
        """One row per resource: the storage version's."""
        return tuple(r for r in self._by_path.values() if r.stored_as == r.version)

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        return self._by_kind.get((api_version, kind))

    def group_versions(self) -> dict[str, list[str]]:
        """Group → its versions, in table order; the core group is ``""``."""
        out: dict[str, list[str]] = {}
        for rtype in self._by_path.values():
            versions = out.setdefault(rtype.group, [])
            if rtype.version not in versions:
                versions.append(rtype.version)
        return out

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        return [r for r in self._by_path.values() if (r.group, r.version) == (group, version)]
