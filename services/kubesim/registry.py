"""The table of resource types kubesim serves: one row per (group, version, plural).

Adding a resource is one line in ``RESOURCES``. The registry is built from that table, refuses
duplicates, and answers the lookups the HTTP layer and discovery need.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

_ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, kw_only=True)
class ResourceType:
    """One REST resource as the API server describes it in discovery."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    subresources: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    # Custom resources (CRDs) refuse strategic merge patch, as the real API server does.
    builtin: bool = True
    # Only create is served (the legacy ``bindings`` resource).
    create_only: bool = False
    # The propagation policy used when a DELETE names none (batch/v1 Job orphans, for history).
    default_propagation: str = "Background"
    categories: tuple[str, ...] = ()
    singular: str = field(default="")

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """Stable identity used for stores and watch hubs: ``plural.group``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def has_status(self) -> bool:
        return "status" in self.subresources

    @property
    def verbs(self) -> tuple[str, ...]:
        return ("create",) if self.create_only else _ALL_VERBS


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
RESOURCES: tuple[ResourceType, ...] = (
    _r("", "v1", "Pod", "pods", True, ("status", "binding", "eviction"), ("po",)),
    _r("", "v1", "Node", "nodes", False, ("status",), ("no",)),
    _r("", "v1", "Service", "services", True, ("status",), ("svc",)),
    _r("", "v1", "Event", "events", True, (), ("ev",)),
    _r("", "v1", "Namespace", "namespaces", False, ("status", "finalize"), ("ns",)),
    _r("", "v1", "ConfigMap", "configmaps", True, (), ("cm",)),
    _r("", "v1", "Secret", "secrets", True, (), ()),
    _r("", "v1", "Binding", "bindings", True, create_only=True),
    _r("coordination.k8s.io", "v1", "Lease", "leases", True),
    _r("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", False, (), ("pc",)),
    _r("batch", "v1", "Job", "jobs", True, ("status",), default_propagation="Orphan"),
    _r(
        "scheduling.volcano.sh",
        "v1beta1",
        "PodGroup",
        "podgroups",
        True,
        ("status",),
        ("pg", "podgroup-v1beta1"),
        builtin=False,
    ),
    _r(
        "scheduling.volcano.sh",
        "v1beta1",
        "Queue",
        "queues",
        False,
        ("status",),
        ("q", "queue-v1beta1"),
        builtin=False,
    ),
    _r(
        "batch.volcano.sh",
        "v1alpha1",
        "Job",
        "jobs",
        True,
        ("status",),
        ("vcjob", "vj"),
        builtin=False,
    ),
    _r("bus.volcano.sh", "v1alpha1", "Command", "commands", True, builtin=False),
    _r(
        "kubeflow.org",
        "v1",
        "PyTorchJob",
        "pytorchjobs",
        True,
        ("status",),
        ("pytorchjob",),
        builtin=False,
    ),
    _r(
        "kueue.x-k8s.io",
        "v1beta1",
        "ResourceFlavor",
        "resourceflavors",
        False,
        (),
        ("flavor", "flavors", "rf"),
        builtin=False,
    ),
    _r(
        "kueue.x-k8s.io",
        "v1beta1",
        "ClusterQueue",
        "clusterqueues",
        False,
        ("status",),
        ("cq",),
        builtin=False,
    ),
    _r(
        "kueue.x-k8s.io",
        "v1beta1",
        "LocalQueue",
        "localqueues",
        True,
        ("status",),
        ("queue", "queues", "lq"),
        builtin=False,
    ),
    _r(
        "kueue.x-k8s.io",
        "v1beta1",
        "Workload",
        "workloads",
        True,
        ("status",),
        ("wl",),
        builtin=False,
    ),
)


class Registry:
    """Lookups over a table of resource types; duplicates are an error, not an overwrite."""

    def __init__(self, resources: Iterable[ResourceType] = RESOURCES) -> None:
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
