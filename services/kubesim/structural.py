"""Structural schemas of custom resources, applied as the apiextensions server applies them.

On decoding a write, unknown fields are pruned (``fieldValidation``: ``Strict`` refuses them with
400, ``Warn``, the default, names each in a ``Warning``, ``Ignore`` drops them silently), nulls
of non-nullable fields are dropped and ``default`` values filled in; the stored object is then
checked against ``type``, ``enum``, ``required``, ``minimum``/``maximum``, ``minItems`` and
``pattern`` (422 Invalid, with the API server's messages).

Each served version's schema is compiled once into ``Node``s, and a write walks only the fields
its object has, so its cost follows the object, not the schema: Volcano's Job and the PyTorchJob
embed a whole PodTemplateSpec (over a thousand properties). Written by hand because no library
prunes and defaults Kubernetes' structural schemas (JSON Schema validators validate, but neither
prune nor default, and know none of the ``x-kubernetes-*`` extensions). Not applied: CEL rules
(``x-kubernetes-validations``), list-type uniqueness, formats, string lengths and ``maxItems``.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from services.kubesim import apierrors
from services.kubesim.apiwarnings import warn
from services.kubesim.resourcetype import ResourceType
from shared.kube.fielderrors import Cause, go_value

Obj = dict[str, Any]
# The fields every object (and an embedded resource) has outside its schema's properties.
_ROOT_FIELDS = frozenset({"apiVersion", "kind", "metadata"})

# A field's path, built as (parent, key) pairs and rendered only for a message.
Path = tuple[Any, str | int] | None
_EMPTY: frozenset[str] = frozenset()
_ACCEPTS: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float),
}  # fmt: skip


@dataclass(slots=True, eq=False)
class Node:
    """One schema node, reduced to what pruning, defaulting and validation read."""

    json_type: str = ""
    properties: dict[str, Node] = field(default_factory=dict)
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
    # Derived once: the Python types a value may have (None: any), whether the type is the only
    # check, and the properties whose subtree has a default (defaulting walks only those).
    accepts: tuple[type, ...] | None = None
    simple: bool = False
    defaulted: tuple[tuple[str, Node], ...] = ()
    defaults_below: bool = False


def compile_schema(schema: Obj) -> Node:
    node = Node(
        json_type=schema.get("type") or "",
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
    accepts = (int, str) if node.int_or_string else _ACCEPTS.get(node.json_type)
    node.accepts = (*accepts, type(None)) if accepts and node.nullable else accepts
    node.simple = (
        node.enum is None
        and node.pattern is None
        and node.minimum is None
        and node.maximum is None
        and node.min_items is None
        and not node.required
        and not node.properties
        and node.items is None
        and node.additional is None
    )
    node.defaulted = tuple(
        (k, c) for k, c in node.properties.items() if c.has_default or c.defaults_below
    )
    below = [c for c in (node.items, node.additional) if c is not None]
    node.defaults_below = bool(node.defaulted) or any(
        c.has_default or c.defaults_below for c in below
    )
    return node


@functools.cache
def compiled(rtype: ResourceType) -> Node | None:
    """The compiled schema of one served version (None: a built-in kind, or no schema)."""
    if rtype.builtin or not rtype.schema:
        return None
    return compile_schema(rtype.schema)


def render(path: Path) -> str:
    """``spec.tasks[0].template``, as apimachinery's ``field.Path`` prints it."""
    keys: list[str | int] = []
    while path is not None:
        path, key = path
        keys.append(key)
    out = ""
    for key in reversed(keys):
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out = f"{out}.{key}" if out else key
    return out


# --- decoding: pruning, nulls, defaults ---------------------------------------------------------


def _prune_field(value: Obj, key: str, child: Node, path: Path, unknown: list[str]) -> None:
    item = value[key]
    if item is None:
        if not child.nullable and not child.has_default:
            del value[key]  # a null of a non-nullable field: gone (or defaulted, below)
    elif type(item) is dict or type(item) is list:
        _prune(item, child, (path, key), unknown, _ROOT_FIELDS if child.embedded else _EMPTY)


def _prune(value: Any, node: Node, path: Path, unknown: list[str], keep: frozenset[str]) -> None:
    if type(value) is list:
        if node.items is not None:
            keep = _ROOT_FIELDS if node.items.embedded else _EMPTY
            for i, item in enumerate(value):
                if type(item) is dict or type(item) is list:
                    _prune(item, node.items, (path, i), unknown, keep)
        return
    if type(value) is not dict:
        return
    properties, additional = node.properties, node.additional
    if not properties and additional is None and node.json_type != "object":
        return
    for key in list(value):
        if key in keep:
            continue  # the API server's own ObjectMeta handling, not the schema's
        child = properties.get(key) or additional
        if child is not None:
            _prune_field(value, key, child, path, unknown)
        elif not node.preserve_unknown:
            del value[key]
            unknown.append(render((path, key)))


def _default(value: Any, node: Node) -> None:
    if type(value) is dict:
        for key, child in node.defaulted:
            item = value.get(key)
            if item is None:
                if not child.has_default or (key in value and child.nullable):
                    continue
                item = value[key] = copy.deepcopy(child.default)
            if child.defaults_below:
                _default(item, child)
        if node.additional is not None and node.additional.defaults_below:
            for item in value.values():
                _default(item, node.additional)
    elif type(value) is list and node.items is not None and node.items.defaults_below:
        for item in value:
            _default(item, node.items)


def decode(rtype: ResourceType, body: Obj, mode: str = "Warn") -> None:
    """Prune ``body`` (a write in ``rtype``'s version) to its schema and fill in defaults, in
    place; unknown fields are reported as ``mode`` says."""
    node = compiled(rtype)
    if node is None:
        return
    unknown: list[str] = []
    _prune(body, node, None, unknown, _ROOT_FIELDS)
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


def _bound(value: Any, path: Path, than: str, limit: float) -> Cause:
    where = render(path)
    why = f"{where} in body should be {than} {go_value(limit)}"
    return (where, "FieldValueInvalid", f"Invalid value: {go_value(value)}: {why}")


def _bounds(value: Any, node: Node, path: Path) -> list[Cause]:
    out: list[Cause] = []
    low, high = node.minimum, node.maximum
    if low is not None:
        if node.exclusive_minimum and value <= low:
            out.append(_bound(value, path, "greater than", low))
        elif value < low:
            out.append(_bound(value, path, "greater than or equal to", low))
    if high is not None:
        if node.exclusive_maximum and value >= high:
            out.append(_bound(value, path, "less than", high))
        elif value > high:
            out.append(_bound(value, path, "less than or equal to", high))
    return out


def _type_error(value: Any, node: Node, path: Path) -> Cause:
    where, actual = render(path), _type_name(value)
    wanted = node.json_type or "integer"  # int-or-string: kube-openapi names the first of its types
    why = f'{where} in body must be of type {wanted}: "{actual}"'
    return (where, "FieldValueTypeInvalid", f'Invalid value: "{actual}": {why}')


def _validate_children(value: Any, node: Node, path: Path, out: list[Cause]) -> None:
    if type(value) is dict:
        for key in node.required:
            if key not in value:
                out.append((render((path, key)), "FieldValueRequired", "Required value"))
        properties, additional = node.properties, node.additional
        for key, item in value.items():
            child = properties.get(key) or additional
            if child is not None and not (
                child.simple and (child.accepts is None or type(item) in child.accepts)
            ):
                _validate(item, child, (path, key), out)
    elif type(value) is list:
        if node.min_items is not None and len(value) < node.min_items:
            where = render(path)
            why = f"{where} in body should have at least {node.min_items} items"
            out.append((where, "FieldValueInvalid", f"Invalid value: {len(value)}: {why}"))
        child = node.items
        if child is not None:
            for i, item in enumerate(value):
                if not (child.simple and (child.accepts is None or type(item) in child.accepts)):
                    _validate(item, child, (path, i), out)


def _validate(value: Any, node: Node, path: Path, out: list[Cause]) -> None:
    accepts = node.accepts
    if accepts is not None and type(value) not in accepts:
        integral = node.json_type == "integer" and type(value) is float and value.is_integer()
        if not integral:
            out.append(_type_error(value, node, path))
            return
    if value is None:
        return
    if node.enum is not None and value not in node.enum:
        choices = ", ".join(go_value(v) for v in node.enum)
        message = f"Unsupported value: {go_value(value)}: supported values: {choices}"
        out.append((render(path), "FieldValueNotSupported", message))
    if type(value) is str:
        if node.pattern is not None and not node.pattern.search(value):
            where = render(path)
            why = f"{where} in body should match '{node.pattern_text}'"
            out.append((where, "FieldValueInvalid", f"Invalid value: {go_value(value)}: {why}"))
    elif type(value) is int or type(value) is float:
        if node.minimum is not None or node.maximum is not None:
            out += _bounds(value, node, path)
    else:
        _validate_children(value, node, path, out)


def validate(rtype: ResourceType, obj: Obj) -> list[Cause]:
    """The schema's causes against a stored object (its metadata is the API server's own)."""
    node = compiled(rtype)
    if node is None:
        return []
    out: list[Cause] = []
    for key, item in obj.items():
        child = node.properties.get(key)
        if child is not None and key not in _ROOT_FIELDS:
            _validate(item, child, (None, key), out)
    for key in node.required:
        if key not in obj:
            out.append((key, "FieldValueRequired", "Required value"))
    return out
