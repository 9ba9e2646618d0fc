"""JSON merge patch (RFC 7386): maps merge, ``null`` deletes, anything else replaces (lists
too). Used by kubesim to apply ``application/merge-patch+json`` and by the job controller to
predict what a status patch will leave.

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
