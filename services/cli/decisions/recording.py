"""What a side decides in a scenario's namespace, seen from the API server: a LIST then WATCH of
its pods and PodGroups (listed again after a dropped stream), keeping each pod's first node,
the pods that went away (or began to) while the scenario ran, and each PodGroup's phases.

``changed`` is the last time a decision moved (a bind, a pod's phase, a deletion, a PodGroup
phase): PodGroup conditions are left out, since Volcano rewrites them every session a job
waits, and a scenario is over when its decisions stay still.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from services.cli.decisions.outcome import GangOutcome, Outcome
from services.cli.decisions.scenario import Scenario
from services.cli.decisions.volcano import GANG_LABEL
from shared.kube import KubeClient, ResourceType, resource_for
from shared.kube.errors import CALL_ERRORS

Json = dict[str, Any]
POD = resource_for("v1", "Pod")
PODGROUP = resource_for("scheduling.volcano.sh/v1beta1", "PodGroup")
ENDED = frozenset({"Succeeded", "Failed"})


class Recorder:
    def __init__(self, kube: KubeClient, namespace: str) -> None:
        self.kube = kube
        self.namespace = namespace
        self.nodes: dict[str, str] = {}  # pod → first node
        self.gang_of: dict[str, str] = {}  # pod → gang
        self.phase: dict[str, str] = {}  # pod → last phase
        self.gone: set[str] = set()  # pods deleted, or being deleted
        self.phases: dict[str, list[str]] = {}  # PodGroup → phases in order
        self.changed = time.monotonic()
        self._tasks: list[asyncio.Task[None]] = []
        self._listed: list[asyncio.Event] = []

    async def start(self) -> None:
        for rt, handler in ((POD, self._on_pod), (PODGROUP, self._on_podgroup)):
            listed = asyncio.Event()
            self._listed.append(listed)
            self._tasks.append(asyncio.create_task(self._follow(rt, handler, listed)))
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in self._listed)), 30)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(
        self, rt: ResourceType, on_event: Callable[[str, Json], None], listed: asyncio.Event
    ) -> None:
        while True:
            try:
                items, version = await self.kube.list_all(rt, namespace=self.namespace)
                for item in items:
                    on_event("ADDED", item)
                listed.set()
                async for kind, obj in self.kube.watch(
                    rt,
                    resource_version=version,
                    timeout_seconds=120,
                    inactivity_timeout=30,
                    namespace=self.namespace,
                ):
                    if kind != "BOOKMARK":
                        on_event(kind, obj)
            except (*CALL_ERRORS, ValueError):
                await asyncio.sleep(0.2)

    def _on_pod(self, kind: str, pod: Json) -> None:
        meta = pod.get("metadata") or {}
        name = str(meta.get("name"))
        self.gang_of[name] = str((meta.get("labels") or {}).get(GANG_LABEL, ""))
        node = (pod.get("spec") or {}).get("nodeName")
        if node and name not in self.nodes:
            self.nodes[name] = str(node)
            self.changed = time.monotonic()
        phase = str((pod.get("status") or {}).get("phase") or "")
        if phase != self.phase.get(name):
            self.phase[name] = phase
            self.changed = time.monotonic()
        if (kind == "DELETED" or meta.get("deletionTimestamp")) and name not in self.gone:
            self.gone.add(name)
            self.changed = time.monotonic()

    def _on_podgroup(self, kind: str, group: Json) -> None:
        name = str((group.get("metadata") or {}).get("name"))
        phase = str((group.get("status") or {}).get("phase") or "")
        seen = self.phases.setdefault(name, [])
        if phase and (not seen or seen[-1] != phase):
            seen.append(phase)
            self.changed = time.monotonic()

    def running(self) -> int:
        """Pods bound and not yet ended nor gone."""
        return sum(
            1 for pod in self.nodes if pod not in self.gone and self.phase.get(pod) not in ENDED
        )

    def outcome(self, scenario: Scenario, side: str, seconds: float) -> Outcome:
        gangs = {g.name: GangOutcome() for g in scenario.gangs}
        for pod, gang in self.gang_of.items():
            if gang not in gangs:
                continue
            if pod in self.nodes:
                gangs[gang].bound[pod] = self.nodes[pod]
            if pod in self.gone:
                gangs[gang].evicted.append(pod)
        for name, phases in self.phases.items():
            if name in gangs:
                gangs[name].phases = list(phases)
        for seen in gangs.values():
            seen.bound = dict(sorted(seen.bound.items()))
            seen.evicted.sort()
        return Outcome(scenario=scenario.name, side=side, gangs=gangs, seconds=round(seconds, 2))
