"""The three patch formats of the API server, as pure functions over plain dicts.

- JSON merge patch (RFC 7386): ``shared.kube.patch.merge_patch``.
- Strategic merge patch (built-in kinds only): as merge patch, but lists named in
  ``MERGE_KEYS`` merge element-wise by their key, ``finalizers`` merge as a set, and the
  ``$patch: delete|replace`` and ``$deleteFromPrimitiveList/<field>`` directives work.
- JSON patch (RFC 6902): add, remove, replace, move, copy, test.

Inputs are never mutated; unchanged subtrees are shared with the original.
"""

from __future__ import annotations

from typing import Any

import msgspec

# Field name → merge key of its elements (the patchMergeKey tags of the core types).
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "conditions": "type",
    "containerStatuses": "name",
    "initContainerStatuses": "name",
    "ephemeralContainerStatuses": "name",
    "ownerReferences": "uid",
    "addresses": "type",
    "podIPs": "ip",
    "hostIPs": "ip",
    "resourceClaims": "name",
}
# Lists of scalars merged as sets (patchStrategy "merge" on a primitive list).
SET_LISTS = frozenset({"finalizers"})
_DELETE_PRIMITIVE = "$deleteFromPrimitiveList/"
_IGNORED_DIRECTIVE_PREFIXES = ("$setElementOrder/", "$retainKeys")


class PatchError(ValueError):
    """A patch that cannot be applied; reported as 400, or 422 for a failed ``test``."""

    def __init__(self, message: str, *, code: int = 400) -> None:
        super().__init__(message)
        self.code = code


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return patch
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: v for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    if directive is not None:
        raise PatchError(f"unknown patch directive {directive!r}")
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith(_IGNORED_DIRECTIVE_PREFIXES):
            continue
        if key.startswith(_DELETE_PRIMITIVE):
            name = key[len(_DELETE_PRIMITIVE) :]
            drop = set(value or [])
            result[name] = [v for v in result.get(name) or [] if v not in drop]
            continue
        if value is None:
            result.pop(key, None)
            continue
        current = result.get(key)
        if isinstance(value, list):
            result[key] = _merge_list(key, current, value)
        elif isinstance(value, dict):
            merged = strategic_merge_patch(current, value)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        else:
            result[key] = value
    return result


def _merge_list(field: str, current: Any, patch: list[Any]) -> list[Any]:
    if any(isinstance(v, dict) and v.get("$patch") == "replace" for v in patch):
        return [v for v in patch if not (isinstance(v, dict) and v.get("$patch") == "replace")]
    if field in SET_LISTS:
        out = list(current or [])
        out.extend(v for v in patch if v not in out)
        return out
    key = MERGE_KEYS.get(field)
    if field == "ports":  # containers merge ports by containerPort, services by port
        key = "containerPort" if any("containerPort" in p for p in patch) else "port"
    if key is None or not isinstance(current, list):
        return [v for v in patch if not (isinstance(v, dict) and "$patch" in v)]
    out = list(current)
    index = {item.get(key): i for i, item in enumerate(out) if isinstance(item, dict)}
    deleted: set[int] = set()
    for element in patch:
        if not isinstance(element, dict) or key not in element:
            raise PatchError(f"missing merge key {key!r} in an element of {field}")
        at = index.get(element[key])
        if element.get("$patch") == "delete":
            if at is not None:
                deleted.add(at)
            continue
        if at is None:
            index[element[key]] = len(out)
            out.append({k: v for k, v in element.items() if k != "$patch"})
        else:
            out[at] = strategic_merge_patch(out[at], element)
    return [item for i, item in enumerate(out) if i not in deleted]


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _walk(doc: Any, parts: list[str], path: str) -> Any:
    node = doc
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise PatchError(f"path {path!r} does not exist")
    return node


def _add(doc: Any, path: str, value: Any) -> Any:
    parts = _pointer(path)
    if not parts:
        return value
    parent = _walk(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            parent.insert(int(last), value)
        else:
            raise PatchError(f"index out of range in {path!r}")
    else:
        raise PatchError(f"path {path!r} does not name a container")
    return doc


def _remove(doc: Any, path: str) -> Any:
    parts = _pointer(path)
    if not parts:
        raise PatchError("cannot remove the whole document")
    parent = _walk(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise PatchError(f"path {path!r} does not exist")


def json_patch(target: Any, operations: Any) -> Any:
    """RFC 6902 over a private copy of ``target``."""
    if not isinstance(operations, list):
        raise PatchError("a JSON patch must be a list of operations")
    doc = msgspec.json.decode(msgspec.json.encode(target))
    for op in operations:
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise PatchError(f"invalid JSON patch operation {op!r}")
        kind, path = op["op"], op["path"]
        if kind == "add":
            doc = _add(doc, path, op.get("value"))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            _walk(doc, _pointer(path), path)
            if _pointer(path):
                _remove(doc, path)
            doc = _add(doc, path, op.get("value"))
        elif kind in ("move", "copy"):
            source = op.get("from", "")
            value = _walk(doc, _pointer(source), source)
            if kind == "move":
                _remove(doc, source)
            else:
                value = msgspec.json.decode(msgspec.json.encode(value))
            doc = _add(doc, path, value)
        elif kind == "test":
            if _walk(doc, _pointer(path), path) != op.get("value"):
                raise PatchError(f"test failed at {path!r}", code=422)
        else:
            raise PatchError(f"unknown JSON patch operation {kind!r}")
    return doc
