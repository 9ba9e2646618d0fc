"""Request paths → what they address, as the API server's RequestInfo resolver does.

/api/v1/pods                                  list/watch pods in all namespaces
/api/v1/namespaces/ns/pods/p/status           pod p's status subresource
/apis/batch/v1/namespaces/ns/jobs             jobs in namespace ns
/api/v1/nodes/n                               node n (cluster-scoped)
/api/v1/namespaces/ns                         the namespace ns itself
"""

from __future__ import annotations

from dataclasses import dataclass

from services.kubesim import apierrors
from services.kubesim.registry import Registry, ResourceType


@dataclass(frozen=True, slots=True)
class Target:
    rtype: ResourceType
    namespace: str | None  # None: all namespaces (or a cluster-scoped resource)
    name: str
    subresource: str


@dataclass(frozen=True, slots=True)
class GroupVersion:
    """A path that names a group-version and nothing more (its discovery document)."""

    group: str
    version: str


def resolve(registry: Registry, path: str) -> Target | GroupVersion:
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise apierrors.ApiError(404, f"the server could not find the requested resource ({path})")
    if not rest:
        return GroupVersion(group, version)
    namespace: str | None = None
    if (
        rest[0] == "namespaces"
        and len(rest) >= 3
        and not (len(rest) == 3 and rest[2] in ("status", "finalize"))
    ):
        namespace, rest = rest[1], rest[2:]
    plural, name, sub = rest[0], "", ""
    if len(rest) >= 2:
        name = rest[1]
    if len(rest) == 3:
        sub = rest[2]
    if len(rest) > 3:
        raise apierrors.ApiError(404, f"the server could not find the requested resource ({path})")
    rtype = registry.lookup(group, version, plural)
    if rtype is None:
        raise apierrors.ApiError(404, f"the server could not find the requested resource ({path})")
    if sub and sub not in rtype.subresources:
        raise apierrors.ApiError(404, f"the server could not find the requested resource ({path})")
    if namespace is not None and not rtype.namespaced:
        raise apierrors.ApiError(404, f"the server could not find the requested resource ({path})")
    return Target(rtype, namespace, name, sub)


def is_true(value: str | None) -> bool:
    """A boolean query parameter as Go's ``strconv.ParseBool`` reads it (``True`` included)."""
    return value in ("1", "t", "T", "true", "TRUE", "True")
