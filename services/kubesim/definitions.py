"""Custom resources from the CRDs Shoal ships: one resource type per served version.

kubesim reads ``deploy/crds``, the CRDs Shoal ships, so it serves exactly what a cluster with
those CRDs serves: the same names, scope, versions (which one is stored, which are deprecated),
subresources, printer columns and schemas. From the repository it reads them in place; the wheel
carries the same files as package data (``services/kubesim/crds``, see pyproject.toml), so an
installed kubesim needs no checkout.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import yaml

from services.kubesim.resourcetype import ResourceType

_PACKAGED_CRDS = Path(__file__).resolve().parent / "crds"
_REPO_CRDS = Path(__file__).resolve().parents[2] / "deploy" / "crds"
CRD_DIR = _PACKAGED_CRDS if _PACKAGED_CRDS.is_dir() else _REPO_CRDS
_SUBRESOURCES = ("status", "scale")
_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")

Obj = dict[str, Any]


def _loader() -> type[yaml.SafeLoader]:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def version_priority(version: str) -> tuple[int, int, int, str]:
    """Sort key of Kubernetes' version priority (``CompareKubeAwareVersionStrings``): GA before
    beta before alpha, higher numbers first, then anything else by name."""
    match = _KUBE_VERSION.match(version)
    if match is None:
        return (3, 0, 0, version)
    major, stage, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0), "")


def resource_types(crd: Obj) -> list[ResourceType]:
    """The served versions of one CustomResourceDefinition, preferred version first."""
    spec = crd["spec"]
    names = spec["names"]
    served = sorted(
        (v for v in spec["versions"] if v.get("served", True)),
        key=lambda v: version_priority(v["name"]),
    )
    storage = next((v["name"] for v in spec["versions"] if v.get("storage")), served[0]["name"])
    out = []
    for version in served:
        deprecated = version.get("deprecated", False)
        warning = ""
        if deprecated:
            # As the apiextensions server: the version's own warning, or the generated one.
            warning = version.get("deprecationWarning") or (
                f"{spec['group']}/{version['name']} {names['kind']} is deprecated"
            )
        subresources = version.get("subresources") or {}
        out.append(
            ResourceType(
                group=spec["group"],
                version=version["name"],
                kind=names["kind"],
                plural=names["plural"],
                singular=names.get("singular") or names["kind"].lower(),
                namespaced=spec["scope"] == "Namespaced",
                subresources=tuple(s for s in _SUBRESOURCES if s in subresources),
                short_names=tuple(names.get("shortNames") or ()),
                categories=tuple(names.get("categories") or ()),
                builtin=False,
                storage_version=storage,
                deprecation_warning=warning,
                printer_columns=tuple(version.get("additionalPrinterColumns") or ()),
                schema=(version.get("schema") or {}).get("openAPIV3Schema"),
            )
        )
    return out


@functools.cache
def custom_resources(directory: Path = CRD_DIR) -> tuple[ResourceType, ...]:
    out: list[ResourceType] = []
    for path in sorted(directory.rglob("*.yaml")):
        for doc in yaml.load_all(path.read_text(), Loader=_loader()):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                out += resource_types(doc)
    return tuple(out)
