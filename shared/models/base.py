"""Base types shared by every Kubernetes model: object metadata, owner references, selectors.

Models are msgspec Structs named and shaped as the API's JSON (camelCase fields), so a manifest
decodes without a mapping layer. Unknown fields are tolerated; fields Shoal does not read are
simply absent. Pod templates inside workloads are kept as plain dicts so they pass through intact.
"""

from __future__ import annotations

from typing import Any

import msgspec

from shared.kube import keys

Json = dict[str, Any]


class Model(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Base of every model: keyword-only, tolerant of unknown fields, compact when encoded."""


class OwnerReference(Model):
    apiVersion: str = ""
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool | None = None
    blockOwnerDeletion: bool | None = None


class ObjectMeta(Model):
    name: str = ""
    generateName: str | None = None
    namespace: str | None = None
    uid: str = ""
    resourceVersion: str = ""
    generation: int | None = None
    creationTimestamp: str | None = None
    deletionTimestamp: str | None = None
    deletionGracePeriodSeconds: int | None = None
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    ownerReferences: list[OwnerReference] = []
    finalizers: list[str] = []

    def controller_ref(self) -> OwnerReference | None:
        for ref in self.ownerReferences:
            if ref.controller:
                return ref
        return None


class LabelSelectorRequirement(Model):
    key: str
    operator: str
    values: list[str] = []


class LabelSelector(Model):
    matchLabels: dict[str, str] = {}
    matchExpressions: list[LabelSelectorRequirement] = []

    def matches(self, labels: dict[str, str]) -> bool:
        """Label-selector semantics: every matchLabels pair and every expression holds."""
        for key, value in self.matchLabels.items():
            if labels.get(key) != value:
                return False
        return all(requirement_matches(r, labels) for r in self.matchExpressions)


def requirement_matches(req: LabelSelectorRequirement, labels: dict[str, str]) -> bool:
    op = req.operator
    present = req.key in labels
    if op == "In":
        return present and labels[req.key] in req.values
    if op == "NotIn":
        return not present or labels[req.key] not in req.values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and req.values:
        try:
            have, want = int(labels[req.key]), int(req.values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


class Condition(Model):
    """The generic condition shape (Job, PodGroup, Workload, PyTorchJob all use a variant)."""

    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None
    lastProbeTime: str | None = None
    lastUpdateTime: str | None = None
    transitionID: str | None = None


class Resource(Model):
    """Any object Shoal stores but does not interpret (its body is kept as a dict)."""

    apiVersion: str = ""
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


def object_key(meta: ObjectMeta) -> str:
    """``namespace/name`` for namespaced objects, ``name`` for cluster-scoped ones."""
    return keys.object_key(meta.namespace, meta.name)
