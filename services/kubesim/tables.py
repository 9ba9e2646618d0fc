"""``meta.k8s.io/v1`` Table output, which kubectl asks for when it prints (``kubectl get``).

Built-in kinds get the columns of Kubernetes' printers (pkg/printers/internalversion/printers.go:
pods, nodes, batch Jobs and CronJobs, NetworkPolicies); custom resources get their CRD's
additionalPrinterColumns, evaluated as the apiextensions server's table convertor does (Name
first; ``Age`` when a CRD has none).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import msgspec

from services.kubesim import jsonpath
from services.kubesim.registry import ResourceType
from shared.kube.timefmt import parse_rfc3339

Obj = dict[str, Any]


def _column(
    name: str, type_: str = "string", priority: int = 0, fmt: str = "", description: str = ""
) -> Obj:
    return {
        "name": name,
        "type": type_,
        "format": fmt,
        "description": description or name,
        "priority": priority,
    }


_NAME = _column("Name", fmt="name")
_AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
_DEFAULT = [_NAME, _column("Age")]
_JOBS = [
    _NAME,
    _column("Status", description="Status of the job."),
    _column("Completions"),
    _column("Duration", description="Time required to complete the job."),
    _column("Age"),
    _column("Containers", priority=1),
    _column("Images", priority=1),
    _column("Selector", priority=1),
]
_CRON_JOBS = [
    _NAME,
    _column("Schedule"),
    _column("Timezone"),
    _column("Suspend", "boolean"),
    _column("Active", "integer"),
    _column("Last Schedule"),
    _column("Age"),
    _column("Containers", priority=1),
    _column("Images", priority=1),
    _column("Selector", priority=1),
]
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
_NETWORK_POLICIES = [
    _NAME,
    _column(
        "Pod-Selector",
        description="Selects the pods to which this NetworkPolicy object applies. ...",
    ),
    _column("Age"),
]


def human_duration(seconds_float: float) -> str:
    """A short duration as kubectl shows ages (the largest unit used at least twice)."""
    seconds = max(0, int(seconds_float))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * 2:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def age(timestamp: str | None, now: float) -> str:
    at = parse_rfc3339(timestamp)
    if at is None:
        return "<unknown>"
    return human_duration(now - at)


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


def _node_status(node: Obj) -> str:
    conditions = (node.get("status") or {}).get("conditions") or []
    ready = [c for c in conditions if c.get("type") == "Ready"]
    status = (
        ["Unknown"] if not ready else ["Ready" if ready[0].get("status") == "True" else "NotReady"]
    )
    if (node.get("spec") or {}).get("unschedulable"):
        status.append("SchedulingDisabled")
    return ",".join(status)


def _node_roles(node: Obj) -> str:
    roles = set()
    for key, value in (node["metadata"].get("labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key != "node-role.kubernetes.io/":
            roles.add(key.removeprefix("node-role.kubernetes.io/"))
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    return ",".join(sorted(roles)) or "<none>"


def _condition(obj: Obj, type_: str) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == type_ and c.get("status") == "True" for c in conditions)


def _job_status(job: Obj) -> str:
    if _condition(job, "Complete"):
        return "Complete"
    if _condition(job, "Failed"):
        return "Failed"
    if job["metadata"].get("deletionTimestamp"):
        return "Terminating"
    if _condition(job, "Suspended"):
        return "Suspended"
    if _condition(job, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def _job_completions(job: Obj) -> str:
    spec, succeeded = job.get("spec") or {}, (job.get("status") or {}).get("succeeded", 0)
    if spec.get("completions") is not None:
        return f"{succeeded}/{spec['completions']}"
    parallelism = spec.get("parallelism") or 0
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def _job_duration(job: Obj, now: float) -> str:
    status = job.get("status") or {}
    start = parse_rfc3339(status.get("startTime"))
    if start is None:
        return ""
    end = parse_rfc3339(status.get("completionTime"))
    return human_duration((end if end is not None else now) - start)


def _job_cells(job: Obj, created: str, now: float) -> list[Any]:
    spec = job.get("spec") or {}
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    match = ((spec.get("selector") or {}).get("matchLabels")) or {}
    return [
        job["metadata"]["name"],
        _job_status(job),
        _job_completions(job),
        _job_duration(job, now),
        created,
        ",".join(c.get("name", "") for c in containers),
        ",".join(c.get("image", "") for c in containers),
        ",".join(f"{k}={v}" for k, v in sorted(match.items())),
    ]


def _cron_job_cells(cj: Obj, created: str, now: float) -> list[Any]:
    """``printCronJob``: the suspend flag as ``printBoolPtr`` prints it, ages since now."""
    spec, status = cj.get("spec") or {}, cj.get("status") or {}
    template = (spec.get("jobTemplate") or {}).get("spec") or {}
    containers = ((template.get("template") or {}).get("spec") or {}).get("containers") or []
    suspend = spec.get("suspend")
    last = status.get("lastScheduleTime")
    return [
        cj["metadata"]["name"],
        spec.get("schedule", ""),
        spec.get("timeZone") or "<none>",
        "<unset>" if suspend is None else ("True" if suspend else "False"),
        len(status.get("active") or []),
        age(last, now) if last else "<none>",
        created,
        ",".join(c.get("name", "") for c in containers),
        ",".join(c.get("image", "") for c in containers),
        format_label_selector(template.get("selector")),
    ]


def format_label_selector(selector: Obj | None) -> str:
    """``metav1.FormatLabelSelector``: requirements sorted by key, ``<none>`` when empty."""
    selector = selector or {}
    parts = [(k, f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
        if op == "Exists":
            parts.append((key, key))
        elif op == "DoesNotExist":
            parts.append((key, f"!{key}"))
        else:
            word = "in" if op == "In" else "notin"
            parts.append((key, f"{key} {word} ({','.join(sorted(values))})"))
    return ",".join(text for _, text in sorted(parts)) or "<none>"


def _printed(column: Obj, obj: Obj, now: float) -> Any:
    """One custom column's cell, typed as the table convertor's ``cellForJSONValue``."""
    try:
        found = jsonpath.find(obj, column.get("jsonPath", ""))
    except jsonpath.JsonPathError:
        return None
    if not found or found[0] is None:
        return None
    value, kind = found[0], column.get("type", "string")
    if kind == "string":
        return value if isinstance(value, str) else msgspec.json.encode(value).decode()
    if kind == "integer" and isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        return age(value, now) if parse_rfc3339(value) is not None else "<invalid>"
    return None


def _printer_columns(rtype: ResourceType) -> tuple[Obj, ...]:
    return rtype.printer_columns or (_AGE,)


def _cells(rtype: ResourceType, obj: Obj, now: float) -> list[Any]:
    meta = obj["metadata"]
    created = age(meta.get("creationTimestamp"), now)
    if not rtype.builtin:
        return [meta["name"], *(_printed(c, obj, now) for c in _printer_columns(rtype))]
    if rtype.kind == "Job" and rtype.group == "batch":
        return _job_cells(obj, created, now)
    if rtype.kind == "CronJob" and rtype.group == "batch":
        return _cron_job_cells(obj, created, now)
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
    if rtype.kind == "NetworkPolicy" and rtype.group == "networking.k8s.io":
        selector = (obj.get("spec") or {}).get("podSelector")
        return [meta["name"], format_label_selector(selector), created]
    if rtype.kind == "Node" and not rtype.group:
        version = ((obj.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion", "")
        return [meta["name"], _node_status(obj), _node_roles(obj), created, version]
    return [meta["name"], created]


def columns(rtype: ResourceType) -> list[Obj]:
    if not rtype.builtin:
        return [
            _NAME,
            *(
                _column(
                    c["name"],
                    c.get("type", "string"),
                    c.get("priority", 0),
                    c.get("format", ""),
                    c.get("description")
                    or f"Custom resource definition column (in JSONPath format): {c['jsonPath']}",
                )
                for c in _printer_columns(rtype)
            ),
        ]
    if rtype.kind == "Job" and rtype.group == "batch":
        return _JOBS
    if rtype.kind == "CronJob" and rtype.group == "batch":
        return _CRON_JOBS
    if not rtype.group and rtype.kind == "Pod":
        return _PODS
    if not rtype.group and rtype.kind == "Node":
        return _NODES
    if rtype.group == "networking.k8s.io" and rtype.kind == "NetworkPolicy":
        return _NETWORK_POLICIES
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
