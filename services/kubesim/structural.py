"""Structural schemas of custom resources, applied as the apiextensions server applies them.

On decoding a write, unknown fields are pruned (``fieldValidation``: ``Strict`` refuses them with
400, ``Warn``, the default, names each in a ``Warning``, ``Ignore`` drops them silently), nulls
of non-nullable fields are dropped and ``default`` values filled in; the stored object is then
checked against ``type``, ``enum``, ``required``, ``minimum``/``maximum``, ``minItems`` and
``pattern`` (422 Invalid, with the API server's messages).

Each served version's schema is compiled once into ``Node``s, and a write walks only the fields
its object has, so its cost follows the object, not the schema: Volcano's Job and the PyTorchJob
embed a whole PodTemplateSpec (over a thousand properties). Written by hand because no library
prunes and defaults Kubernetes' structural schemas (JSON Schema validators only validate, and
walk the schema). Not applied: CEL rules (``x-kubernetes-validations``), list-type uniqueness,
formats, string lengths and ``maxItems``.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from services.kubesim import apierrors
from services.kubesim.apiwarnings import warn
from services.kubesim.fielderrors import Cause, go_value
from services.kubesim.resourcetype import ResourceType

Obj = dict[str, Any]
# The fields every object (and an embedded resource) has outside its schema's properties.
_ROOT_FIELDS = frozenset({"apiVersion", "kind", "metadata"})
FIELD_VALIDATION_MODES = ("Ignore", "Warn", "Strict")


@dataclass(slots=True, eq=False)
class Node:
    """One schema node, reduced to what pruning, defaulting and validation read."""

    type: str = ""
    properties: dict[str, Node] | None = None
    items: Node | None = None
    additional: Node | None = None
    preserve_unknown: bool = False
    embedded: bool = False
    int_or_string: bool = False
    nullable: bool = False
    has_default: bool = False
    default: Any = None
    enum: tuple[Any, ...] | None = None
    required: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    min_items: int | None = None
    pattern: re.Pattern[str] | None = None
    pattern_text: str = ""
    # Whether any node below (or this one's properties) has a default: defaulting skips the rest.
    defaults_below: bool = field(default=False)


def compile_schema(schema: Obj) -> Node:
    node = Node(
        type=schema.get("type") or "",
        preserve_unknown=bool(schema.get("x-kubernetes-preserve-unknown-fields")),
        embedded=bool(schema.get("x-kubernetes-embedded-resource")),
        int_or_string=bool(schema.get("x-kubernetes-int-or-string")),
        nullable=bool(schema.get("nullable")),
        has_default="default" in schema,
        default=schema.get("default"),
        enum=tuple(schema["enum"]) if "enum" in schema else None,
        required=tuple(schema.get("required") or ()),
        minimum=schema.get("minimum"),
        maximum=schema.get("maximum"),
        exclusive_minimum=bool(schema.get("exclusiveMinimum")),
        exclusive_maximum=bool(schema.get("exclusiveMaximum")),
        min_items=schema.get("minItems"),
    )
    if "pattern" in schema:
        node.pattern_text = schema["pattern"]
        try:
            node.pattern = re.compile(schema["pattern"])
        except re.error:
            node.pattern = None  # an RE2 construct Python lacks: not checked
    if isinstance(schema.get("properties"), dict):
        node.properties = {k: compile_schema(v) for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        node.items = compile_schema(schema["items"])
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        node.additional = compile_schema(additional)
    elif additional is True:
        node.preserve_unknown = True
    children = [*(node.properties or {}).values(), node.items, node.additional]
    node.defaults_below = any(
        c is not None and (c.has_default or c.defaults_below) for c in children
    )
    return node


@functools.cache
def compiled(rtype: ResourceType) -> Node | None:
    """The compiled schema of one served version (None: a built-in kind, or no schema)."""
    if rtype.builtin or not rtype.schema:
        return None
    return compile_schema(rtype.schema)


# --- decoding: pruning, nulls, defaults ---------------------------------------------------------


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _prune(value: Any, node: Node, path: str, unknown: list[str], *, root: bool) -> None:
    if isinstance(value, dict):
        keep = _ROOT_FIELDS if root or node.embedded else frozenset()
        if node.properties is not None:
            for key in list(value):
                child = node.properties.get(key)
                if key in keep:
                    continue  # the API server's own ObjectMeta handling, not the schema's
                if child is not None:
                    _prune(value[key], child, _join(path, key), unknown, root=False)
                elif node.additional is not None:
                    _prune(value[key], node.additional, _join(path, key), unknown, root=False)
                elif not node.preserve_unknown:
                    del value[key]
                    unknown.append(_join(path, key))
        elif node.additional is not None:
            for key, item in value.items():
                _prune(item, node.additional, _join(path, key), unknown, root=False)
        elif not node.preserve_unknown and node.type == "object":
            for key in [k for k in value if k not in keep]:
                del value[key]
                unknown.append(_join(path, key))
    elif isinstance(value, list) and node.items is not None:
        for i, item in enumerate(value):
            _prune(item, node.items, f"{path}[{i}]", unknown, root=False)


def _default(value: Any, node: Node) -> None:
    if isinstance(value, dict):
        if node.properties is not None:
            for key, child in node.properties.items():
                if key in value:
                    if value[key] is None and not child.nullable:
                        # Nulls of non-nullable fields go before defaulting (then get the default).
                        del value[key]
                    elif child.defaults_below:
                        _default(value[key], child)
                if key not in value and child.has_default:
                    value[key] = copy.deepcopy(child.default)
                    if child.defaults_below:
                        _default(value[key], child)
        if node.additional is not None and node.additional.defaults_below:
            for item in value.values():
                _default(item, node.additional)
    elif isinstance(value, list) and node.items is not None and node.items.defaults_below:
        for item in value:
            _default(item, node.items)


def decode(rtype: ResourceType, body: Obj, mode: str = "Warn") -> None:
    """Prune ``body`` (a write in ``rtype``'s version) to its schema and fill in defaults, in
    place; unknown fields are reported as ``mode`` says."""
    node = compiled(rtype)
    if node is None:
        return
    unknown: list[str] = []
    _prune(body, node, "", unknown, root=True)
    if unknown and mode == "Strict":
        fields = ", ".join(f'unknown field "{p}"' for p in unknown)
        raise apierrors.bad_request(
            f'{rtype.kind} in version "{rtype.version}" cannot be handled as a {rtype.kind}: '
            f"strict decoding error: {fields}"
        )
    if mode == "Warn":
        for path in unknown:
            warn(f'unknown field "{path}"')
    if node.defaults_below:
        _default(body, node)


# --- validation ---------------------------------------------------------------------------------

_JSON_TYPES: dict[type, str] = {
    dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"
}  # fmt: skip


def _type_name(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), "object")


def _type_ok(value: Any, node: Node) -> bool:
    if value is None:
        return node.nullable
    if node.int_or_string:
        return isinstance(value, (int, str)) and not isinstance(value, bool)
    actual = _type_name(value)
    if node.type == "number":
        return actual in ("integer", "number")
    if node.type == "integer" and isinstance(value, float):
        return value.is_integer()
    return not node.type or actual == node.type


def _bounds(value: Any, node: Node, path: str) -> list[Cause]:
    out: list[Cause] = []
    if node.minimum is not None:
        low = value <= node.minimum if node.exclusive_minimum else value < node.minimum
        if low:
            than = "greater than" if node.exclusive_minimum else "greater than or equal to"
            why = f"{path} in body should be {than} {go_value(node.minimum)}"
            out.append((path, "FieldValueInvalid", f"Invalid value: {go_value(value)}: {why}"))
    if node.maximum is not None:
        high = value >= node.maximum if node.exclusive_maximum else value > node.maximum
        if high:
            than = "less than" if node.exclusive_maximum else "less than or equal to"
            why = f"{path} in body should be {than} {go_value(node.maximum)}"
            out.append((path, "FieldValueInvalid", f"Invalid value: {go_value(value)}: {why}"))
    return out


def _validate(value: Any, node: Node, path: str, out: list[Cause]) -> None:
    if not _type_ok(value, node):
        actual = _type_name(value)
        why = f'{path} in body must be of type {node.type or "integer"}: "{actual}"'
        out.append((path, "FieldValueTypeInvalid", f'Invalid value: "{actual}": {why}'))
        return
    if value is None:
        return
    if node.enum is not None and value not in node.enum:
        choices = ", ".join(go_value(v) for v in node.enum)
        out.append(
            (
                path,
                "FieldValueNotSupported",
                f"Unsupported value: {go_value(value)}: supported values: {choices}",
            )
        )
    if isinstance(value, dict):
        for key in node.required:
            if key not in value:
                out.append((_join(path, key), "FieldValueRequired", "Required value"))
        properties = node.properties or {}
        for key, item in value.items():
            child = properties.get(key) or node.additional
            if child is not None:
                _validate(item, child, _join(path, key), out)
    elif isinstance(value, list):
        if node.min_items is not None and len(value) < node.min_items:
            why = f"{path} in body should have at least {node.min_items} items"
            out.append((path, "FieldValueInvalid", f"Invalid value: {len(value)}: {why}"))
        if node.items is not None:
            for i, item in enumerate(value):
                _validate(item, node.items, f"{path}[{i}]", out)
    elif isinstance(value, str):
        if node.pattern is not None and not node.pattern.search(value):
            why = f"{path} in body should match '{node.pattern_text}'"
            out.append((path, "FieldValueInvalid", f"Invalid value: {go_value(value)}: {why}"))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out += _bounds(value, node, path)


def validate(rtype: ResourceType, obj: Obj) -> list[Cause]:
    """The schema's causes against a stored object (its metadata is the API server's own)."""
    node = compiled(rtype)
    if node is None:
        return []
    out: list[Cause] = []
    properties = node.properties or {}
    for key, item in obj.items():
        child = properties.get(key)
        if child is not None and key not in _ROOT_FIELDS:
            _validate(item, child, key, out)
    for key in node.required:
        if key not in obj:
            out.append((key, "FieldValueRequired", "Required value"))
    return out
