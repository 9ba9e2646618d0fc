"""Volcano's ``validatequeue.volcano.sh`` webhook (pkg/webhooks/admission/queues/validate).

CREATE/UPDATE: resource quantities (non-negative, integers where Kubernetes requires them,
deserved within capability and at least guarantee), the state, the ``volcano.sh/hierarchy``
annotations, the parent (itself, depth at most ``--max-queue-depth`` 5, existing, not holding
pods), the root queue's resources (``--enable-root-queue-protection``, on by default) and the
hierarchical resources (``volcano_queue_hierarchy``). DELETE: ``default`` and ``root`` stay, a
queue with children stays (and, with ``--enable-queue-allocated-pods-check``, off by default, a
queue holding pods).
"""

from __future__ import annotations

from typing import Any

from services.webhook.core.queues import QueueLister
from services.webhook.core.volcano_policies import go_list, go_quote
from services.webhook.core.volcano_queue_hierarchy import (
    needs_resource_validation,
    validate_resources,
)
from shared.errors import QuantityError
from shared.kube.fielderrors import aggregate
from shared.quantities import parse_quantity

Obj = dict[str, Any]
WEBHOOK = "validatequeue.volcano.sh"
HIERARCHY = "volcano.sh/hierarchy"
HIERARCHY_WEIGHTS = "volcano.sh/hierarchy-weights"
QUEUE_STATES = ("Open", "Closed")
MAX_QUEUE_DEPTH = 5  # cmd/webhook-manager defaultMaxQueueDepth


def _invalid(path: str, value: object, detail: str) -> str:
    return f"{path}: Invalid value: {go_quote(value)}: {detail}"


def _integer_resource(name: str) -> bool:
    """Kubernetes' ``IsIntegerResourceName``: extended resources and object counts."""
    native = "/" not in name or name.split("/")[0].endswith("kubernetes.io")
    return not native or name == "pods" or name.startswith("count/")


def _quantity_errors(name: str, value: Any, path: str) -> list[str]:
    try:
        milli = parse_quantity(value).milli()
    except QuantityError:
        return [_invalid(path, str(value), "must be a quantity")]
    errors = []
    if milli < 0:
        errors.append(_invalid(path, str(value), "must be greater than or equal to 0"))
    if _integer_resource(name) and milli % 1000:
        errors.append(_invalid(path, str(value), "must be an integer"))
    return errors


def _milli(value: Any) -> int:
    try:
        return parse_quantity(value).milli()
    except QuantityError:
        return 0


def _resources(spec: Obj) -> list[str]:
    """``validateResourceQuantityOfQueue``."""
    path = "requestBody.spec"
    capability = spec.get("capability") or {}
    deserved = spec.get("deserved") or {}
    guarantee = (spec.get("guarantee") or {}).get("resource") or {}
    errors: list[str] = []
    for name, value in capability.items():
        errors += _quantity_errors(name, value, f"{path}.capability.{name}")
    for name, value in deserved.items():
        errors += _quantity_errors(name, value, f"{path}.deserved.{name}")
    for name, value in guarantee.items():
        errors += _quantity_errors(name, value, f"{path}.guarantee.resource.{name}")
        if name not in deserved:
            errors.append(
                _invalid(
                    f"{path}.deserved.{name}",
                    "<nil>",
                    f"deserved[{name}] must be >= guarantee[{name}]={value}",
                )
            )
        elif _milli(deserved[name]) < _milli(value):
            errors.append(
                _invalid(
                    f"{path}.deserved.{name}",
                    str(deserved[name]),
                    f"deserved[{name}]={deserved[name]} must be >= guarantee[{name}]={value}",
                )
            )
    for name, value in deserved.items():
        if name in capability and _milli(value) > _milli(capability[name]):
            errors.append(
                _invalid(
                    f"{path}.deserved.{name}",
                    str(value),
                    f"deserved[{name}]={value} must be <= capability[{name}]={capability[name]}",
                )
            )
    return errors


def _go_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _hierarchy(queue: Obj, queues: QueueLister) -> list[str]:
    """``validateHierarchicalAttributes`` of the annotations."""
    annotations = queue["metadata"].get("annotations") or {}
    hierarchy, weights = annotations.get(HIERARCHY, ""), annotations.get(HIERARCHY_WEIGHTS, "")
    path = "requestBody.metadata.annotations"
    if not hierarchy and not weights:
        return []
    if len(hierarchy.split("/")) != len(weights.split("/")):
        detail = f"{HIERARCHY} must have the same length with {HIERARCHY_WEIGHTS}"
        return [_invalid(path, hierarchy, detail)]
    for weight in weights.split("/"):
        number = _go_float(weight)
        if number is None:
            syntax = f'strconv.ParseFloat: parsing "{weight}": invalid syntax'
            return [
                _invalid(path, weights, f"{weight} in the {weights} is invalid number: {syntax}")
            ]
        if number <= 0:
            return [_invalid(path, weights, f"{weight} in the {weights} must be larger than 0")]
    for other in queues.all():
        theirs = (other["metadata"].get("annotations") or {}).get(HIERARCHY, "")
        name = other["metadata"]["name"]
        if theirs and name != queue["metadata"]["name"] and theirs.startswith(hierarchy + "/"):
            detail = f"{hierarchy} is not allowed to be in the sub path of {theirs} of queue {name}"
            return [_invalid(path, hierarchy, detail)]
    return []


def validate_queue(queue: Obj, queues: QueueLister) -> str:
    """``validateQueue``: resources, state and hierarchy annotations, aggregated."""
    errors = _resources(queue.get("spec") or {})
    state = (queue.get("status") or {}).get("state") or ""
    if state and state not in QUEUE_STATES:
        errors.append(
            _invalid(
                "requestBody.spec.state", state, f"queue state must be in {go_list(QUEUE_STATES)}"
            )
        )
    errors += _hierarchy(queue, queues)
    return aggregate(errors) if errors else ""


def _pods_allocated(queue: Obj) -> int:
    return _milli(((queue.get("status") or {}).get("allocated") or {}).get("pods", 0)) // 1000


def validate_queue_depth(queue: Obj, queues: QueueLister, max_depth: int = MAX_QUEUE_DEPTH) -> str:
    """``validateQueueDepth``."""
    name = queue["metadata"]["name"]
    depth, ancestor = 1, (queue.get("spec") or {}).get("parent") or ""
    while ancestor not in ("", "root"):
        depth += 1
        if depth > max_depth:
            return f"queue {name} exceeds the maximum allowed depth of {max_depth}"
        found = queues.get(ancestor)
        if found is None:
            return (
                f"failed to get parent queue {ancestor} of queue {name}: "
                f'queue.scheduling.volcano.sh "{ancestor}" not found'
            )
        ancestor = (found.get("spec") or {}).get("parent") or ""
    return ""


def validate_parent(queue: Obj, queues: QueueLister) -> str:
    """``validateHierarchicalQueue`` (on create, or when the parent changes)."""
    name, parent = queue["metadata"]["name"], (queue.get("spec") or {}).get("parent") or ""
    if parent in ("", "root"):
        return ""
    if parent == name:
        return f"queue {name} cannot use itself as parent"
    if message := validate_queue_depth(queue, queues):
        return message
    parent_queue = queues.get(parent)
    assert parent_queue is not None  # the depth walk found it
    if not queues.children(parent) and (pods := _pods_allocated(parent_queue)):
        return (
            f"queue {parent} cannot be the parent queue of queue {name} because it has "
            f"allocated Pods: {pods}"
        )
    return ""


def validate_delete(name: str, queues: QueueLister, *, allocated_pods_check: bool = False) -> str:
    """``validateQueueDeleting``."""
    if name in ("default", "root"):
        return f"`{name}` queue can not be deleted"
    queue = queues.get(name)
    if queue is None:
        return f'queue.scheduling.volcano.sh "{name}" not found'
    if allocated_pods_check and (pods := _pods_allocated(queue)):
        return f"queue {name} cannot be deleted because it has allocated Pods: {pods}"
    children = [c["metadata"]["name"] for c in queues.children(name)]
    if children:
        return (
            f"queue {name} can not be deleted because it has {len(children)} child queues: "
            + ", ".join(children)
        )
    return ""


def validate_root_update(old: Obj, new: Obj) -> str:
    """``--enable-root-queue-protection``: the root queue's resources are fixed."""
    if new["metadata"]["name"] != "root":
        return ""
    if _resource_fields(old) != _resource_fields(new):
        return (
            "root queue's resource attributes (capability, deserved, guarantee) cannot be modified"
        )
    return ""


def _resource_fields(queue: Obj) -> tuple[Obj, Obj, Obj]:
    spec = queue.get("spec") or {}
    guarantee = (spec.get("guarantee") or {}).get("resource") or {}
    return spec.get("capability") or {}, spec.get("deserved") or {}, guarantee


def admit_queue(
    operation: str,
    queue: Obj,
    old: Obj | None,
    queues: QueueLister,
    *,
    allocated_pods_check: bool = False,
) -> str:
    """``AdmitQueues``: the refusal message (empty: admitted); ``queue`` is the object (for
    DELETE, the one being deleted)."""
    if operation == "DELETE":
        return validate_delete(
            queue["metadata"]["name"], queues, allocated_pods_check=allocated_pods_check
        )
    if operation not in ("CREATE", "UPDATE"):
        return (
            f"invalid operation `{operation}`, expect operation to be `CREATE`, `UPDATE` or "
            "`DELETE`"
        )
    if message := validate_queue(queue, queues):
        return message
    parent = (queue.get("spec") or {}).get("parent")
    moved = old is None or (old.get("spec") or {}).get("parent") != parent
    if (operation == "CREATE" or moved) and (message := validate_parent(queue, queues)):
        return message
    if operation == "UPDATE" and old is not None and (message := validate_root_update(old, queue)):
        return message
    if needs_resource_validation(queue, old, operation):
        return validate_resources(queue, queues)
    return ""
