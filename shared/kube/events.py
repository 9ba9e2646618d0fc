"""core/v1 Event manifests: how Shoal tells ``kubectl describe`` what it did to an object.

One Event per occurrence (``count`` 1, first = last timestamp), named by the API server from
``<object name>.`` as client-go's recorder names them, in the object's namespace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.kube.keys import DEFAULT_NAMESPACE
from shared.kube.timefmt import format_rfc3339

# The API server rejects longer Event messages; a reconcile error can quote a whole spec.
MAX_MESSAGE = 1024


def involved_object(obj: Mapping[str, Any]) -> dict[str, str]:
    """The ObjectReference of an API object (its apiVersion, kind and metadata)."""
    meta = obj.get("metadata") or {}
    return {
        "apiVersion": obj.get("apiVersion", ""),
        "kind": obj.get("kind", ""),
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace") or DEFAULT_NAMESPACE,
        "uid": meta.get("uid", ""),
    }


def event_manifest(
    involved: Mapping[str, str],
    *,
    type_: str,
    reason: str,
    message: str,
    component: str,
    now: float,
) -> dict[str, Any]:
    """An Event about ``involved`` (``type_``: ``Normal`` or ``Warning``) at Unix time ``now``."""
    stamp = format_rfc3339(now)
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "generateName": f"{involved.get('name') or 'object'}.",
            "namespace": involved.get("namespace") or DEFAULT_NAMESPACE,
        },
        "involvedObject": dict(involved),
        "reason": reason,
        "message": message[:MAX_MESSAGE],
        "type": type_,
        "count": 1,
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "source": {"component": component},
        "reportingComponent": component,
    }
