"""The hierarchical resource rules of Volcano's queue webhook (validate_queue.go), with the
scheduler's ``api.Resource`` arithmetic they use (pkg/scheduler/api/resource_info.go): a queue's
capability within its nearest ancestor's, its descendants' capabilities within its own, and the
children's guarantee and deserved sums within the parent's."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from services.webhook.core.queues import QueueLister
from shared.errors import QuantityError
from shared.quantities import parse_quantity

Obj = dict[str, Any]
MIN_RESOURCE = 0.1  # resource_info.go minResource
_BINARY = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))
_DECIMAL = ("k", "M", "G", "T", "P", "E")


@dataclass
class Resource:
    """``api.Resource``: milli-CPU, memory bytes, and scalar resources (milli, pods as a count)."""

    milli_cpu: float = 0.0
    memory: float = 0.0
    scalars: dict[str, float] = field(default_factory=dict)

    def add(self, other: Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        for name, value in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0.0) + value

    def less_partly(self, other: Resource) -> bool:
        """``LessPartly(rr, Zero)``: some dimension of self is below other's."""
        if self.milli_cpu < other.milli_cpu or self.memory < other.memory:
            return True
        if any(name not in self.scalars for name in other.scalars):
            return True
        return any(value < other.scalars.get(name, 0.0) for name, value in self.scalars.items())

    def names(self) -> list[str]:
        """``ResourceNames``: the dimensions of at least ``minResource``."""
        out = [
            n for n, v in (("cpu", self.milli_cpu), ("memory", self.memory)) if v >= MIN_RESOURCE
        ]
        return out + sorted(n for n, v in self.scalars.items() if v >= MIN_RESOURCE)

    def get(self, name: str) -> float:
        if name == "cpu":
            return self.milli_cpu
        if name == "memory":
            return self.memory
        return self.scalars.get(name, 0.0)

    def __str__(self) -> str:
        text = f"cpu {self.milli_cpu:0.2f}, memory {self.memory:0.2f}"
        return text + "".join(f", {n} {self.scalars[n]:0.2f}" for n in sorted(self.scalars))


def _scalar_name(name: str) -> bool:
    """Kubernetes' ``IsScalarResourceName``: extended, hugepages, prefixed native, volumes."""
    return (
        ("/" in name and not name.startswith("requests."))
        or name.startswith("hugepages-")
        or name.startswith("attachable-volumes-")
    )


def new_resource(resources: Obj | None) -> Resource:
    """``NewResource`` of a ResourceList."""
    out = Resource()
    for name, value in (resources or {}).items():
        try:
            quantity = parse_quantity(value)
        except QuantityError:
            continue
        milli, units = quantity.milli(), math.ceil(quantity.exact)
        if name == "cpu":
            out.milli_cpu += milli
        elif name == "memory":
            out.memory += units
        elif name == "pods":
            out.scalars["pods"] = out.scalars.get("pods", 0.0) + units
        elif name == "ephemeral-storage" or (not name.startswith("count/") and _scalar_name(name)):
            out.scalars[name] = out.scalars.get(name, 0.0) + milli
    return out


def format_value(name: str, value: float) -> str:
    """``formatResourceWithType``: a milli-CPU or byte count as Kubernetes prints quantities."""
    if name == "cpu":
        milli = int(value)
        if milli % 1000:
            return f"{milli}m"
        whole, suffix = milli // 1000, ""
        for unit in _DECIMAL:
            if whole == 0 or whole % 1000:
                break
            whole, suffix = whole // 1000, unit
        return f"{whole}{suffix}"
    if name == "memory":
        number = int(value)
        for suffix, size in _BINARY:
            if number and number % size == 0:
                return f"{number // size}{suffix}"
        return str(number)
    return f"{value:.2f}"


def _spec(queue: Obj) -> Obj:
    spec = queue.get("spec")
    return spec if isinstance(spec, dict) else {}


def _guarantee(queue: Obj) -> Obj | None:
    return (_spec(queue).get("guarantee") or {}).get("resource")


def nearest_ancestor_capability(queue: Obj, name: str, queues: QueueLister) -> float | None:
    parent = _spec(queue).get("parent") or ""
    while parent not in ("", "root"):
        found = queues.get(parent)
        if found is None:
            return None
        value = new_resource(_spec(found).get("capability")).get(name)
        if _spec(found).get("capability") is not None and value > 0:
            return value
        parent = _spec(found).get("parent") or ""
    return None


def subtree_max_capability(queue: Obj, name: str, queues: QueueLister) -> float:
    value = new_resource(_spec(queue).get("capability")).get(name)
    if value > 0:
        return value
    children = queues.children(queue["metadata"]["name"])
    return max((subtree_max_capability(c, name, queues) for c in children), default=0.0)


def validate_child_against_ancestor(child: Obj, queues: QueueLister) -> str:
    if _spec(child).get("capability") is None:
        return ""
    own = new_resource(_spec(child).get("capability"))
    for name in own.names():
        limit = nearest_ancestor_capability(child, name, queues)
        if limit is not None and own.get(name) > limit:
            return (
                f"queue {child['metadata']['name']} capability[{name}]="
                f"{format_value(name, own.get(name))} exceeds its ancestor's "
                f"capability={format_value(name, limit)}"
            )
    return ""


def _sums(parent: Obj, queues: list[Obj], who: str) -> str:
    guarantee, deserved = Resource(), Resource()
    limit_guarantee = new_resource(_guarantee(parent))
    limit_deserved = new_resource(_spec(parent).get("deserved"))
    for queue in queues:
        guarantee.add(new_resource(_guarantee(queue)))
        if limit_guarantee.less_partly(guarantee):
            return (
                f"{who} validation failed: sum of children's guarantee ({guarantee}) exceeds "
                f"parent's guarantee limit ({limit_guarantee})"
            )
        deserved.add(new_resource(_spec(queue).get("deserved")))
        if limit_deserved.less_partly(deserved):
            return (
                f"{who} validation failed: sum of children's deserved ({deserved}) exceeds "
                f"parent's deserved limit ({limit_deserved})"
            )
    return ""


def validate_siblings_sum(queue: Obj, parent: Obj, siblings: list[Obj]) -> str:
    """``validateSiblingsSum``: the other children, then ``queue``, within the parent."""
    name = queue["metadata"]["name"]
    others = [s for s in siblings if s["metadata"]["name"] != name]
    return _sums(parent, [*others, queue], f"parent queue {parent['metadata']['name']}")


def validate_children_constraints(parent: Obj, children: list[Obj], queues: QueueLister) -> str:
    """``validateChildrenConstraints``."""
    name = parent["metadata"]["name"]
    if _spec(parent).get("capability") is not None:
        own = new_resource(_spec(parent).get("capability"))
        for resource in own.names():
            deepest = max(
                (subtree_max_capability(c, resource, queues) for c in children), default=0.0
            )
            if own.get(resource) < deepest:
                mine = format_value(resource, own.get(resource))
                return (
                    f"queue {name} capability[{resource}]={mine} is smaller than its "
                    f"descendants' max capability={format_value(resource, deepest)}"
                )
    return _sums(parent, children, f"queue {name}")


def validate_resources(queue: Obj, queues: QueueLister) -> str:
    """``validateHierarchicalQueueResources``."""
    parent_name = _spec(queue).get("parent") or ""
    if parent_name not in ("", "root"):
        parent = queues.get(parent_name)
        if parent is None:
            return (
                f"parent queue {parent_name} not found: "
                f'queue.scheduling.volcano.sh "{parent_name}" not found'
            )
        if message := validate_child_against_ancestor(queue, queues):
            return message
        if message := validate_siblings_sum(queue, parent, queues.children(parent_name)):
            return message
    children = queues.children(queue["metadata"]["name"])
    return validate_children_constraints(queue, children, queues) if children else ""


def needs_resource_validation(queue: Obj, old: Obj | None, operation: str) -> bool:
    """``needsValidateHierarchicalQueue``."""
    if queue["metadata"]["name"] == "root":
        return False
    if operation == "CREATE":
        return True
    if operation != "UPDATE" or old is None:
        return False
    new_spec, old_spec = _spec(queue), _spec(old)
    return (
        new_spec.get("parent") != old_spec.get("parent")
        or (new_spec.get("capability") or {}) != (old_spec.get("capability") or {})
        or (new_spec.get("deserved") or {}) != (old_spec.get("deserved") or {})
        or (_guarantee(queue) or {}) != (_guarantee(old) or {})
    )
