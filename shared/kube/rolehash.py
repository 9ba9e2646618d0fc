"""Kueue's role hash of a pod (``utilpod.GenerateRoleHash``, pkg/util/pod): what tells the
roles of a pod group apart. The first 8 hex digits of the SHA-256 of the pod's shape (each
container's requests and ports; node selector, affinity, tolerations, runtime class,
priority, topology spread, overhead, resource claims) as Go's ``json.Marshal`` writes it:
map keys sorted, a field the pod lacks ``null``, an empty one as it was given, quantities in
their canonical form. The pod webhook and the pod controller must agree on it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from shared.quantities import canonical, parse_quantity

Json = dict[str, Any]
_BINARY_SUFFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_SPEC_FIELDS = (
    "nodeSelector",
    "affinity",
    "tolerations",
    "runtimeClassName",
    "priority",
    "topologySpreadConstraints",
    "resourceClaims",
)


def _quantity(value: str | int | float) -> str:
    """A ``Quantity`` as Go marshals it: canonical, in the format its suffix names."""
    binary = str(value).endswith(_BINARY_SUFFIXES)
    return canonical(parse_quantity(value).exact, binary=binary)


def _resources(resources: Any) -> Json | None:
    if resources is None:
        return None
    return {name: _quantity(value) for name, value in resources.items()}


def _containers(containers: Any) -> list[Json] | None:
    if containers is None:
        return None
    return [
        {
            "resources": {"requests": _resources((c.get("resources") or {}).get("requests"))},
            "ports": c.get("ports"),
        }
        for c in containers
    ]


def role_hash(spec: Json) -> str:
    """The role hash of a pod spec as the API object holds it."""
    shape: Json = {field: spec.get(field) for field in _SPEC_FIELDS}
    shape["initContainers"] = _containers(spec.get("initContainers"))
    shape["containers"] = _containers(spec.get("containers"))
    shape["overhead"] = _resources(spec.get("overhead"))
    encoded = json.dumps({"spec": shape}, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(encoded.encode()).hexdigest()[:8]
