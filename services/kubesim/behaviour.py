"""What a simulated container does, and the pod statuses a kubelet reports: a pure core.

A pod's behaviour comes from its annotations (see README.md):

- ``sim.shoal.io/start-delay``: time from bind to Running (default: the kubelet's setting);
- ``sim.shoal.io/duration``: run time of each container run; absent = runs until deleted;
- ``sim.shoal.io/exit-code``: exit code when the run ends (default 0);
- ``sim.shoal.io/fail-attempts``: the first N runs exit with code 1, later ones with exit-code.

``duration`` and ``exit-code`` may be comma-separated lists: one value per Indexed Job
completion index, repeated cyclically, so one template behaves per index as upstream examples
do (``exit-code: 1,0`` fails the even indexes).

Statuses are built as fresh dicts from the previous status and the clock's timestamp.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from shared.resources import EMPTY, Resources

Obj = dict[str, Any]
START_DELAY = "sim.shoal.io/start-delay"
DURATION = "sim.shoal.io/duration"
EXIT_CODE = "sim.shoal.io/exit-code"
FAIL_ATTEMPTS = "sim.shoal.io/fail-attempts"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|us|µs|ns|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds from a Go-style duration (``1m30s``, ``250ms``) or a plain number of seconds."""
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    pos, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text:
        raise ValueError(f"invalid duration {text!r}")
    return total


@dataclass(frozen=True, slots=True)
class Behaviour:
    start_delay: float
    duration: float | None
    exit_code: int
    fail_attempts: int

    def exit_code_of_run(self, run: int) -> int:
        """Exit code of the run numbered from 0."""
        return 1 if run < self.fail_attempts else self.exit_code


def behaviour_of(pod: Obj, *, default_start_delay: float) -> Behaviour:
    """Read the annotations; malformed values fall back to the defaults."""
    notes = pod["metadata"].get("annotations") or {}

    def seconds(name: str) -> float | None:
        raw = per_index(notes.get(name))
        if raw is None:
            return None
        try:
            return parse_duration(raw)
        except ValueError:
            return None

    def integer(name: str, default: int) -> int:
        try:
            return int(notes.get(name, default))
        except (TypeError, ValueError):
            return default

    def per_index(raw: object) -> str | None:
        if raw is None:
            return None
        values = str(raw).split(",")
        try:
            index = max(int(notes.get(COMPLETION_INDEX, 0)), 0)
        except (TypeError, ValueError):
            index = 0
        return values[index % len(values)]

    def exit_code() -> int:
        try:
            return int(per_index(notes.get(EXIT_CODE, "0")) or 0)
        except ValueError:
            return 0

    start = seconds(START_DELAY)
    return Behaviour(
        start_delay=default_start_delay if start is None else start,
        duration=seconds(DURATION),
        exit_code=exit_code(),
        fail_attempts=max(0, integer(FAIL_ATTEMPTS, 0)),
    )


def pod_requests(pod: Obj) -> Resources:
    """Effective requests: sum of containers, at least the largest init container, + overhead."""
    spec = pod.get("spec") or {}
    total = EMPTY
    for container in spec.get("containers") or ():
        total = total + _container_requests(container)
    for container in spec.get("initContainers") or ():
        total = total.max_with(_container_requests(container))
    overhead = spec.get("overhead")
    if overhead:
        total = total + Resources.from_list(overhead)
    return total


def _container_requests(container: Obj) -> Resources:
    resources = container.get("resources") or {}
    merged = dict(resources.get("limits") or {})
    merged.update(resources.get("requests") or {})
    return Resources.from_list(merged)


def admission_failure(
    requests: Resources, used: Resources, allocatable: Resources, pods_used: int
) -> tuple[str, str] | None:
    """Kubelet admission: (reason, message) when the pod does not fit on the node."""
    pod_limit = allocatable["pods"] // 1000
    if pod_limit and pods_used + 1 > pod_limit:
        return "OutOfpods", (
            f"Pod was rejected: Node didn't have enough resource: pods, requested: 1, "
            f"used: {pods_used}, capacity: {pod_limit}"
        )
    for name, amount in requests.items():
        if name == "pods" or amount <= 0:
            continue
        if used[name] + amount > allocatable[name]:
            scale = 1 if name == "cpu" else 1000
            return f"OutOf{name}", (
                f"Pod was rejected: Node didn't have enough resource: {name}, requested: "
                f"{amount // scale}, used: {used[name] // scale}, capacity: "
                f"{allocatable[name] // scale}"
            )
    return None


def _condition(type_: str, value: bool, now: str, reason: str = "") -> Obj:
    cond: Obj = {
        "type": type_,
        "status": "True" if value else "False",
        "lastProbeTime": None,
        "lastTransitionTime": now,
    }
    if reason:
        cond["reason"] = reason
    return cond


def _container_names(pod: Obj) -> list[tuple[str, str]]:
    return [(c["name"], c.get("image", "")) for c in pod["spec"].get("containers") or ()]


# The pod conditions the kubelet owns; others (DisruptionTarget, readiness gates) are kept.
_KUBELET_CONDITIONS = frozenset(
    {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}
)


def _base(pod: Obj, phase: str, now: str, ready: bool, reason: str, host_ip: str) -> Obj:
    old = pod.get("status") or {}
    foreign = [c for c in old.get("conditions") or () if c.get("type") not in _KUBELET_CONDITIONS]
    status: Obj = {
        "phase": phase,
        "conditions": [
            _condition("PodReadyToStartContainers", True, now),
            _condition("Initialized", True, now),
            _condition("Ready", ready, now, reason),
            _condition("ContainersReady", ready, now, reason),
            _condition("PodScheduled", True, now),
            *foreign,
        ],
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "startTime": old.get("startTime", now),
        "qosClass": old.get("qosClass", "BestEffort"),
    }
    if old.get("podIP"):
        status["podIP"] = old["podIP"]
        status["podIPs"] = old.get("podIPs", [{"ip": old["podIP"]}])
    return status


def running_status(pod: Obj, *, now: str, host_ip: str, pod_ip: str, restarts: int) -> Obj:
    status = _base(pod, "Running", now, True, "", host_ip)
    status["podIP"] = pod_ip
    status["podIPs"] = [{"ip": pod_ip}]
    previous = {c["name"]: c for c in (pod.get("status") or {}).get("containerStatuses") or ()}
    uid = pod["metadata"]["uid"]
    status["containerStatuses"] = [
        {
            "name": name,
            "image": image,
            "imageID": "",
            "containerID": f"sim://{uid}-{name}-{restarts}",
            "ready": True,
            "started": True,
            "restartCount": restarts,
            "state": {"running": {"startedAt": now}},
            "lastState": previous.get(name, {}).get("lastState", {}),
        }
        for name, image in _container_names(pod)
    ]
    return status


def _terminated(pod: Obj, exit_code: int, now: str, restarts: int) -> Obj:
    uid = pod["metadata"]["uid"]
    started = now
    for c in (pod.get("status") or {}).get("containerStatuses") or ():
        started = c.get("state", {}).get("running", {}).get("startedAt", started)
    return {
        "exitCode": exit_code,
        "reason": "Completed" if exit_code == 0 else "Error",
        "startedAt": started,
        "finishedAt": now,
        "containerID": f"sim://{uid}-{restarts}",
    }


def exited_status(
    pod: Obj, *, exit_code: int, now: str, host_ip: str, restarts: int, restart: bool
) -> Obj:
    """After a run ends: terminal (Succeeded/Failed), or waiting to restart in place."""
    terminated = _terminated(pod, exit_code, now, restarts)
    if restart:
        status = _base(pod, "Running", now, False, "ContainersNotReady", host_ip)
        waiting = "CrashLoopBackOff" if exit_code else "Completed"
        states = {"waiting": {"reason": waiting}}
        last: Obj = {"terminated": terminated}
        count = restarts + 1
    else:
        phase = "Succeeded" if exit_code == 0 else "Failed"
        status = _base(pod, phase, now, False, "PodCompleted", host_ip)
        states = {"terminated": terminated}
        last = {}
        count = restarts
    status["containerStatuses"] = [
        {
            "name": name,
            "image": image,
            "imageID": "",
            "containerID": terminated["containerID"],
            "ready": False,
            "started": False,
            "restartCount": count,
            "state": states,
            "lastState": last,
        }
        for name, image in _container_names(pod)
    ]
    return status


# What a container killed at the end of its grace period exits with (SIGKILL).
KILLED_EXIT_CODE = 137


def killed_status(pod: Obj, *, now: str, host_ip: str, restarts: int) -> Obj:
    """A deleted pod whose containers were stopped: terminal, as the kubelet reports it before
    the pod object goes (since Kubernetes 1.27 a deleted pod ends Failed unless it succeeded)."""
    return exited_status(
        pod, exit_code=KILLED_EXIT_CODE, now=now, host_ip=host_ip, restarts=restarts, restart=False
    )


def disruption_condition(reason: str, message: str, now: str) -> Obj:
    """``DisruptionTarget``: why the pod is being deleted (eviction, PodGC, preemption)."""
    cond = _condition("DisruptionTarget", True, now, reason)
    cond["message"] = message
    return cond


def with_condition(pod: Obj, cond: Obj) -> Obj:
    """The pod's status with ``cond`` set (replacing one of its type)."""
    status = dict(pod.get("status") or {})
    others = [c for c in status.get("conditions") or () if c.get("type") != cond["type"]]
    status["conditions"] = [*others, cond]
    return status


def rejected_status(pod: Obj, *, reason: str, message: str) -> Obj:
    old = pod.get("status") or {}
    status: Obj = {
        "phase": "Failed",
        "reason": reason,
        "message": message,
        "conditions": old.get("conditions", []),
        "qosClass": old.get("qosClass", "BestEffort"),
    }
    if "startTime" in old:
        status["startTime"] = old["startTime"]
    return status


def should_restart(restart_policy: str, exit_code: int) -> bool:
    if restart_policy == "Always":
        return True
    return restart_policy == "OnFailure" and exit_code != 0
