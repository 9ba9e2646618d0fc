"""JSON merge patch (RFC 7386): maps merge, ``null`` deletes, anything else replaces (lists
too). Used by kubesim to apply ``application/merge-patch+json``; ``merge_diff`` is its inverse,
with which the job controller writes a whole new status as the patch from the cached one.

Inputs are never mutated; unchanged subtrees are shared with the original.
"""

from __future__ import annotations

from typing import Any


def merge_patch(target: Any, patch: Any) -> Any:
    """``patch`` applied onto ``target`` (RFC 7386 ``MergePatch``)."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def merge_diff(old: Any, new: Any) -> Any:
    """The RFC 7386 merge patch that turns ``old`` into ``new``: changed keys with their new
    value (dicts recursively), ``None`` for keys ``new`` lacks; ``{}`` when they are equal."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    patch: dict[str, Any] = {key: None for key in old if key not in new}
    for key, value in new.items():
        if key not in old:
            patch[key] = value
        elif old[key] != value:
            patch[key] = merge_diff(old[key], value)
    return patch
