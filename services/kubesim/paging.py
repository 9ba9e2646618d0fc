"""List helpers: ``limit``/``continue`` pages and the ``spec.nodeName`` fast path."""

from __future__ import annotations

import base64
import heapq
from typing import Any

import msgspec

from services.kubesim.apierrors import ApiError

Obj = dict[str, Any]
_encode = msgspec.json.encode
_decode = msgspec.json.decode


def single_node_selector(text: str) -> str | None:
    """The node name of a field selector that is exactly ``spec.nodeName=<node>``."""
    if "," in text or "!" in text:
        return None
    path, sep, value = text.replace("==", "=").partition("=")
    if sep and path.strip() == "spec.nodeName" and value.strip():
        return value.strip()
    return None


def page(objects: list[Obj], limit: int, token: str, rv: str) -> tuple[list[Obj], Obj]:
    """One page in (namespace, name) order; the continue token carries the last key."""
    start: tuple[str, str] = ("", "")
    if token:
        try:
            state = _decode(base64.urlsafe_b64decode(token.encode()))
            start = (state["start"][0], state["start"][1])
            rv = state["rv"]
        except (ValueError, KeyError, TypeError, IndexError, msgspec.DecodeError) as exc:
            raise ApiError(
                410, "the provided continue parameter is too old or malformed", reason="Expired"
            ) from exc

    def key(o: Obj) -> tuple[str, str]:
        return (o["metadata"].get("namespace", ""), o["metadata"]["name"])

    rest = [o for o in objects if key(o) > start] if token else objects
    page = heapq.nsmallest(limit + 1, rest, key=key) if limit else sorted(rest, key=key)
    metadata: Obj = {"resourceVersion": rv}
    if limit and len(page) > limit:
        page = page[:limit]
        last = key(page[-1])
        metadata["continue"] = base64.urlsafe_b64encode(
            _encode({"rv": rv, "start": list(last)})
        ).decode()
        metadata["remainingItemCount"] = len(rest) - limit
    return page, metadata
