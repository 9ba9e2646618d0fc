"""The simulated kubelets of all nodes: admission, container runs, graceful stop.

One timer heap drives every pod (no task per pod): a store listener notices bound pods and
deletions and pushes timed actions; a single ``loop.call_at`` handle fires the earliest ones in
batches. Each pod's run has a token; an action whose token is stale is ignored, which is how
a deleted pod's timers die.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from dataclasses import dataclass
from typing import Any

from services.kubesim import behaviour as sim
from services.kubesim.apierrors import ApiError
from services.kubesim.nodes import NodeShape, node_ip, registered_status
from services.kubesim.registry import ResourceType
from services.kubesim.store import Key, Store
from services.kubesim.watch import Event
from shared.kube.timefmt import format_rfc3339
from shared.resources import EMPTY, Resources

Obj = dict[str, Any]
_TERMINAL = ("Succeeded", "Failed")
_BATCH = 2000  # timer actions per callback, so a burst does not starve the HTTP server


@dataclass
class NodeState:
    allocatable: Resources
    ip: str
    used: Resources = EMPTY
    pods: int = 0


@dataclass
class PodRun:
    key: Key
    node: str
    requests: Resources
    behaviour: sim.Behaviour
    token: int
    accounted: bool = False
    restarts: int = 0
    runs: int = 0
    stopping: bool = False
    pod_ip: str = ""
    rejection: tuple[str, str] | None = None


class Kubelet:
    """A store listener that plays the kubelet for every simulated node."""

    def __init__(
        self,
        store: Store,
        *,
        default_shape: NodeShape,
        start_delay: float = 0.05,
        stop_delay: float = 0.05,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.store = store
        self.default_shape = default_shape
        self.start_delay = start_delay
        self.stop_delay = stop_delay
        self.loop = loop or asyncio.get_running_loop()
        self.nodes: dict[str, NodeState] = {}
        self.runs: dict[Key, PodRun] = {}
        self._heap: list[tuple[float, int, str, Key, int]] = []
        self._seq = itertools.count()
        self._tokens = itertools.count(1)
        self._ips = itertools.count(1)
        self._handle: asyncio.TimerHandle | asyncio.Handle | None = None
        self._armed_at = float("inf")
        self.pods_rtype = store.tables["pods"].rtype
        self.nodes_rtype = store.tables["nodes"].rtype

    # ---- listener ----------------------------------------------------------------------------

    def __call__(self, rtype: ResourceType, event: Event) -> None:
        if rtype is self.pods_rtype:
            self._on_pod(event)
        elif rtype is self.nodes_rtype:
            self._on_node(event)

    def _on_node(self, event: Event) -> None:
        obj = event.obj
        name = obj["metadata"]["name"]
        if event.type == "DELETED":
            self.nodes.pop(name, None)
            for pod in self.store.pods_on_node(name):
                self._push(0.0, "stop", self._run_for_orphan(pod))
            return
        status = obj.get("status") or {}
        if not status.get("allocatable") or not status.get("conditions"):
            self.loop.call_soon(self._register, name)
        alloc = Resources.from_list(status.get("allocatable") or status.get("capacity") or {})
        state = self.nodes.get(name)
        if state is None:
            self.nodes[name] = NodeState(allocatable=alloc, ip=node_ip(obj))
        else:
            state.allocatable = alloc

    def _register(self, name: str) -> None:
        """A node created without status: report capacity and conditions as its kubelet would."""
        node = self.store.find(self.nodes_rtype, "", name)
        if node is None:
            return
        status = registered_status(node, self.default_shape, format_rfc3339(self.store.clock()))
        if status != node.get("status"):
            self.store.update_status(self.nodes_rtype, node, status)

    def _on_pod(self, event: Event) -> None:
        pod = event.obj
        meta = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        run = self.runs.get(key)
        if event.type == "DELETED":
            if run is not None:
                self._release(run)
                del self.runs[key]
            return
        node = pod["spec"].get("nodeName")
        if not node:
            if (
                meta.get("deletionTimestamp")
                and pod.get("status", {}).get("phase") not in _TERMINAL
            ):
                self._gc_unscheduled(pod)
            return
        phase = (pod.get("status") or {}).get("phase")
        if run is None:
            if phase in _TERMINAL and not meta.get("deletionTimestamp"):
                return
            run = self._admit(key, node, pod)
        elif phase in _TERMINAL:
            self._release(run)
        if meta.get("deletionTimestamp") and not run.stopping:
            run.stopping = True
            grace = float(meta.get("deletionGracePeriodSeconds", 0))
            delay = min(grace, self.stop_delay) if node in self.nodes else grace
            self._push(delay, "stop", run)

    def _run_for_orphan(self, pod: Obj) -> PodRun:
        meta = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        run = self.runs.get(key)
        if run is None:
            run = self._admit(key, pod["spec"].get("nodeName", ""), pod)
        run.stopping = True
        return run

    def _admit(self, key: Key, node: str, pod: Obj) -> PodRun:
        run = PodRun(
            key=key,
            node=node,
            requests=sim.pod_requests(pod),
            behaviour=sim.behaviour_of(pod, default_start_delay=self.start_delay),
            token=next(self._tokens),
        )
        self.runs[key] = run
        state = self.nodes.get(node)
        phase = (pod.get("status") or {}).get("phase")
        if state is None or phase in _TERMINAL or pod["metadata"].get("deletionTimestamp"):
            return run  # no kubelet for this node (or nothing to run): the pod stays as it is
        failure = sim.admission_failure(run.requests, state.used, state.allocatable, state.pods)
        if failure is not None:
            run.rejection = failure
            self._push(0.0, "reject", run)
            return run
        state.used = state.used + run.requests
        state.pods += 1
        run.accounted = True
        self._push(run.behaviour.start_delay, "start", run)
        return run

    def _release(self, run: PodRun) -> None:
        if not run.accounted:
            return
        run.accounted = False
        state = self.nodes.get(run.node)
        if state is not None:
            state.used = state.used - run.requests
            state.pods -= 1

    # ---- timers ------------------------------------------------------------------------------

    def _push(self, delay: float, action: str, run: PodRun) -> None:
        due = self.loop.time() + delay
        heapq.heappush(self._heap, (due, next(self._seq), action, run.key, run.token))
        if due < self._armed_at:
            if self._handle is not None:
                self._handle.cancel()
            self._armed_at = due
            self._handle = self.loop.call_at(due, self._fire)

    def _fire(self) -> None:
        self._handle = None
        self._armed_at = float("inf")
        now = self.loop.time()
        heap = self._heap
        done = 0
        while heap and heap[0][0] <= now and done < _BATCH:
            _, _, action, key, token = heapq.heappop(heap)
            run = self.runs.get(key)
            if run is not None and run.token == token:
                self._act(action, run)
            done += 1
        if heap:
            due = max(heap[0][0], now) if done < _BATCH else now
            self._armed_at = due
            self._handle = self.loop.call_at(due, self._fire)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._heap.clear()

    def _act(self, action: str, run: PodRun) -> None:
        pod = self.store.find(self.pods_rtype, *run.key)
        if pod is None:
            return
        try:
            if action == "stop":
                self._release(run)
                self._stop(run, pod)
            elif run.stopping:
                return
            elif action == "reject" and run.rejection is not None:
                reason, message = run.rejection
                status = sim.rejected_status(pod, reason=reason, message=message)
                self.store.update_status(self.pods_rtype, pod, status)
            elif action == "start":
                self._start(run, pod)
            elif action == "exit":
                self._exit(run, pod)
        except ApiError:
            return  # the pod changed under us (deleted); its DELETED event cleans up

    def _stop(self, run: PodRun, pod: Obj) -> None:
        """Kill the containers, report the terminal phase, then delete the pod object (it goes
        once its finalizers are gone, e.g. after the Job controller counted it)."""
        if pod.get("status", {}).get("phase") not in _TERMINAL and run.node in self.nodes:
            status = sim.killed_status(
                pod,
                now=format_rfc3339(self.store.clock()),
                host_ip=self.nodes[run.node].ip,
                restarts=run.restarts,
            )
            pod = self.store.update_status(self.pods_rtype, pod, status)
        self.store.delete(self.pods_rtype, run.key[0], run.key[1], grace_seconds=0)

    def _gc_unscheduled(self, pod: Obj) -> None:
        """PodGC's ``gcUnscheduledTerminating``: a terminating pod that was never scheduled is
        marked Failed (no kubelet will stop it). Soon, not inside the store's listener."""
        meta = pod["metadata"]
        key = (meta.get("namespace", ""), meta["name"])

        def fail() -> None:
            current = self.store.find(self.pods_rtype, *key)
            if current is None or current["metadata"].get("uid") != meta.get("uid"):
                return
            if (
                current["spec"].get("nodeName")
                or current.get("status", {}).get("phase") in _TERMINAL
            ):
                return
            status = {**(current.get("status") or {}), "phase": "Failed"}
            with contextlib.suppress(ApiError):
                self.store.update_status(self.pods_rtype, current, status)

        self.loop.call_soon(fail)

    def _start(self, run: PodRun, pod: Obj) -> None:
        if not run.pod_ip:
            n = next(self._ips)
            run.pod_ip = f"10.{244 + ((n >> 16) & 7)}.{(n >> 8) & 255}.{n & 255}"
        state = self.nodes.get(run.node)
        status = sim.running_status(
            pod,
            now=format_rfc3339(self.store.clock()),
            host_ip=state.ip if state is not None else "",
            pod_ip=run.pod_ip,
            restarts=run.restarts,
        )
        self.store.update_status(self.pods_rtype, pod, status)
        if run.behaviour.duration is not None:
            self._push(run.behaviour.duration, "exit", run)

    def _exit(self, run: PodRun, pod: Obj) -> None:
        code = run.behaviour.exit_code_of_run(run.runs)
        run.runs += 1
        restart = sim.should_restart(pod["spec"].get("restartPolicy", "Always"), code)
        state = self.nodes.get(run.node)
        status = sim.exited_status(
            pod,
            exit_code=code,
            now=format_rfc3339(self.store.clock()),
            host_ip=state.ip if state is not None else "",
            restarts=run.restarts,
            restart=restart,
        )
        if restart:
            run.restarts += 1
            self.store.update_status(self.pods_rtype, pod, status)
            self._push(run.behaviour.start_delay, "start", run)
        else:
            self._release(run)
            self.store.update_status(self.pods_rtype, pod, status)
