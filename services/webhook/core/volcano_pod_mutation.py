"""Volcano's ``mutatepod.volcano.sh`` (pkg/webhooks/admission/pods/mutate), on pod CREATE: the
first resource group of the admission configuration (``--admission-conf``, the
``volcano-admission.conf`` of Volcano's chart) that the pod belongs to sets its nodeSelector
labels, affinity (only when the pod has none), tolerations and schedulerName.

A group with ``object.key: namespace`` takes the pods of the namespaces it lists; any other
group (``annotation`` or no key) takes the pods carrying one of the annotations it lists as
``"key: value"`` YAML, and a group with no key also the pods annotated
``volcano.sh/resource-group: <its name>``. Upstream's chart ships the configuration with every
group commented out, so by default no pod is mutated (``DEFAULT_CONFIGURATION``). With the
``SchedulingGatesQueueAdmission`` feature gate (alpha, off by default) a pod annotated
``scheduling.volcano.sh/queue-allocation-gate: "true"`` also gets that scheduling gate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import yaml

from services.webhook.core.queues import ClusterView

Obj = dict[str, Any]
Operation = dict[str, Any]
RESOURCE_GROUP_ANNOTATION = "volcano.sh/resource-group"  # defaultAnnotationKey
QUEUE_ALLOCATION_GATE = "scheduling.volcano.sh/queue-allocation-gate"  # QueueAllocationGateKey
# yaml.v2 reads Toleration's fields by their lower-cased Go names: it ignores the json tags.
_TOLERATION_FIELDS = {
    "key": "key",
    "operator": "operator",
    "value": "value",
    "effect": "effect",
    "tolerationseconds": "tolerationSeconds",
}
_YAML_NULLS = ("", "~", "null", "Null", "NULL")


@dataclass(frozen=True)
class ResourceGroup:
    """One ``resourceGroups`` entry (``ResGroupConfig``)."""

    name: str  # resourceGroup
    key: str = ""  # object.key: "namespace", "annotation" or ""
    values: tuple[str, ...] = ()  # object.value
    scheduler_name: str = ""
    tolerations: tuple[Obj, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    affinity: str = ""  # a JSON corev1.Affinity


@dataclass(frozen=True)
class AdmissionConfiguration:
    """The webhook's admission configuration and the feature gate its mutation reads."""

    resource_groups: tuple[ResourceGroup, ...] = ()
    scheduling_gates_queue_admission: bool = False


DEFAULT_CONFIGURATION = AdmissionConfiguration()


def _string(value: Any) -> str:
    """A scalar as yaml.v2 decodes it into a Go string (null is "")."""
    if value is None:
        return ""
    return str(value)


def _toleration(raw: Any) -> Obj:
    out: Obj = {}
    for key, value in (raw or {}).items() if isinstance(raw, dict) else ():
        name = _TOLERATION_FIELDS.get(str(key))
        if name is not None and value not in (None, ""):  # Go's omitempty
            out[name] = value if name == "tolerationSeconds" else _string(value)
    return out


def load_admission_configuration(text: str) -> AdmissionConfiguration:
    """``LoadAdmissionConf``: the ``resourceGroups`` of a ``volcano-admission.conf``."""
    data = yaml.safe_load(text) or {}
    groups = []
    for raw in data.get("resourceGroups") or ():
        obj = raw.get("object") or {}
        groups.append(
            ResourceGroup(
                name=_string(raw.get("resourceGroup")),
                key=_string(obj.get("key")),
                values=tuple(_string(v) for v in obj.get("value") or ()),
                scheduler_name=_string(raw.get("schedulerName")),
                tolerations=tuple(_toleration(t) for t in raw.get("tolerations") or ()),
                labels=tuple((str(k), _string(v)) for k, v in (raw.get("labels") or {}).items()),
                affinity=_string(raw.get("affinity")),
            )
        )
    return AdmissionConfiguration(resource_groups=tuple(groups))


def _listed_annotations(group: ResourceGroup) -> dict[str, str]:
    """``getAnnotation``: each value read as a YAML map of strings, the first of a key kept."""
    out: dict[str, str] = {}
    for value in group.values:
        try:
            parsed = yaml.load(value, Loader=yaml.BaseLoader)
        except yaml.YAMLError:
            continue
        if not isinstance(parsed, dict) or any(isinstance(v, dict | list) for v in parsed.values()):
            continue
        for key, text in parsed.items():
            if not out.get(str(key)):  # mergo.Merge fills only what is missing or empty
                out[str(key)] = "" if text in _YAML_NULLS else str(text)
    return out


def belongs(pod: Obj, group: ResourceGroup) -> bool:
    """``GetResGroup(group).IsBelongResGroup(pod, group)``."""
    meta = pod.get("metadata") or {}
    if group.key == "namespace":
        return meta.get("namespace", "") in group.values
    annotations = meta.get("annotations") or {}
    # A listed annotation whose value is "" matches a pod without it, as upstream's map lookup.
    if any(annotations.get(k, "") == v for k, v in _listed_annotations(group).items()):
        return True
    return group.key == "" and annotations.get(RESOURCE_GROUP_ANNOTATION, "") == group.name


def _scheduling_gate(pod: Obj) -> Operation | None:
    """``patchSchedulingGates``."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    if annotations.get(QUEUE_ALLOCATION_GATE) != "true":
        return None
    gates = (pod.get("spec") or {}).get("schedulingGates")
    gate = {"name": QUEUE_ALLOCATION_GATE}
    if any(g.get("name") == QUEUE_ALLOCATION_GATE for g in gates or ()):
        return None
    if gates is None:
        return {"op": "add", "path": "/spec/schedulingGates", "value": [gate]}
    return {"op": "add", "path": "/spec/schedulingGates/-", "value": gate}


def _group_patch(pod: Obj, group: ResourceGroup) -> list[Operation]:
    spec = pod.get("spec") or {}
    patch: list[Operation] = []
    if group.labels:
        selector = {**(spec.get("nodeSelector") or {}), **dict(group.labels)}
        patch.append({"op": "add", "path": "/spec/nodeSelector", "value": selector})
    if group.affinity and spec.get("affinity") is None:
        try:
            affinity = json.loads(group.affinity)
        except ValueError:
            affinity = None  # upstream logs the error and patches no affinity
        if isinstance(affinity, dict):
            patch.append({"op": "add", "path": "/spec/affinity", "value": affinity})
    if group.tolerations:
        tolerations = [*(spec.get("tolerations") or ()), *group.tolerations]
        patch.append({"op": "add", "path": "/spec/tolerations", "value": tolerations})
    if group.scheduler_name:
        patch.append({"op": "add", "path": "/spec/schedulerName", "value": group.scheduler_name})
    return patch


def create_patch(pod: Obj, config: AdmissionConfiguration) -> list[Operation]:
    """``createPatch``: upstream's operations, in its order."""
    patch: list[Operation] = []
    if config.scheduling_gates_queue_admission:
        gate = _scheduling_gate(pod)
        if gate is not None:
            patch.append(gate)
    for group in config.resource_groups:
        if belongs(pod, group):
            return patch + _group_patch(pod, group)
    return patch


@dataclass(frozen=True)
class PodMutation:
    """The webhook's patch with its configuration."""

    config: AdmissionConfiguration = field(default_factory=AdmissionConfiguration)

    def __call__(self, pod: Obj, cluster: ClusterView) -> list[Operation]:
        return create_patch(pod, self.config)
