"""Discovery and OpenAPI documents, built once from the registry.

Discovery (``/api``, ``/apis``, ``/api/v1``, ``/apis/<g>/<v>``) lets kubectl and
kubernetes_asyncio map kinds to resources. The OpenAPI v3 documents are deliberately thin:
per group-version, the PATCH operation of each resource with its group-version-kind and the
``fieldValidation`` parameter (so ``kubectl apply`` chooses server-side validation, which
kubesim accepts), and for custom resources their CRD's schema (``kubectl explain``); built-in
kinds get a schema that preserves unknown fields.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from services.kubesim.registry import Registry, ResourceType

Obj = dict[str, Any]
SERVER_VERSION: Obj = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-kubesim",
    "gitCommit": "kubesim",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23",
    "compiler": "gc",
    "platform": "linux/amd64",
}


def _gv_path(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def _resource_entries(rtype: ResourceType) -> list[Obj]:
    entry: Obj = {
        "name": rtype.plural,
        "singularName": rtype.singular,
        "namespaced": rtype.namespaced,
        "kind": rtype.kind,
        "verbs": list(rtype.verbs),
    }
    if rtype.short_names:
        entry["shortNames"] = list(rtype.short_names)
    if rtype.categories:
        entry["categories"] = list(rtype.categories)
    entries = [entry]
    for sub in rtype.subresources:
        sub_entry: Obj = {
            "name": f"{rtype.plural}/{sub}",
            "singularName": "",
            "namespaced": rtype.namespaced,
            "kind": rtype.kind,
            "verbs": ["get", "patch", "update"],
        }
        if sub == "binding":
            sub_entry.update(kind="Binding", verbs=["create"])
        elif sub == "eviction":
            sub_entry.update(kind="Eviction", group="policy", version="v1", verbs=["create"])
        elif sub == "log":
            sub_entry["verbs"] = ["get"]
        elif sub == "finalize":
            sub_entry["verbs"] = ["update"]
        entries.append(sub_entry)
    return entries


class Discovery:
    """Pre-encoded discovery and OpenAPI bodies."""

    def __init__(self, registry: Registry) -> None:
        encode = msgspec.json.encode
        groups = registry.group_versions()
        self.version = encode(SERVER_VERSION)
        self.core_versions = encode(
            {
                "kind": "APIVersions",
                "versions": groups.get("", []),
                "serverAddressByClientCIDRs": [
                    {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:0"}
                ],
            }
        )
        self.groups: dict[str, bytes] = {}
        group_list = []
        for group, versions in groups.items():
            if not group:
                continue
            doc = {
                "name": group,
                "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in versions],
                "preferredVersion": {
                    "groupVersion": f"{group}/{versions[0]}",
                    "version": versions[0],
                },
            }
            group_list.append(doc)
            self.groups[group] = encode({"kind": "APIGroup", "apiVersion": "v1", **doc})
        self.group_list = encode({"kind": "APIGroupList", "apiVersion": "v1", "groups": group_list})
        self.resource_lists: dict[tuple[str, str], bytes] = {}
        self.openapi_v3: dict[str, bytes] = {}
        root_paths: Obj = {}
        for group, versions in groups.items():
            for version in versions:
                rtypes = registry.in_group_version(group, version)
                gv = f"{group}/{version}" if group else version
                resources = [e for r in rtypes for e in _resource_entries(r)]
                self.resource_lists[(group, version)] = encode(
                    {
                        "kind": "APIResourceList",
                        "apiVersion": "v1",
                        "groupVersion": gv,
                        "resources": resources,
                    }
                )
                path = _gv_path(group, version)
                body = encode(_openapi_v3(group, version, rtypes))
                self.openapi_v3[path] = body
                digest = hashlib.sha256(body).hexdigest()[:16].upper()
                root_paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest}"}
        self.openapi_v3_root = encode({"paths": root_paths})
        self.openapi_v2 = encode(
            {
                "swagger": "2.0",
                "info": {"title": "Kubernetes", "version": "v1.32.0"},
                "paths": {},
                "definitions": {},
            }
        )
        self.openapi_v2_protobuf = _openapi_v2_protobuf("Kubernetes", "v1.32.0")


def _proto_string(field: int, value: bytes) -> bytes:
    """One length-delimited protobuf field (the lengths here stay below 128: one byte)."""
    assert len(value) < 128
    return bytes([field << 3 | 2, len(value)]) + value


def _openapi_v2_protobuf(title: str, version: str) -> bytes:
    """The same empty document in gnostic's ``openapi_v2.Document`` protobuf encoding, which
    kubectl asks for (``application/com.github.proto-openapi.spec.v2@v1.0+protobuf``) when a kind
    is missing from OpenAPI v3: it then finds no schema and reports the real server's
    ``no matches for kind`` instead of failing to parse JSON as protobuf."""
    info = _proto_string(1, title.encode()) + _proto_string(2, version.encode())
    return _proto_string(1, b"2.0") + _proto_string(2, info)


def _openapi_v3(group: str, version: str, rtypes: list[ResourceType]) -> Obj:
    paths: Obj = {}
    schemas: Obj = {}
    prefix = f"/api/{version}" if not group else f"/apis/{group}/{version}"
    for rtype in rtypes:
        if rtype.create_only:
            continue
        gvk = [{"group": group, "version": version, "kind": rtype.kind}]
        ref_name = f"{group or 'core'}.{version}.{rtype.kind}"
        # A CRD's own schema, so `kubectl explain` can describe the kind; built-in kinds stay
        # open (kubesim has no copy of Kubernetes' built-in schemas).
        schema = rtype.schema or {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        schemas[ref_name] = {**schema, "x-kubernetes-group-version-kind": gvk}
        operation = {
            "operationId": f"patch{rtype.kind}",
            "parameters": [
                {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
                {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
                {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
            ],
            "x-kubernetes-group-version-kind": gvk[0],
            "x-kubernetes-action": "patch",
            "responses": {"200": {"description": "OK"}},
        }
        scope = "/namespaces/{namespace}" if rtype.namespaced else ""
        post = {**operation, "operationId": f"create{rtype.kind}", "x-kubernetes-action": "post"}
        paths[f"{prefix}{scope}/{rtype.plural}/{{name}}"] = {"patch": operation}
        paths[f"{prefix}{scope}/{rtype.plural}"] = {"post": post}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.32.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }
