"""``pods/log`` in a simulated cluster: no container runs a process, so there is no output.

kubectl logs gets a short plain-text account instead of a bare 404: that logs are simulated, and
what the simulated kubelet did with the container (its state, exit code, restarts).
"""

from __future__ import annotations

from typing import Any

from services.kubesim import apierrors

Obj = dict[str, Any]
HEADER = "[kubesim] logs are simulated: containers in kubesim run no process and write no output"


def _state(status: Obj | None) -> str:
    if status is None:
        return "not started"
    state = status.get("state") or {}
    if "running" in state:
        return f"running since {state['running'].get('startedAt', '?')}"
    if "terminated" in state:
        ended = state["terminated"]
        return (
            f"terminated ({ended.get('reason', '')}, exit code {ended.get('exitCode', '?')}) "
            f"at {ended.get('finishedAt', '?')}"
        )
    waiting = state.get("waiting") or {}
    return f"waiting ({waiting.get('reason', 'ContainerCreating')})"


def simulated_log(pod: Obj, container: str | None) -> str:
    """The body of ``GET pods/<name>/log``; a container the pod lacks is a 400, as upstream."""
    meta, spec = pod["metadata"], pod.get("spec") or {}
    names = [c.get("name", "") for c in spec.get("containers") or []]
    name = container or (names[0] if len(names) == 1 else "")
    if not name:
        raise apierrors.bad_request(
            f"a container name must be specified for pod {meta['name']}, choose one of: {names}"
        )
    specs = {
        c.get("name"): c for c in [*(spec.get("initContainers") or []), *spec.get("containers", [])]
    }
    if name not in specs:
        raise apierrors.bad_request(f"container {name} is not valid for pod {meta['name']}")
    status = pod.get("status") or {}
    statuses = [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]
    current = next((s for s in statuses if s.get("name") == name), None)
    restarts = current.get("restartCount", 0) if current else 0
    where = spec.get("nodeName") or "no node yet"
    return (
        f"{HEADER}.\n"
        f"[kubesim] pod {meta.get('namespace', '')}/{meta['name']} container {name} "
        f"(image {specs[name].get('image', '?')}) on {where}: {_state(current)}, "
        f"{restarts} restarts.\n"
    )
