"""``meta.k8s.io/v1`` Table output, which kubectl asks for when it prints (``kubectl get``)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import msgspec

from services.kubesim.registry import ResourceType
from shared.kube.timefmt import parse_rfc3339

Obj = dict[str, Any]


def _column(name: str, type_: str = "string", priority: int = 0, fmt: str = "") -> Obj:
    return {"name": name, "type": type_, "format": fmt, "description": name, "priority": priority}


_DEFAULT = [_column("Name", fmt="name"), _column("Age")]
_PODS = [
    _column("Name", fmt="name"),
    _column("Ready"),
    _column("Status"),
    _column("Restarts", "string"),
    _column("Age"),
    _column("IP", priority=1),
    _column("Node", priority=1),
]
_NODES = [
    _column("Name", fmt="name"),
    _column("Status"),
    _column("Roles"),
    _column("Age"),
    _column("Version"),
]


def age(timestamp: str | None, now: float) -> str:
    at = parse_rfc3339(timestamp)
    if at is None:
        return "<unknown>"
    seconds = max(0, int(now - at))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * 2:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _pod_status(pod: Obj) -> str:
    if pod["metadata"].get("deletionTimestamp"):
        return "Terminating"
    status = pod.get("status") or {}
    if status.get("reason"):
        return str(status["reason"])
    for container in status.get("containerStatuses") or ():
        state = container.get("state") or {}
        for kind in ("waiting", "terminated"):
            reason = (state.get(kind) or {}).get("reason")
            if reason:
                return str(reason)
    return str(status.get("phase", "Pending"))


def _cells(rtype: ResourceType, obj: Obj, now: float) -> list[Any]:
    meta = obj["metadata"]
    created = age(meta.get("creationTimestamp"), now)
    if rtype.kind == "Pod" and not rtype.group:
        status = obj.get("status") or {}
        containers = status.get("containerStatuses") or []
        ready = sum(1 for c in containers if c.get("ready"))
        total = len(obj.get("spec", {}).get("containers") or [])
        restarts = sum(int(c.get("restartCount", 0)) for c in containers)
        return [
            meta["name"],
            f"{ready}/{total}",
            _pod_status(obj),
            str(restarts),
            created,
            status.get("podIP", "<none>"),
            obj.get("spec", {}).get("nodeName", "<none>"),
        ]
    if rtype.kind == "Node" and not rtype.group:
        conditions = (obj.get("status") or {}).get("conditions") or []
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        version = ((obj.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion", "")
        return [meta["name"], "Ready" if ready else "NotReady", "<none>", created, version]
    return [meta["name"], created]


def columns(rtype: ResourceType) -> list[Obj]:
    if not rtype.group and rtype.kind == "Pod":
        return _PODS
    if not rtype.group and rtype.kind == "Node":
        return _NODES
    return _DEFAULT


def table(rtype: ResourceType, objects: Iterable[Obj], rv: str, now: float) -> Obj:
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": rv},
        "columnDefinitions": columns(rtype),
        "rows": [{"cells": _cells(rtype, obj, now), "object": obj} for obj in objects],
    }


def wants_table(accept: str) -> bool:
    return "as=Table" in accept


def table_renderer(rtype: ResourceType) -> Any:
    """A watch renderer: each event's object becomes a one-row Table."""
    encode = msgspec.json.encode

    def render(type_: str, obj: Obj) -> bytes:
        rv = obj["metadata"].get("resourceVersion", "")
        return encode(table(rtype, [obj], rv, time.time()))

    return render
