"""Label and field selectors, parsed once into predicates over plain-dict objects.

Label selectors follow ``k8s.io/apimachinery/pkg/labels``: ``=``, ``==``, ``!=``, ``in``,
``notin``, ``key`` (exists) and ``!key``. Field selectors support ``=``, ``==`` and ``!=`` over the
field labels each kind registers (a missing field compares as the empty string, so
``spec.nodeName=`` selects unbound pods).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Obj = dict[str, Any]
Predicate = Callable[[Obj], bool]

_COMMON_FIELDS = frozenset({"metadata.name", "metadata.namespace"})
FIELD_LABELS: dict[str, frozenset[str]] = {
    "Pod": _COMMON_FIELDS
    | {
        "spec.nodeName",
        "spec.schedulerName",
        "spec.restartPolicy",
        "spec.serviceAccountName",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    },
    "Node": _COMMON_FIELDS | {"spec.unschedulable"},
    "Event": _COMMON_FIELDS
    | {
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    },
    "Namespace": _COMMON_FIELDS | {"status.phase"},
    "Job": _COMMON_FIELDS | {"status.successful"},
}

_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_SET_RE = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s+\(([^)]*)\)\s*$")
_EXISTS_RE = re.compile(rf"^\s*(!?)\s*({_KEY})\s*$")
_EQ_RE = re.compile(rf"^\s*({_KEY})\s*(==|!=|=)\s*([-A-Za-z0-9_.]*)\s*$")


class SelectorError(ValueError):
    """A selector that does not parse; the message is the one returned with 400."""


def _split_requirements(text: str) -> list[str]:
    """Split on commas that are not inside ``( ... )``."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _label_requirement(text: str) -> Callable[[dict[str, str]], bool]:
    if match := _SET_RE.match(text):
        key, op, raw = match.group(1), match.group(3), match.group(4)
        values = frozenset(v.strip() for v in raw.split(",") if v.strip())
        if op == "in":
            return lambda labels: labels.get(key) in values
        return lambda labels: labels.get(key) not in values
    if match := _EQ_RE.match(text):
        key, op, value = match.group(1), match.group(3), match.group(4)
        if op == "!=":
            return lambda labels: labels.get(key) != value
        return lambda labels: labels.get(key) == value
    if match := _EXISTS_RE.match(text):
        negate, key = match.group(1), match.group(2)
        if negate:
            return lambda labels: key not in labels
        return lambda labels: key in labels
    raise SelectorError(f"unable to parse requirement: {text.strip()!r}")


def parse_label_selector(text: str) -> Predicate | None:
    """A predicate over objects, or None when the selector selects everything."""
    requirements = [_label_requirement(part) for part in _split_requirements(text)]
    if not requirements:
        return None

    def matches(obj: Obj) -> bool:
        labels = obj.get("metadata", {}).get("labels") or {}
        return all(req(labels) for req in requirements)

    return matches


def field_value(obj: Obj, path: str) -> str:
    node: Any = obj
    for part in path.split("."):
        if not isinstance(node, dict):
            return ""
        node = node.get(part)
    if node is None:
        return ""
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def parse_field_selector(text: str, kind: str) -> Predicate | None:
    """A predicate over objects of ``kind``, or None when the selector selects everything."""
    allowed = FIELD_LABELS.get(kind, _COMMON_FIELDS)
    checks: list[tuple[str, bool, str]] = []
    for part in _split_requirements(text):
        op = "!=" if "!=" in part else ("==" if "==" in part else "=")
        if op not in part:
            raise SelectorError(f"invalid selector: {part.strip()!r}; can't understand it")
        path, _, value = part.partition(op)
        path = path.strip()
        if path not in allowed:
            raise SelectorError(f'field label not supported: "{path}"')
        checks.append((path, op == "!=", value.strip()))
    if not checks:
        return None

    def matches(obj: Obj) -> bool:
        return all((field_value(obj, path) != value) == negate for path, negate, value in checks)

    return matches


def combine(*predicates: Predicate | None) -> Predicate | None:
    active = [p for p in predicates if p is not None]
    if not active:
        return None
    if len(active) == 1:
        return active[0]
    return lambda obj: all(p(obj) for p in active)
