"""A mutation as an RFC 6902 JSON Patch, the ``patchType: JSONPatch`` an admission webhook
answers with: the operations that turn the object as sent into the object as mutated.

Upstream's webhooks build their patches by hand, one ``add``/``replace`` per defaulted field;
the object a patch yields is what the API server stores, so the core mutates a copy and derives
the patch from the two objects. Lists are replaced whole (as upstream replaces ``/spec/tasks``).
"""

from __future__ import annotations

from typing import Any

Operation = dict[str, Any]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def diff(old: Any, new: Any, path: str = "") -> list[Operation]:
    """The operations that turn ``old`` into ``new`` (empty when they are equal)."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[Operation] = []
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in new.items():
            child = f"{path}/{_escape(key)}"
            if key not in old:
                ops.append({"op": "add", "path": child, "value": value})
            elif old[key] != value or type(old[key]) is not type(value):
                ops.extend(diff(old[key], value, child))
        return ops
    if old == new and type(old) is type(new):
        return []
    return [{"op": "replace", "path": path, "value": new}]
